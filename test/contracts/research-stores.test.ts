import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openResearchStores, RESEARCH_MIGRATIONS } from "../../adapters/financials/research.ts";
import { migrate, PostgresClient, SqliteClient } from "../../adapters/sql/index.ts";
import { engineUrl, freshPostgresDatabase } from "../engines.ts";
import { runResearchStoresContract } from "./research-stores.contract.ts";

runResearchStoresContract("sqlite", async () => {
  const dir = mkdtempSync(join(tmpdir(), "cairn-rs-"));
  const sql = new SqliteClient(join(dir, "research.sqlite"));
  await migrate(sql, RESEARCH_MIGRATIONS);
  return {
    stores: openResearchStores(sql),
    cleanup: async () => {
      await sql.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});

const pg = engineUrl("postgres");
if (pg) {
  runResearchStoresContract("postgres", async () => {
    const db = await freshPostgresDatabase(pg);
    const sql = new PostgresClient(db.url);
    await migrate(sql, RESEARCH_MIGRATIONS);
    return {
      stores: openResearchStores(sql),
      cleanup: async () => {
        await sql.close();
        await db.drop();
      },
    };
  });
}
