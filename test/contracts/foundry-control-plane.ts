/**
 * The control plane the Foundry store contracts run on: an SQLite file, and Postgres when its
 * engine runs (test/engines.ts: under CI it must), each migrated with the Foundry migrations
 * (a second migration applies nothing) and holding the given tenants (runs, experiments,
 * deployments and agents belong to a tenant by foreign key). `body` declares the tests once;
 * they run against each database, which `db()` returns once the suite has started.
 */
import { afterAll, beforeAll, describe, expect } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FOUNDRY_MIGRATIONS } from "../../adapters/controlplane/foundry-migrations.ts";
import { SqlControlPlaneStore } from "../../adapters/controlplane/store.ts";
import { migrate, PostgresClient, SqliteClient } from "../../adapters/sql/index.ts";
import type { SqlClient } from "../../domain/ports.ts";
import { engineUrl, freshPostgresDatabase } from "../engines.ts";

type Open = () => Promise<{ sql: SqlClient; cleanup: () => Promise<void> }>;

export function forEachControlPlane(title: string, tenants: string[], body: (db: () => SqlClient) => void): void {
  const suite = (name: string, open: Open) =>
    describe(`${title}: ${name}`, () => {
      let sql: SqlClient;
      let cleanup: () => Promise<void>;
      beforeAll(async () => {
        ({ sql, cleanup } = await open());
        const controlPlane = new SqlControlPlaneStore(sql);
        await controlPlane.migrate(FOUNDRY_MIGRATIONS);
        expect(await migrate(sql, FOUNDRY_MIGRATIONS)).toEqual([]);
        for (const id of tenants) {
          await controlPlane.createTenant({ tenant_id: id, slug: id, display_name: id, tier: "pilot", region: "eu" });
        }
      });
      afterAll(async () => {
        await sql.close();
        await cleanup();
      });
      body(() => sql);
    });

  suite("sqlite", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cairn-foundry-cp-"));
    const sql = new SqliteClient(join(dir, "cp.sqlite"));
    return { sql, cleanup: async () => rmSync(dir, { recursive: true, force: true }) };
  });
  const pg = engineUrl("postgres");
  if (pg) {
    suite("postgres", async () => {
      const db = await freshPostgresDatabase(pg);
      return { sql: new PostgresClient(db.url), cleanup: db.drop };
    });
  }
}
