/**
 * Writes one tenant's next ANN generation off the search thread (ann-registry.ts starts it):
 * the first build when the tenant is too large to build inline (it reads `chunks_vec` in one
 * read snapshot; until then the tenant is searched exactly), or a compaction of a viewed
 * generation whose delta has grown (a copy of it, the log applied in place; searches go on
 * over the view meanwhile). It saves the generation and its sidecar and says so; the
 * searching threads then view the saved file and replay the log past it.
 *
 * One builder per tenant file at a time, across threads and processes: it holds an exclusive
 * SQLite lock on `<file>.ann.lock` (released by SQLite when the process ends). A second one
 * (another search thread crossing the same threshold) fails at once and is retried later by
 * its registry, instead of writing a second 1.5 GB generation that the first would orphan.
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
  let lock: Database | null = null;
  try {
    lock = new Database(`${file}.ann.lock`, { create: true });
    lock.exec("PRAGMA busy_timeout = 0; BEGIN EXCLUSIVE;"); // throws "database is locked" when another builder runs
    db = new Database(file, { readonly: true, strict: true });
    db.exec("PRAGMA busy_timeout = 5000;");
    sqliteVec.load(db);
    const conn = db;
    const ann = conn.transaction(() => AnnIndex.next(conn, file, dim, threads)).deferred();
    if (!ann.saved || ann.pending > 0) ann.save();
    self.postMessage({ ok: true, size: ann.size } satisfies FromAnnBuild);
  } catch (err) {
    self.postMessage({ ok: false, message: err instanceof Error ? err.message : String(err) } satisfies FromAnnBuild);
  } finally {
    db?.close();
    lock?.close(); // ends its transaction: the lock is released
  }
};
