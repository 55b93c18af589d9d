import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SqlControlPlaneStore } from "../../adapters/controlplane/index.ts";
import { EDITOR_MIGRATIONS, SqlEditorDocumentStore } from "../../adapters/editor/index.ts";
import { EmbeddedJobQueue, JOB_QUEUE_MIGRATIONS } from "../../adapters/queue/index.ts";
import { PostgresClient, SqliteClient } from "../../adapters/sql/index.ts";
import type { SqlClient } from "../../domain/ports.ts";
import { engineUrl, freshPostgresDatabase } from "../engines.ts";
import { type EditorStoreHarness, runEditorStoreContract } from "./editor-store.contract.ts";

async function open(sql: SqlClient, cleanup: () => Promise<void>): Promise<EditorStoreHarness> {
  const cp = new SqlControlPlaneStore(sql);
  await cp.migrate([...JOB_QUEUE_MIGRATIONS, ...EDITOR_MIGRATIONS]);
  const queue = new EmbeddedJobQueue(sql, { leaseMs: 30_000 });
  return {
    cp,
    store: new SqlEditorDocumentStore(sql),
    queue,
    cleanup: async () => {
      await queue.close();
      await sql.close();
      await cleanup();
    },
  };
}

runEditorStoreContract("sqlite", async () => {
  const dir = mkdtempSync(join(tmpdir(), "cairn-ed-"));
  return open(new SqliteClient(join(dir, "cp.sqlite")), async () => rmSync(dir, { recursive: true, force: true }));
});

const pg = engineUrl("postgres");
if (pg) {
  runEditorStoreContract("postgres", async () => {
    const db = await freshPostgresDatabase(pg);
    return open(new PostgresClient(db.url), db.drop);
  });
}
