/**
 * Shared by the leg tests (permitted.test.ts, keyword-leg.test.ts): a caller's leg scope with
 * no roles, no barriers, no filter and limit 50, overridden per test; an in-memory index file;
 * and the metadata of their numbered test documents. Also by the side-index tests (ann,
 * keyword-index, side-builds): a rewrite of a generation file that a later write would be.
 */
import { Database } from "bun:sqlite";
import { utimesSync, writeFileSync } from "node:fs";
import * as sqliteVec from "sqlite-vec";
import type { DocumentAcl, DocumentMeta } from "../../domain/documents/types.ts";
import type { LegScope } from "./permitted.ts";
import { schemaSql } from "./schema.ts";

export const scope = (over: Partial<LegScope> = {}): LegScope => ({
  identity: "u2",
  roles: "[]",
  barriers: "[]",
  doc_id: null,
  entity_id: null,
  doc_type: null,
  limit: 50,
  ...over,
});

/** An empty index file in memory, vectors `dim` wide. */
export function memoryIndex(dim: number): Database {
  const db = new Database(":memory:", { strict: true });
  sqliteVec.load(db);
  db.exec(schemaSql(dim));
  return db;
}

/** Document `d<d>`: doc type and entity vary with `d`, so filters split the corpus. */
export const legMeta = (d: number, acl: DocumentAcl): DocumentMeta => ({
  doc_id: `d${d}`,
  filename: `d${d}.txt`,
  format: "txt",
  doc_type: d % 2 ? "other" : "research_note",
  entity_id: d % 3 ? null : "e1",
  uploaded_by: "u1",
  uploaded_at: "2026-11-25T00:00:00Z",
  acl,
});

let rewrites = 0;

/**
 * Rewrites a file as a later write would: its time moves past any stamp left on it (a file
 * system with coarse timestamps may keep the time of a rewrite within a few milliseconds).
 */
export function rewriteLater(path: string, bytes: Uint8Array): void {
  writeFileSync(path, bytes);
  const t = new Date(Date.now() + 2_000 * ++rewrites);
  utimesSync(path, t, t);
}
