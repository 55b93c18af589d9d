/**
 * The schema of one tenant's document index file. The hybrid-search area writes and
 * queries it; this file only owns its shape so that provisioning and search agree.
 *
 * - `documents` (version 2) holds one row per document: its metadata and its access rules.
 *   The ACL pre-filter is evaluated here (documents are few, chunks many) and reaches the
 *   chunks through `chunks_doc`; `doc_type`/`entity_id` filters likewise.
 *
 * - `chunks` is the source of truth. `seq` is the integer rowid both virtual tables key
 *   on; `id` is the caller's chunk id. ACL columns are plain columns so the search area can
 *   compile a token's access rules into `seq IN (SELECT seq FROM chunks WHERE ...)`, a
 *   constraint sqlite-vec applies as a pre-filter inside the KNN scan (checked: a KNN
 *   query with k=2 and such a filter returns only the permitted row, not the top 2 overall).
 * - `chunks_fts` is an external-content FTS5 table: the text is stored once, in `chunks`,
 *   and triggers keep the index in step, so writers only ever touch `chunks`.
 * - `chunks_vec` holds the embeddings (cosine distance; exact search). Embeddings are not
 *   in `chunks`, so the writer inserts them itself; the delete trigger removes them, so a
 *   deleted chunk can never surface through the vector leg. It is the source of truth of the
 *   per-tenant HNSW index (ann-index.ts), which is built from it.
 * - `ann_log` (version 3) lists every chunk insert and delete, by triggers, with ids that are
 *   never reused (AUTOINCREMENT): a holder of an in-memory HNSW index replays the entries
 *   past its watermark, since `seq` itself is reused after deletes.
 */

export const SCHEMA_VERSION = 3;

/** Tables that must exist for the namespace to count as usable. */
export const REQUIRED_TABLES = ["_namespace", "documents", "chunks", "chunks_fts", "chunks_vec", "ann_log"] as const;

export function schemaSql(embeddingDim: number): string {
  return `
CREATE TABLE IF NOT EXISTS _namespace (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS documents (
  doc_id               TEXT PRIMARY KEY,
  filename             TEXT NOT NULL,
  format               TEXT NOT NULL,
  doc_type             TEXT NOT NULL,
  entity_id            TEXT,
  uploaded_by          TEXT NOT NULL,
  uploaded_at          TEXT NOT NULL,
  visibility           TEXT NOT NULL,
  allowed_identity_ids TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(allowed_identity_ids)),
  allowed_roles        TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(allowed_roles)),
  barrier_id           TEXT,
  chunk_count          INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS documents_entity ON documents (entity_id);
CREATE TABLE IF NOT EXISTS chunks (
  seq                  INTEGER PRIMARY KEY,
  id                   TEXT NOT NULL UNIQUE,
  doc_id               TEXT NOT NULL,
  chunk_index          INTEGER NOT NULL,
  text                 TEXT NOT NULL,
  metadata             TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(metadata)),
  visibility           TEXT NOT NULL DEFAULT 'private',
  allowed_identity_ids TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(allowed_identity_ids)),
  allowed_roles        TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(allowed_roles)),
  barrier_id           TEXT,
  entity_id            TEXT,
  doc_type             TEXT,
  created_at           TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS chunks_doc ON chunks (doc_id, chunk_index);
CREATE VIRTUAL TABLE IF NOT EXISTS chunks_fts USING fts5(
  text, content = 'chunks', content_rowid = 'seq', tokenize = 'porter unicode61'
);
CREATE VIRTUAL TABLE IF NOT EXISTS chunks_vec USING vec0(
  seq INTEGER PRIMARY KEY,
  embedding FLOAT[${embeddingDim}] distance_metric=cosine
);
CREATE TRIGGER IF NOT EXISTS chunks_ai AFTER INSERT ON chunks BEGIN
  INSERT INTO chunks_fts (rowid, text) VALUES (new.seq, new.text);
END;
CREATE TRIGGER IF NOT EXISTS chunks_ad AFTER DELETE ON chunks BEGIN
  INSERT INTO chunks_fts (chunks_fts, rowid, text) VALUES ('delete', old.seq, old.text);
  DELETE FROM chunks_vec WHERE seq = old.seq;
END;
CREATE TABLE IF NOT EXISTS ann_log (
  id  INTEGER PRIMARY KEY AUTOINCREMENT,
  seq INTEGER NOT NULL,
  op  TEXT NOT NULL CHECK (op IN ('add', 'del')),
  -- The added chunk's embedding when the writer supplied it (else read from chunks_vec).
  vec BLOB
);
CREATE TRIGGER IF NOT EXISTS chunks_ann_ai AFTER INSERT ON chunks BEGIN
  INSERT INTO ann_log (seq, op) VALUES (new.seq, 'add');
END;
CREATE TRIGGER IF NOT EXISTS chunks_ann_ad AFTER DELETE ON chunks BEGIN
  INSERT INTO ann_log (seq, op) VALUES (old.seq, 'del');
END;
CREATE TRIGGER IF NOT EXISTS chunks_au AFTER UPDATE OF text ON chunks BEGIN
  INSERT INTO chunks_fts (chunks_fts, rowid, text) VALUES ('delete', old.seq, old.text);
  INSERT INTO chunks_fts (rowid, text) VALUES (new.seq, new.text);
END;
`;
}

/**
 * Upgrades a file written by an older schema version, in the caller's transaction, after
 * `schemaSql` (IF NOT EXISTS) has created what is new. Version 1 had no `documents` table: it
 * is filled from the chunks, whose rows already carried each document's ACL columns. Version
 * 2 had no `ann_log`: an empty log is right, since the HNSW index of such a file does not
 * exist yet and is built from `chunks_vec`.
 */
export function upgradeSql(fromVersion: number): string {
  if (fromVersion >= SCHEMA_VERSION) return "";
  const fillDocuments = fromVersion < 2 ? V1_DOCUMENTS : "";
  return `${fillDocuments}
UPDATE _namespace SET value = '${SCHEMA_VERSION}' WHERE key = 'schema_version';
`;
}

const V1_DOCUMENTS = `
INSERT OR IGNORE INTO documents (doc_id, filename, format, doc_type, entity_id, uploaded_by, uploaded_at,
    visibility, allowed_identity_ids, allowed_roles, barrier_id, chunk_count)
  SELECT doc_id,
         coalesce(json_extract(max(metadata), '$.filename'), doc_id),
         coalesce(json_extract(max(metadata), '$.format'), 'unknown'),
         coalesce(max(doc_type), 'other'),
         max(entity_id),
         coalesce(json_extract(max(metadata), '$.uploaded_by'), ''),
         min(created_at),
         max(visibility), max(allowed_identity_ids), max(allowed_roles), max(barrier_id), count(*)
    FROM chunks GROUP BY doc_id;`;
