import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PostgresClient, SqliteClient } from "../../adapters/sql/index.ts";
import { engineUrl, freshPostgresDatabase } from "../engines.ts";
import { runFinancialsStoreContract } from "./financials-store.contract.ts";

runFinancialsStoreContract("sqlite", async () => {
  const dir = mkdtempSync(join(tmpdir(), "cairn-fin-"));
  return {
    sql: new SqliteClient(join(dir, "financials.sqlite")),
    cleanup: async () => rmSync(dir, { recursive: true, force: true }),
  };
});

const pg = engineUrl("postgres");
if (pg) {
  runFinancialsStoreContract("postgres", async () => {
    const db = await freshPostgresDatabase(pg);
    return { sql: new PostgresClient(db.url), cleanup: db.drop };
  });
}
