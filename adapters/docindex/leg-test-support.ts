/**
 * Shared by the leg tests (permitted.test.ts, keyword-leg.test.ts): a caller's leg scope with
 * no roles, no barriers, no filter and limit 50, overridden per test; an in-memory index file;
 * and the metadata of their numbered test documents. Also by the side-index tests (ann,
 * keyword-index, generation-check): a rewrite of a generation file that a later write would be,
 * bit rot, which no write shows, and the stamp a check leaves.
 */
import { Database } from "bun:sqlite";
import { closeSync, openSync, statSync, utimesSync, writeFileSync, writeSync } from "node:fs";
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

/** Sets a file's time to a whole second a minute ago, which the file system keeps exactly when `rot` sets it again. */
export function settle(path: string): void {
  const t = new Date(Math.floor(Date.now() / 1000) * 1000 - 60_000);
  utimesSync(path, t, t);
}

/** Changes the byte at `at` in place, keeping the file's size, inode and (settled) time: bit rot. */
export function rot(path: string, at: number): void {
  const st = statSync(path);
  const fd = openSync(path, "r+");
  writeSync(fd, Buffer.from([0x5a]), 0, 1, at);
  closeSync(fd);
  utimesSync(path, st.atime, st.mtime);
  if (statSync(path).mtimeMs !== st.mtimeMs) throw new Error(`rot: ${path} did not keep its time`);
}

/** What a generation's stamp vouches for: generation-check.ts's format, restated as the tests' oracle. */
export function stampIdentity(path: string, digest: string): string {
  const st = statSync(path);
  return `${digest}:${st.size}:${st.mtimeMs}:${st.ino}`;
}

/** The stamp a thread or process leaves after hashing `path` at `hashedAt` (long ago: an earlier run). */
export const stampFor = (path: string, digest: string, hashedAt = Date.now()): string =>
  `${stampIdentity(path, digest)}:${hashedAt}`;
