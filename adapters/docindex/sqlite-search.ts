/**
 * Reads and writes of one tenant's index file (schema.ts), as plain functions over a
 * Database so that the same code runs on the service thread (writes) and in the search
 * workers (reads).
 *
 * The ACL pre-filter is stated once in permitted.ts (`ADMITS`, over a document) and evaluated
 * once per search (`admitted`: one scan of `documents`). Both legs apply its answer *inside*
 * the engine — each checks its candidates' documents against the admitted set (keyword-leg.ts,
 * dense-leg.ts) — so each leg returns its best N among permitted chunks, never the best N
 * overall filtered afterwards.
 * The caller's roles and barriers are bound as JSON arrays (`json_each(?)`), so the
 * statement text never depends on the caller.
 */
import type { Database } from "bun:sqlite";
import { candidatesPerLeg, type Fused, type LegHit, rankForMode } from "../../domain/documents/fusion.ts";
import type { DocType, DocumentMeta, IndexedChunk, SearchHit, Visibility } from "../../domain/documents/types.ts";
import { AppError } from "../../domain/errors.ts";
import { type AnnIndex, boundLoggedVectors, logHead } from "./ann-index.ts";
import { denseLeg } from "./dense-leg.ts";
import type { SeqRange } from "./fts5-reads.ts";
import type { KeywordIndex } from "./keyword-index.ts";
import { ALL_SEQS, combineKeywordParts, type KeywordPart, keywordPart } from "./keyword-leg.ts";
import { type Admitted, admitted, type LegScope } from "./permitted.ts";
import { type CompiledSearch, checkChunks } from "./search-request.ts";

const HYDRATE_SQL = `
  SELECT c.seq, c.id, c.doc_id, c.chunk_index, c.text, json_extract(c.metadata, '$.page') AS page,
         d.filename, d.format, d.doc_type, d.entity_id, d.uploaded_by, d.uploaded_at,
         d.visibility, d.allowed_identity_ids, d.allowed_roles, d.barrier_id
    FROM chunks c JOIN documents d ON d.doc_id = c.doc_id
   WHERE c.seq IN (SELECT value FROM json_each(:seqs))`;

interface DocRow {
  doc_id: string;
  filename: string;
  format: string;
  doc_type: string;
  entity_id: string | null;
  uploaded_by: string;
  uploaded_at: string;
  visibility: string;
  allowed_identity_ids: string;
  allowed_roles: string;
  barrier_id: string | null;
}

interface HitRow extends DocRow {
  seq: number;
  id: string;
  chunk_index: number;
  text: string;
  page: number | null;
}

function toMeta(r: DocRow): DocumentMeta {
  return {
    doc_id: r.doc_id,
    filename: r.filename,
    format: r.format,
    doc_type: r.doc_type as DocType,
    entity_id: r.entity_id,
    uploaded_by: r.uploaded_by,
    uploaded_at: r.uploaded_at,
    acl: {
      visibility: r.visibility as Visibility,
      allowed_identity_ids: JSON.parse(r.allowed_identity_ids) as string[],
      allowed_roles: JSON.parse(r.allowed_roles) as string[],
      barrier_id: r.barrier_id,
    },
  };
}

/** Replaces every chunk of the document in one IMMEDIATE transaction (readers see old or new). */
export function writeDocument(db: Database, doc: DocumentMeta, chunks: IndexedChunk[], dim: number): void {
  checkChunks(doc, chunks, dim);
  const now = new Date().toISOString();
  const acl = doc.acl;
  db.transaction(() => {
    const logBefore = logHead(db);
    db.query("DELETE FROM chunks WHERE doc_id = ?").run(doc.doc_id);
    db.query(
      `INSERT INTO documents (doc_id, filename, format, doc_type, entity_id, uploaded_by, uploaded_at, visibility,
                              allowed_identity_ids, allowed_roles, barrier_id, chunk_count)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (doc_id) DO UPDATE SET filename = excluded.filename, format = excluded.format,
         doc_type = excluded.doc_type, entity_id = excluded.entity_id, uploaded_by = excluded.uploaded_by,
         uploaded_at = excluded.uploaded_at, visibility = excluded.visibility,
         allowed_identity_ids = excluded.allowed_identity_ids, allowed_roles = excluded.allowed_roles,
         barrier_id = excluded.barrier_id, chunk_count = excluded.chunk_count`,
    ).run(
      doc.doc_id,
      doc.filename,
      doc.format,
      doc.doc_type,
      doc.entity_id,
      doc.uploaded_by,
      doc.uploaded_at,
      acl.visibility,
      JSON.stringify(acl.allowed_identity_ids),
      JSON.stringify(acl.allowed_roles),
      acl.barrier_id,
      chunks.length,
    );
    // The ACL columns on chunks mirror the document's (schema v1 readers and ad-hoc queries);
    // search evaluates the ACL on `documents`.
    const insert = db.query<{ seq: number }, (string | number | null)[]>(
      `INSERT INTO chunks (id, doc_id, chunk_index, text, metadata, visibility, allowed_identity_ids,
                           allowed_roles, barrier_id, entity_id, doc_type, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING seq`,
    );
    const vec = db.query("INSERT INTO chunks_vec (seq, embedding) VALUES (?, ?)");
    // The insert trigger has just logged this chunk for the HNSW holders (ann-index.ts); the
    // vector rides along, since reading it back out of vec0 costs ~1 ms a row.
    const logVec = db.query("UPDATE ann_log SET vec = ? WHERE id = (SELECT max(id) FROM ann_log) AND seq = ?");
    for (const c of chunks) {
      const row = insert.get(
        c.id,
        doc.doc_id,
        c.chunk_index,
        c.text,
        JSON.stringify(c.page !== undefined ? { page: c.page } : {}),
        acl.visibility,
        JSON.stringify(acl.allowed_identity_ids),
        JSON.stringify(acl.allowed_roles),
        acl.barrier_id,
        doc.entity_id,
        doc.doc_type,
        now,
      );
      if (!row) throw new AppError("internal", `chunk ${c.id}: insert returned no row`);
      vec.run(row.seq, c.embedding);
      logVec.run(c.embedding, row.seq);
    }
    boundLoggedVectors(db, logBefore);
  }).immediate();
}

export function removeDocument(db: Database, docId: string): boolean {
  return db
    .transaction(() => {
      db.query("DELETE FROM chunks WHERE doc_id = ?").run(docId);
      return db.query("DELETE FROM documents WHERE doc_id = ?").run(docId).changes > 0;
    })
    .immediate();
}

export function readDocument(db: Database, docId: string): (DocumentMeta & { chunks: number }) | null {
  const r = db
    .query<DocRow & { chunks: number }, [string]>(
      `SELECT d.*, (SELECT count(*) FROM chunks c WHERE c.doc_id = d.doc_id) AS chunks
         FROM documents d WHERE d.doc_id = ?`,
    )
    .get(docId);
  return r ? { ...toMeta(r), chunks: r.chunks } : null;
}

/**
 * The tenant's side indexes usable in the caller's read transaction, each called only when the
 * search has that leg: its HNSW index, or null for exact vector search (ann-registry.ts); its
 * keyword index, or null for FTS5 (keyword-registry.ts). `chunks`: the tenant's chunk count
 * (the search's ACL pass has it).
 */
export interface IndexLookup {
  ann?: (db: Database, chunks: number) => AnnIndex | null;
  keyword?: (db: Database, chunks: number) => KeywordIndex | null;
}

/** A search's answer and what the search threads learn from it (search-pool.ts). */
export interface SearchOutcome {
  hits: SearchHit[];
  /** Milliseconds the keyword leg took (0 without one). */
  keywordMs: number;
  /** The snapshot's lowest and highest chunk rowid; null when it has no chunks. */
  seqs: SeqRange | null;
}

/** The legs a part ran: its keyword part over `seqs`, and the vector leg if asked. */
interface Legs {
  keyword: KeywordPart | null;
  dense: LegHit[];
  keywordMs: number;
}

/** One part of a split search, with the snapshot's rowid bounds (search-pool.ts). */
export interface LegsOutcome extends Legs {
  seqs: SeqRange | null;
}

// Two subqueries: SQLite reads a lone min() or max() of the rowid off the B-tree's ends, but
// both in one SELECT scan the table.
const SEQ_BOUNDS_SQL = "SELECT (SELECT min(seq) FROM chunks) AS lo, (SELECT max(seq) FROM chunks) AS hi";

function scopeOf(req: CompiledSearch): LegScope {
  return {
    identity: req.acl.identityId,
    roles: JSON.stringify(req.acl.roles),
    barriers: JSON.stringify(req.acl.barriers),
    doc_id: req.filters.doc_id ?? null,
    entity_id: req.filters.entity_id ?? null,
    doc_type: req.filters.doc_type ?? null,
    limit: candidatesPerLeg(req.k),
  };
}

/** The rowid bounds a search thread learns, for a search that can be split (one with a keyword leg). */
function seqBounds(db: Database, req: CompiledSearch): SeqRange | null {
  if (req.mode === "dense") return null;
  const r = db.query<{ lo: number | null; hi: number | null }, []>(SEQ_BOUNDS_SQL).get();
  return r?.lo != null && r.hi != null ? { lo: r.lo, hi: r.hi } : null;
}

/** Which legs a search thread runs: the keyword leg over `seqs`, the vector leg if `dense`. */
export interface LegsPart {
  seqs: SeqRange;
  dense: boolean;
}

/** The legs of `req` a part asks for. */
function legsDb(db: Database, req: CompiledSearch, ann: IndexLookup | undefined, part: LegsPart): Legs {
  const { seqs, dense } = part;
  const scope = scopeOf(req);
  const acl = admitted(db, scope); // the one ACL pass both legs share
  let keyword: KeywordPart | null = null;
  let keywordMs = 0;
  if (req.mode !== "dense") {
    const t0 = performance.now();
    keyword = keywordPart(db, scope, req.query, acl, seqs, ann?.keyword?.(db, acl.total) ?? null);
    keywordMs = performance.now() - t0;
  }
  const denseHits =
    dense && req.mode !== "bm25" && req.embedding
      ? denseLeg(db, scope, req.embedding, ann?.ann?.(db, acl.total), acl)
      : [];
  return { keyword, dense: denseHits, keywordMs };
}

/** The final ranking of a search from its legs (fusion for hybrid). */
export function rankLegs(req: CompiledSearch, bm25: LegHit[], dense: LegHit[]): Fused[] {
  return rankForMode(req.mode, bm25, dense, req.k, req.weights ? { weights: req.weights } : {});
}

/**
 * The ranked chunks with their text and document, in rank order. With `recheck` (the ACL pass
 * of this snapshot), a chunk whose document the caller may no longer see is left out.
 */
export function hydrateDb(db: Database, ranked: Fused[], recheck?: Admitted): SearchHit[] {
  if (ranked.length === 0) return [];
  const rows = new Map(
    db
      .query<HitRow, Record<string, string>>(HYDRATE_SQL)
      .all({ seqs: JSON.stringify(ranked.map((r) => Number(r.id))) })
      .map((r) => [String(r.seq), r]),
  );
  const hits: SearchHit[] = [];
  for (const f of ranked) {
    const r = rows.get(f.id);
    if (!r) continue; // deleted since the legs ran (only a split search reads more than one snapshot)
    if (recheck && !recheck.everything && !recheck.docs.has(r.doc_id)) continue;
    hits.push({
      chunk_id: r.id,
      doc_id: r.doc_id,
      chunk_index: r.chunk_index,
      text: r.text,
      page: r.page ?? null,
      score: f.score,
      ranks: f.ranks,
      document: toMeta(r),
    });
  }
  return hits;
}

/**
 * Hydrates a split search's ranking in a snapshot of its own, with the caller's ACL evaluated
 * again there: the parts ran in their own snapshots, so a document deleted or closed to the
 * caller since then is left out here (the pool then runs the search whole).
 */
export function hydrateSnapshot(db: Database, req: CompiledSearch, ranked: Fused[]): SearchHit[] {
  return db.transaction(() => hydrateDb(db, ranked, admitted(db, scopeOf(req)))).deferred();
}

/** The top `k` permitted chunks; see the module comment for how the ACL is applied. */
export function searchDb(db: Database, req: CompiledSearch, ann?: IndexLookup): SearchHit[] {
  return wholeDb(db, req, ann).hits;
}

function wholeDb(db: Database, req: CompiledSearch, ann?: IndexLookup): { hits: SearchHit[]; keywordMs: number } {
  const legs = legsDb(db, req, ann, { seqs: ALL_SEQS, dense: true });
  const bm25 = legs.keyword ? combineKeywordParts([legs.keyword], candidatesPerLeg(req.k)) : [];
  return { hits: hydrateDb(db, rankLegs(req, bm25, legs.dense)), keywordMs: legs.keywordMs };
}

/** Runs `searchDb` in one read transaction, so both legs and the hydration see one snapshot. */
export function searchSnapshot(db: Database, req: CompiledSearch, ann?: IndexLookup): SearchHit[] {
  return db.transaction(() => searchDb(db, req, ann)).deferred();
}

/** `searchSnapshot` with what the search threads learn from it (keyword time, rowid bounds). */
export function measuredSearchSnapshot(db: Database, req: CompiledSearch, ann?: IndexLookup): SearchOutcome {
  return db.transaction(() => ({ ...wholeDb(db, req, ann), seqs: seqBounds(db, req) })).deferred();
}

/** One part of a split search in one read transaction. */
export function legsSnapshot(
  db: Database,
  req: CompiledSearch,
  ann: IndexLookup | undefined,
  part: LegsPart,
): LegsOutcome {
  return db.transaction(() => ({ ...legsDb(db, req, ann, part), seqs: seqBounds(db, req) })).deferred();
}
