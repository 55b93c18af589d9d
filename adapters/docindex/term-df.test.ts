/**
 * Document-frequency pruning (term-df.ts) and the keyword leg around it: a term most chunks
 * hold is dropped next to a rarer one, the ranking of what the rare terms find does not move,
 * chunks holding only common terms still come back when nothing better is there, and a write
 * (on this handle or another) refreshes the counts.
 */
import { Database } from "bun:sqlite";
import { expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as sqliteVec from "sqlite-vec";
import type { DocumentMeta } from "../../domain/documents/types.ts";
import { matchOf } from "./fts-query.ts";
import { keywordLeg } from "./keyword-leg.ts";
import type { LegScope } from "./permitted.ts";
import { schemaSql } from "./schema.ts";
import { removeDocument, writeDocument } from "./sqlite-search.ts";
import { MAX_DF_FRACTION, pruneCommonTerms } from "./term-df.ts";

const DIM = 4;
const meta = (doc_id: string): DocumentMeta => ({
  doc_id,
  filename: `${doc_id}.txt`,
  format: "txt",
  doc_type: "other",
  entity_id: null,
  uploaded_by: "u1",
  uploaded_at: "2026-11-26T00:00:00Z",
  acl: { visibility: "tenant_wide", allowed_identity_ids: [], allowed_roles: [], barrier_id: null },
});
const put = (db: Database, doc: string, texts: string[]) =>
  writeDocument(
    db,
    meta(doc),
    texts.map((text, j) => ({ chunk_index: j, id: `${doc}:${j}`, text, embedding: new Float32Array(DIM).fill(0.5) })),
    DIM,
  );
const scope = (limit: number): LegScope => ({
  identity: "u1",
  roles: "[]",
  barriers: "[]",
  doc_id: null,
  entity_id: null,
  doc_type: null,
  limit,
});

/** 40 chunks: "annual" in 30 of them (75%), "lease" in 8, "zebra" in 2. */
function corpus(db: Database) {
  db.exec(schemaSql(DIM));
  put(
    db,
    "d",
    Array.from({ length: 40 }, (_, i) =>
      [i < 30 ? "annual" : "", i % 5 === 0 ? "lease" : "", i === 3 || i === 33 ? "zebra" : "", `filler ${i}`].join(" "),
    ),
  );
}

function memory(): Database {
  const db = new Database(":memory:", { strict: true });
  sqliteVec.load(db);
  corpus(db);
  return db;
}

test("a term most chunks hold is dropped next to rarer ones, never down to nothing", () => {
  expect(MAX_DF_FRACTION).toBeLessThan(0.75); // "annual" is above it
  const db = memory();
  expect(pruneCommonTerms(db, ["annual", "lease", "zebra"], 40)).toEqual(["lease", "zebra"]);
  expect(pruneCommonTerms(db, ["annual"], 40)).toEqual(["annual"]);
  // Only common terms, or a common term beside one no chunk holds: kept as they are.
  expect(pruneCommonTerms(db, ["annual", "filler"], 40)).toEqual(["annual", "filler"]);
  expect(pruneCommonTerms(db, ["annual", "absent"], 40)).toEqual(["annual", "absent"]);
  db.close();
});

test("the pruned ranking is the full ranking of what the rare terms find", () => {
  const db = memory();
  const full = (limit: number) =>
    db
      .query<{ seq: number; score: number }, { m: string; limit: number }>(
        "SELECT rowid AS seq, bm25(chunks_fts) AS score FROM chunks_fts WHERE chunks_fts MATCH :m ORDER BY score LIMIT :limit",
      )
      .all({ m: matchOf(["annual", "lease", "zebra"]) as string, limit })
      .map((r) => ({ id: String(r.seq), score: -r.score }));
  // The 10 chunks holding "lease" or "zebra" lead the full ranking ("annual" has an IDF of
  // ~0): asking for 8 of them gets the same 8 in the same order.
  const got = keywordLeg(db, scope(8), "annual lease zebra");
  expect(got.map((h) => h.id)).toEqual(full(8).map((h) => h.id));
  // Asking for more than the rare terms find falls back to the full query: the chunks
  // holding only "annual" fill the rest, exactly as without pruning.
  expect(keywordLeg(db, scope(20), "annual lease zebra")).toEqual(full(20));
  db.close();
});

test("writes refresh the counts, on the same handle and from another connection", () => {
  const dir = mkdtempSync(join(tmpdir(), "cairn-term-df-"));
  try {
    const file = join(dir, "t.sqlite");
    const writer = new Database(file, { strict: true });
    sqliteVec.load(writer);
    writer.exec("PRAGMA journal_mode = WAL");
    corpus(writer);
    const reader = new Database(file, { readonly: true, strict: true });
    sqliteVec.load(reader);
    expect(pruneCommonTerms(reader, ["annual", "lease"], 40)).toEqual(["lease"]);
    expect(pruneCommonTerms(writer, ["annual", "lease"], 40)).toEqual(["lease"]);
    // 40 more chunks holding "lease" and not "annual": now "lease" is the common one.
    put(
      writer,
      "e",
      Array.from({ length: 40 }, (_, i) => `lease ${i}`),
    );
    expect(pruneCommonTerms(writer, ["annual", "lease"], 80)).toEqual(["annual"]);
    expect(pruneCommonTerms(reader, ["annual", "lease"], 80)).toEqual(["annual"]);
    removeDocument(writer, "e");
    expect(pruneCommonTerms(reader, ["annual", "lease"], 40)).toEqual(["lease"]);
    reader.close();
    writer.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
