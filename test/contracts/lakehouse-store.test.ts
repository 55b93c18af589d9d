import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SqlControlPlaneStore, sourceSchemaAttachments } from "../../adapters/controlplane/index.ts";
import { PostgresClient, SqliteClient } from "../../adapters/sql/index.ts";
import { engineUrl, freshPostgresDatabase } from "../engines.ts";
import { runLakehouseStoreContract } from "./lakehouse-store.contract.ts";

runLakehouseStoreContract("sqlite", async () => {
  const dir = mkdtempSync(join(tmpdir(), "cairn-lh-"));
  const sql = new SqliteClient(join(dir, "cp.sqlite"), { attach: sourceSchemaAttachments(dir) });
  return {
    store: new SqlControlPlaneStore(sql),
    cleanup: async () => rmSync(dir, { recursive: true, force: true }),
  };
});

const pg = engineUrl("postgres");
if (pg) {
  runLakehouseStoreContract("postgres", async () => {
    const db = await freshPostgresDatabase(pg);
    return { store: new SqlControlPlaneStore(new PostgresClient(db.url)), cleanup: db.drop };
  });
}
