/**
 * Builds one tenant's keyword index off the search thread (keyword-registry.ts starts it): it
 * reads FTS5 in one read snapshot, writes the generation and its sidecar, and says so. Until
 * then the tenant's keyword leg is answered by FTS5.
 */
import { Database } from "bun:sqlite";
import { KeywordIndex } from "./keyword-index.ts";

declare const self: Worker;

export interface KeywordBuildJob {
  file: string;
}

export type FromKeywordBuild = { ok: true; rows: number } | { ok: false; message: string };

self.onmessage = (e: MessageEvent<KeywordBuildJob>) => {
  let db: Database | null = null;
  try {
    db = new Database(e.data.file, { readonly: true, strict: true });
    db.exec("PRAGMA busy_timeout = 5000;");
    const conn = db;
    const kw = conn.transaction(() => KeywordIndex.build(conn, e.data.file)).deferred();
    if (!kw) throw new Error("the index is beyond the keyword file's format");
    self.postMessage({ ok: true, rows: kw.rows } satisfies FromKeywordBuild);
  } catch (err) {
    self.postMessage({
      ok: false,
      message: err instanceof Error ? err.message : String(err),
    } satisfies FromKeywordBuild);
  } finally {
    db?.close();
  }
};
