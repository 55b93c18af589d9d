/**
 * Usage counts survive a process killed mid-flush (issue 13). A real child process
 * (usage-crash.child.ts) records requests and flushes them; it is SIGKILLed in the middle
 * of a flush transaction, or at seeded random moments, and restarted. The guarantee
 * (docs/decisions.md, "Usage durability"): every count whose flush was acknowledged is
 * persisted exactly once; a batch is all or nothing; counts not yet acknowledged at the
 * kill may be lost (at most one flush interval's worth), never counted twice.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SqlControlPlaneStore } from "../../adapters/controlplane/index.ts";
import { PostgresClient, SqliteClient } from "../../adapters/sql/index.ts";
import { engineUrl, freshPostgresDatabase, uniqueName } from "../engines.ts";
import { fuzzSeed, prng } from "../prng.ts";

const CHILD = join(import.meta.dir, "usage-crash.child.ts");
type Totals = Record<string, number>;

interface Report {
  will: Totals[];
  acked: Totals[];
  orphaned: number;
  code: number | null;
  signal: string | null;
}

interface Db {
  url: string;
  store: SqlControlPlaneStore;
  users: number[];
  cleanup: () => Promise<void>;
}

async function openDb(kind: "sqlite" | "postgres", pg?: string): Promise<Db> {
  let url: string;
  let store: SqlControlPlaneStore;
  let drop: () => Promise<void>;
  if (kind === "sqlite") {
    const dir = mkdtempSync(join(tmpdir(), "cairn-usage-crash-"));
    url = join(dir, "cp.sqlite");
    store = new SqlControlPlaneStore(new SqliteClient(url));
    drop = async () => rmSync(dir, { recursive: true, force: true });
  } else {
    const db = await freshPostgresDatabase(pg ?? "");
    url = db.url;
    store = new SqlControlPlaneStore(new PostgresClient(url, { max: 2 }));
    drop = db.drop;
  }
  await store.migrate();
  const t = await store.createTenant({ slug: uniqueName("t"), display_name: "T", tier: "pilot", region: "us" });
  const users: number[] = [];
  for (let i = 0; i < 4; i++) {
    const u = await store.createUser({
      tenant_id: t.tenant_id,
      email: `${uniqueName("u")}@x.com`,
      name: "U",
      tier: "free",
    });
    users.push(u.id);
  }
  const cleanup = async () => {
    await store.close();
    await drop();
  };
  return { url, store, users, cleanup };
}

/** Every user's persisted total, over all days (a run may cross midnight). */
async function persisted(db: Db): Promise<Totals> {
  const rows = await db.store.sql.all<{ user_id: number; n: number }>(
    "SELECT user_id, SUM(count) AS n FROM usage_daily GROUP BY user_id",
  );
  const out: Totals = Object.fromEntries(db.users.map((u) => [String(u), 0]));
  for (const r of rows) out[String(r.user_id)] = Number(r.n);
  return out;
}

const add = (a: Totals, b: Totals): Totals =>
  Object.fromEntries(Object.keys(a).map((k) => [k, (a[k] ?? 0) + (b[k] ?? 0)]));

/** Runs the child to its end, or SIGKILLs it once `killAt` returns true for a line count. */
async function runChild(db: Db, env: Record<string, string>, killAt?: (lines: number) => number | null) {
  const proc = Bun.spawn([process.execPath, CHILD], {
    env: { ...(process.env as Record<string, string>), USAGE_DB: db.url, USAGE_USERS: db.users.join(","), ...env },
    stdout: "pipe",
    stderr: "inherit",
  });
  const report: Report = { will: [], acked: [], orphaned: 0, code: null, signal: null };
  const decoder = new TextDecoder();
  let buffer = "";
  let killing = false;
  const reader = proc.stdout.getReader();
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
    buffer += decoder.decode(chunk.value, { stream: true });
    let nl = buffer.indexOf("\n");
    while (nl >= 0) {
      const line = JSON.parse(buffer.slice(0, nl)) as { will?: Totals; acked?: Totals; orphaned?: number };
      buffer = buffer.slice(nl + 1);
      nl = buffer.indexOf("\n");
      if (line.will) report.will.push(line.will);
      if (line.acked) report.acked.push(line.acked);
      if (line.orphaned !== undefined) report.orphaned = line.orphaned;
      const delay = killing ? null : (killAt?.(report.will.length + report.acked.length) ?? null);
      if (delay !== null) {
        killing = true;
        setTimeout(() => proc.kill("SIGKILL"), delay);
      }
    }
  }
  await proc.exited;
  report.code = proc.exitCode;
  report.signal = proc.signalCode === null ? null : String(proc.signalCode);
  return report;
}

const zero = (db: Db): Totals => Object.fromEntries(db.users.map((u) => [String(u), 0]));
const last = (list: Totals[], db: Db): Totals => list.at(-1) ?? zero(db);

function suite(kind: "sqlite" | "postgres", pg?: string) {
  describe(`usage survives a killed process (${kind})`, () => {
    let db: Db | undefined;
    afterEach(async () => {
      await db?.cleanup();
      db = undefined;
    });

    test("killed inside a flush transaction: acknowledged counts stay, the open batch rolls back whole", async () => {
      db = await openDb(kind, pg);
      // Four rows per flush: the 10th row write is the second row of the third flush.
      const first = await runChild(db, { USAGE_ROUNDS: "10", USAGE_SEED: "7", USAGE_KILL_AFTER_ROWS: "10" });
      expect(first.signal).toBe("SIGKILL");
      expect(first.acked).toHaveLength(2);
      expect(first.will).toHaveLength(3);
      expect(await persisted(db)).toEqual(last(first.acked, db));

      // A user deleted while its counts are in flight is orphaned; the others count on exactly.
      const gone = String(db.users[3]);
      await db.store.sql.run("DELETE FROM users WHERE id = ?", [Number(gone)]);
      const second = await runChild(db, { USAGE_ROUNDS: "5", USAGE_SEED: "8" });
      expect(second.code).toBe(0);
      expect(second.acked).toHaveLength(5);
      const expected = add(last(first.acked, db), last(second.acked, db));
      expected[gone] = 0;
      expect(await persisted(db)).toEqual(expected);
      expect(second.orphaned).toBe(last(second.acked, db)[gone] ?? -1);
    }, 60_000);

    test("SIGKILL at seeded random moments: each batch counts exactly once or not at all", async () => {
      db = await openDb(kind, pg);
      const rand = prng(fuzzSeed(`usage-crash ${kind}`));
      let base = zero(db);
      for (let run = 0; run < 4; run++) {
        const killLine = 1 + rand.int(30);
        const delay = rand.int(15);
        const r = await runChild(db, { USAGE_ROUNDS: "1000", USAGE_SEED: String(rand.int(1e9)) }, (n) =>
          n === killLine ? delay : null,
        );
        expect(r.signal).toBe("SIGKILL");
        const now = await persisted(db);
        // Killed after round k's "will" line: round k's batch committed whole, or not at all.
        const acked = add(base, last(r.acked, db));
        const whole = add(base, last(r.will, db));
        expect([acked, whole]).toContainEqual(now);
        base = now;
      }
      const clean = await runChild(db, { USAGE_ROUNDS: "3", USAGE_SEED: "9" });
      expect(clean.code).toBe(0);
      expect(await persisted(db)).toEqual(add(base, last(clean.acked, db)));
    }, 90_000);
  });
}

suite("sqlite");
const pg = engineUrl("postgres");
if (pg) suite("postgres", pg);
