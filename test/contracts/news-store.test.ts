import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SqlControlPlaneStore } from "../../adapters/controlplane/index.ts";
import { PostgresClient, SqliteClient } from "../../adapters/sql/index.ts";
import { engineUrl, freshPostgresDatabase } from "../engines.ts";
import { runNewsStoreContract } from "./news-store.contract.ts";

runNewsStoreContract("sqlite", async () => {
  const dir = mkdtempSync(join(tmpdir(), "cairn-news-"));
  return {
    store: new SqlControlPlaneStore(new SqliteClient(join(dir, "cp.sqlite"))),
    cleanup: async () => rmSync(dir, { recursive: true, force: true }),
  };
});

const pg = engineUrl("postgres");
if (pg) {
  runNewsStoreContract("postgres", async () => {
    const db = await freshPostgresDatabase(pg);
    return { store: new SqlControlPlaneStore(new PostgresClient(db.url)), cleanup: db.drop };
  });
}
