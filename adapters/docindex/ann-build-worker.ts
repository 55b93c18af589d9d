/**
 * Builds one tenant's ANN index off the search thread (ann-registry.ts starts it when the
 * tenant is too large to build inline): it reads `chunks_vec` in one read snapshot, builds,
 * saves the generation and its sidecar, and says so. Until then the tenant is searched
 * exactly; afterwards the searching thread loads the saved file and replays the log.
 */
import { Database } from "bun:sqlite";
import * as sqliteVec from "sqlite-vec";
import { AnnIndex } from "./ann-index.ts";

declare const self: Worker;

export interface AnnBuildJob {
  file: string;
  dim: number;
  threads: number;
}

export type FromAnnBuild = { ok: true; size: number } | { ok: false; message: string };

self.onmessage = (e: MessageEvent<AnnBuildJob>) => {
  const { file, dim, threads } = e.data;
  let db: Database | null = null;
  try {
    db = new Database(file, { readonly: true, strict: true });
    db.exec("PRAGMA busy_timeout = 5000;");
    sqliteVec.load(db);
    const conn = db;
    const ann = conn.transaction(() => AnnIndex.build(conn, file, dim, threads)).deferred();
    ann.save();
    self.postMessage({ ok: true, size: ann.size } satisfies FromAnnBuild);
  } catch (err) {
    self.postMessage({ ok: false, message: err instanceof Error ? err.message : String(err) } satisfies FromAnnBuild);
  } finally {
    db?.close();
  }
};
