import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { User } from "../../domain/ports.ts";
import { SqliteClient } from "../sql/sqlite.ts";
import { SqlControlPlaneStore } from "./store.ts";
import { FreshUserCache } from "./user-cache.ts";

// A control plane on a real SQLite file in WAL mode, as the embedded profile opens it.
let dir: string;
let path: string;
let sql: SqliteClient;
let store: SqlControlPlaneStore;
let tenantId: string;
/** A second connection to the same file: what another process (the CLI) writes through. */
let other: Database;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "cairn-usercache-"));
  path = join(dir, "control.db");
  sql = new SqliteClient(path);
  store = new SqlControlPlaneStore(sql);
  await store.migrate();
  const tenant = await store.createTenant({
    slug: "t-cache",
    display_name: "Cache",
    tier: "enterprise",
    region: "local",
    provisioning_state: "active",
    is_active: true,
  });
  tenantId = tenant.tenant_id;
  other = new Database(path);
});
afterAll(async () => {
  other.close();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const newUser = (email: string) => store.createUser({ tenant_id: tenantId, email, name: "N", tier: "free" });

describe("user rows are cached, never older than the last commit", () => {
  test("a tier change written by another connection is seen by the very next lookup", async () => {
    const u = await newUser("other-conn@example.com");
    expect((await store.getUser(u.id))?.tier).toBe("free");
    expect((await store.getUser(u.id))?.tier).toBe("free"); // now from the cache
    other.query("UPDATE users SET tier = 'pro' WHERE id = ?").run(u.id);
    expect((await store.getUser(u.id))?.tier).toBe("pro");
  });

  test("a role change written by another process is seen by the very next lookup", async () => {
    const u = await newUser("other-proc@example.com");
    expect((await store.getUser(u.id))?.roles).toEqual([]);
    expect((await store.getUserByEmail("OTHER-PROC@example.com"))?.roles).toEqual([]);
    const script = `const {Database}=require("bun:sqlite");const db=new Database(${JSON.stringify(path)});
      db.query("UPDATE users SET roles = '[\\"owner\\"]' WHERE id = ?").run(${u.id});db.close();`;
    const child = Bun.spawnSync([process.execPath, "-e", script]);
    expect(child.exitCode).toBe(0);
    expect((await store.getUser(u.id))?.roles).toEqual(["owner"]);
    expect((await store.getUserByEmail("other-proc@example.com"))?.roles).toEqual(["owner"]);
  });

  test("this connection's writes (updateUser, barriers) and a deletion apply at once", async () => {
    const u = await newUser("same-conn@example.com");
    expect((await store.getUser(u.id))?.barriers).toEqual([]);
    await store.updateUser(u.id, { barriers: ["b-1"], tier: "enterprise" });
    const after = await store.getUser(u.id);
    expect(after?.barriers).toEqual(["b-1"]);
    expect(after?.tier).toBe("enterprise");
    other.query("DELETE FROM users WHERE id = ?").run(u.id);
    expect(await store.getUser(u.id)).toBeNull();
    expect(await store.getUserByEmail("same-conn@example.com")).toBeNull();
  });

  test("a row read while another writer commits is not kept", async () => {
    const u = await newUser("race@example.com");
    const cache = FreshUserCache.over(sql);
    if (!cache) throw new Error("a WAL SQLite file must offer a change watcher");
    // The read returns the row as it was, and the other writer commits before the read
    // resolves: the cache must not keep that row.
    const stale = await store.getUser(u.id);
    const row = await cache.lookup(u.id, async () => {
      other.query("UPDATE users SET tier = 'pro' WHERE id = ?").run(u.id);
      return stale;
    });
    expect(row?.tier).toBe("free");
    expect(cache.size).toBe(0);
    expect((await cache.lookup(u.id, () => store.getUser(u.id)))?.tier).toBe("pro");
    expect(cache.size).toBe(1);
  });

  test("callers get copies: changing one does not change what the next caller gets", async () => {
    const u = await newUser("copy@example.com");
    await store.getUser(u.id);
    const a = (await store.getUser(u.id)) as User;
    a.tier = "enterprise";
    expect((await store.getUser(u.id))?.tier).toBe("free");
    expect(() => a.roles.push("owner")).toThrow();
  });

  test("bounded: the oldest entry leaves when full", async () => {
    const cache = FreshUserCache.over(sql, 3);
    if (!cache) throw new Error("a WAL SQLite file must offer a change watcher");
    const users = await Promise.all([1, 2, 3, 4, 5].map((i) => newUser(`bound-${i}@example.com`)));
    let reads = 0;
    const read = (id: number) => async () => {
      reads += 1;
      return store.getUser(id);
    };
    for (const u of users) await cache.lookup(u.id, read(u.id));
    expect(cache.size).toBe(3);
    expect(reads).toBe(5);
    await cache.lookup(users[4]?.id as number, read(users[4]?.id as number));
    expect(reads).toBe(5); // the newest is still cached
    await cache.lookup(users[0]?.id as number, read(users[0]?.id as number));
    expect(reads).toBe(6); // the oldest was dropped
    expect(cache.size).toBe(3);
  });

  test("no cache where the engine cannot tell commits without a round trip", async () => {
    const memory = new SqliteClient(":memory:");
    expect(memory.changeWatcher()).toBeNull();
    expect(FreshUserCache.over(memory)).toBeNull();
    await memory.close();
  });

  test("a closed client's watcher stops reading the mapped header and reports a change", async () => {
    const d = mkdtempSync(join(tmpdir(), "cairn-usercache-closed-"));
    const c = new SqliteClient(join(d, "x.db"));
    await c.exec("CREATE TABLE t (x INTEGER)");
    const w = c.changeWatcher();
    if (!w) throw new Error("a WAL SQLite file must offer a change watcher");
    expect(w.changed()).toBe(true);
    expect(w.changed()).toBe(false);
    await c.run("INSERT INTO t VALUES (1)");
    expect(w.changed()).toBe(true);
    expect(w.changed()).toBe(false);
    await c.close();
    expect(w.changed()).toBe(true);
    rmSync(d, { recursive: true, force: true });
  });
});
