/**
 * Document-frequency pruning (term-df.ts) and the keyword leg around it: a term most chunks
 * hold is dropped next to a rarer one, the ranking of what the rare terms find does not move,
 * chunks holding only common terms still come back when nothing better is there, and a commit
 * (by this handle or another) empties the kept counts — on the wal-index watcher path that WAL
 * handles take, whose header this connection's own commits move too.
 */
import { Database } from "bun:sqlite";
import { expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as sqliteVec from "sqlite-vec";
import type { DocumentMeta } from "../../domain/documents/types.ts";
import { WalHeader } from "../sql/wal-watch.ts";
import { matchOf } from "./fts-query.ts";
import { keywordLeg } from "./keyword-leg.ts";
import type { LegScope } from "./permitted.ts";
import { schemaSql } from "./schema.ts";
import { removeDocument, writeDocument } from "./sqlite-search.ts";
import { commitWatcher, keptCounts, MAX_DF_FRACTION, pruneCommonTerms } from "./term-df.ts";

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

/** An in-memory index filled by `fill` (the 40-chunk corpus by default). */
function memory(fill: (db: Database) => void = corpus): Database {
  const db = new Database(":memory:", { strict: true });
  sqliteVec.load(db);
  fill(db);
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

test("the cut sits between a fifth and two fifths of the chunks", () => {
  // 20 chunks: "revenue" in 8 (40%), "segment" in 4 (20%), "zebra" in 1.
  const db = memory((d) => {
    d.exec(schemaSql(DIM));
    put(
      d,
      "r",
      Array.from({ length: 20 }, (_, i) =>
        [i < 8 ? "revenue" : "", i % 5 === 1 ? "segment" : "", i === 9 ? "zebra" : "", `filler ${i}`].join(" "),
      ),
    );
  });
  expect(MAX_DF_FRACTION).toBeGreaterThan(0.2);
  expect(MAX_DF_FRACTION).toBeLessThan(0.4);
  expect(pruneCommonTerms(db, ["revenue", "segment", "zebra"], 20)).toEqual(["segment", "zebra"]);
  expect(pruneCommonTerms(db, ["segment", "zebra"], 20)).toEqual(["segment", "zebra"]);
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

/** A WAL file holding the corpus, its writer and a read-only reader (as the search threads open it). */
function walPair(run: (file: string, writer: Database, reader: Database) => void): void {
  const dir = mkdtempSync(join(tmpdir(), "cairn-term-df-"));
  try {
    const file = join(dir, "t.sqlite");
    const writer = new Database(file, { strict: true });
    sqliteVec.load(writer);
    writer.exec("PRAGMA journal_mode = WAL");
    corpus(writer);
    const reader = new Database(file, { readonly: true, strict: true });
    sqliteVec.load(reader);
    try {
      run(file, writer, reader);
    } finally {
      reader.close();
      writer.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const TERMS = ["annual", "lease"];
/** Two calls: the first after a change only uses its counts (module comment), the second keeps them. */
function settle(db: Database, total: number): string[] {
  pruneCommonTerms(db, TERMS, total);
  return pruneCommonTerms(db, TERMS, total);
}

test("WAL handles take the watcher path; the header moves on this connection's own commits", () => {
  const memory = new Database(":memory:");
  expect(commitWatcher(memory)).toBeNull(); // no wal-index: the statement keys the cache
  memory.close();
  walPair((file, writer, reader) => {
    expect(commitWatcher(writer)).not.toBeNull();
    expect(commitWatcher(reader)).not.toBeNull();
    // total_changes() covered this connection's writes; the header must too. Only the writer
    // commits here, so nothing but its own commits can move the header.
    const header = WalHeader.open(file, () => true);
    if (!header) throw new Error("a WAL file must have a readable wal-index");
    const watch = header.watcher();
    expect(watch.changed()).toBe(true); // first call
    expect(watch.changed()).toBe(false);
    put(writer, "own", ["one more chunk"]);
    expect(watch.changed()).toBe(true);
    expect(watch.changed()).toBe(false);
    removeDocument(writer, "own");
    expect(watch.changed()).toBe(true);
  });
});

test("on the watcher path a commit by another connection, or by this one, empties the kept counts", () => {
  walPair((_file, writer, reader) => {
    for (const db of [reader, writer]) {
      expect(settle(db, 40)).toEqual(["lease"]);
      expect(keptCounts(db)?.get("lease")).toBe(8);
    }
    // 60 more chunks holding "lease" and not "annual": now "lease" is the common one (68 of
    // 100) and "annual" (30) is under the cut. Kept counts (annual capped, lease 8) would keep
    // both terms at 100 chunks; fresh ones drop lease.
    put(
      writer,
      "e",
      Array.from({ length: 60 }, (_, i) => `lease ${i}`),
    );
    expect(pruneCommonTerms(reader, TERMS, 100)).toEqual(["annual"]); // another connection's commit
    expect(pruneCommonTerms(writer, TERMS, 100)).toEqual(["annual"]); // its own commit
    for (const db of [reader, writer]) {
      expect(settle(db, 100)).toEqual(["annual"]);
      expect(keptCounts(db)?.get("lease")).toBe(Math.floor(MAX_DF_FRACTION * 100) + 1); // capped at the threshold
    }
    removeDocument(writer, "e");
    expect(pruneCommonTerms(writer, TERMS, 40)).toEqual(["lease"]);
    expect(pruneCommonTerms(reader, TERMS, 40)).toEqual(["lease"]);
  });
});

test("counts taken in a snapshot older than the commit just noticed are not kept", () => {
  walPair((_file, writer, reader) => {
    expect(settle(reader, 40)).toEqual(["lease"]);
    // A search's read transaction begins at its ACL pass, before the keyword leg prunes.
    reader.exec("BEGIN");
    reader.query("SELECT count(*) FROM chunks").get();
    put(
      writer,
      "e",
      Array.from({ length: 60 }, (_, i) => `lease ${i}`),
    );
    // The watcher reports the commit; the snapshot still holds the old counts, and answers by them.
    expect(pruneCommonTerms(reader, TERMS, 40)).toEqual(["lease"]);
    reader.exec("COMMIT");
    expect(keptCounts(reader)).toBeUndefined();
    // Kept, those old counts would answer ["annual", "lease"] here, with no commit left to clear them.
    expect(pruneCommonTerms(reader, TERMS, 100)).toEqual(["annual"]);
  });
});
