/** The tiering state store on both control-plane databases: claims are leases, moves need the claim. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { SqlClient } from "../../domain/ports.ts";
import { engineUrl, freshPostgresDatabase } from "../../test/engines.ts";
import { migrate, PostgresClient, SqliteClient } from "../sql/index.ts";
import { TIERING_MIGRATIONS } from "./tiering-migrations.ts";
import { SqlTieringStateStore } from "./tiering-store.ts";

function suite(name: string, open: () => Promise<{ sql: SqlClient; close(): Promise<void> }>): void {
  describe(`tiering state store: ${name}`, () => {
    let db: { sql: SqlClient; close(): Promise<void> };
    let store: SqlTieringStateStore;
    beforeAll(async () => {
      db = await open();
      await migrate(db.sql, TIERING_MIGRATIONS);
      store = new SqlTieringStateStore(db.sql);
    });
    afterAll(() => db.close());

    const init = { from: "2024-03-01T00:00:00.000Z", to: "2024-03-02T00:00:00.000Z", rows: 5, objectKey: "ns/k" };
    const later = (ms: number) => new Date(Date.now() + ms).toISOString();

    test("a claim creates the part as pending; a live claim keeps other owners out until it runs out", async () => {
      const tenantId = crypto.randomUUID();
      const key = { tenantId, table: "Trades", partition: "2024-03-01", part: 0 };
      const a = await store.claim(key, init, "run-a", later(60_000));
      expect(a).toMatchObject({ table: "Trades", state: "pending", rows: 5, bytes: 0, objectKey: "ns/k", part: 0 });
      expect(await store.claim({ ...key, table: "TRADES" }, init, "run-b", later(60_000))).toBeNull();
      // The holder renews its own claim.
      expect(await store.claim(key, init, "run-a", later(60_000))).not.toBeNull();
      // Moves need the claim.
      expect(await store.transition(key, "run-b", { state: "exported" })).toBe(false);
      expect(await store.transition(key, "run-a", { state: "exported", rows: 7, bytes: 1234 })).toBe(true);
      // A dead run's claim runs out and another run takes the part as it was left.
      expect(await store.claim(key, init, "run-a", later(-1))).not.toBeNull();
      const b = await store.claim(key, { ...init, rows: 99 }, "run-b", later(60_000));
      expect(b).toMatchObject({ state: "exported", rows: 7, bytes: 1234 });
      expect(await store.transition(key, "run-a", { state: "tiered" })).toBe(false);
      await store.release(key, "run-b", "boom");
      expect((await store.parts(tenantId, "trades"))[0]?.lastError).toBe("boom");
      // Released: anyone may claim at once.
      expect(await store.claim(key, init, "run-c", later(60_000))).not.toBeNull();
      expect(await store.transition(key, "run-c", { state: "tiered" })).toBe(true);
      expect((await store.parts(tenantId, "trades"))[0]).toMatchObject({ state: "tiered", lastError: null });
    });

    test("parts list by partition then part, per tenant only", async () => {
      const tenantId = crypto.randomUUID();
      const other = crypto.randomUUID();
      for (const [partition, part] of [
        ["2024-03-02", 1],
        ["2024-03-01", 0],
        ["2024-03-02", 0],
      ] as const) {
        await store.claim({ tenantId, table: "t", partition, part }, init, "r", later(1000));
      }
      await store.claim({ tenantId: other, table: "t", partition: "2024-03-01", part: 0 }, init, "r", later(1000));
      await store.claim({ tenantId, table: "u", partition: "2024-01-01", part: 0 }, init, "r", later(1000));
      expect((await store.parts(tenantId, "T")).map((p) => [p.partition, p.part])).toEqual([
        ["2024-03-01", 0],
        ["2024-03-02", 0],
        ["2024-03-02", 1],
      ]);
      expect((await store.tenantParts(tenantId)).map((p) => p.table)).toEqual(["t", "t", "t", "u"]);
      expect((await store.tenantParts(other)).length).toBe(1);
    });
  });
}

suite("SQLite", async () => {
  const dir = mkdtempSync(join(tmpdir(), "cairn-tierstate-"));
  const sql = new SqliteClient(join(dir, "cp.sqlite"));
  return {
    sql,
    close: async () => {
      await sql.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});

const pg = engineUrl("postgres");
if (pg) {
  suite("Postgres", async () => {
    const fresh = await freshPostgresDatabase(pg);
    const sql = new PostgresClient(fresh.url);
    return {
      sql,
      close: async () => {
        await sql.close();
        await fresh.drop();
      },
    };
  });
}
