/**
 * The keyword leg against the form it replaced (`rowid IN (PERMITTED)`, the list of every
 * permitted chunk): for callers who see everything, callers who see part, and filters — in
 * one over-fetch round, after growing it, and past the candidate cap (a selective filter) —
 * the leg must return exactly the same chunks with the same scores.
 */
import type { Database } from "bun:sqlite";
import { expect, test } from "bun:test";
import type { DocumentAcl } from "../../domain/documents/types.ts";
import { ftsMatchExpression } from "./fts-query.ts";
import { keywordLeg } from "./keyword-leg.ts";
import { legMeta, memoryIndex, scope } from "./leg-test-support.ts";
import { ADMITS, admitted, type LegScope } from "./permitted.ts";
import { writeDocument } from "./sqlite-search.ts";

const DIM = 4;
const WORDS = ["revenue", "margin", "cash", "debt", "growth", "apple", "lease", "tax", "the", "of"];
const OPEN: DocumentAcl = { visibility: "tenant_wide", allowed_identity_ids: [], allowed_roles: [], barrier_id: null };
const ACLS: DocumentAcl[] = [
  OPEN,
  { visibility: "deal_private", allowed_identity_ids: ["u1"], allowed_roles: [], barrier_id: null },
  { visibility: "team_only", allowed_identity_ids: [], allowed_roles: ["analyst"], barrier_id: null },
  { ...OPEN, barrier_id: "b1" },
];

function corpus(acls: (d: number) => DocumentAcl, docs = 24): Database {
  const db = memoryIndex(DIM);
  let seed = 7;
  const rnd = () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed / 0x7fffffff;
  };
  for (let d = 0; d < docs; d++) {
    const chunks = Array.from({ length: 8 }, (_, j) => ({
      chunk_index: j,
      id: `d${d}:${j}`,
      text: Array.from({ length: 12 }, () => WORDS[Math.floor(rnd() * WORDS.length)]).join(" "),
      embedding: new Float32Array([1, 0, 0, 0]),
    }));
    writeDocument(db, legMeta(d, acls(d)), chunks, DIM);
  }
  return db;
}

const seesEverything = (db: Database, s: LegScope) => admitted(db, s).everything;

/** Every permitted chunk, as the legs listed them before the single ACL pass. */
const PERMITTED = `SELECT c.seq FROM documents d JOIN chunks c ON c.doc_id = d.doc_id WHERE ${ADMITS}`;

/** The previous keyword leg, kept here as the reference. */
function reference(db: Database, s: LegScope, query: string) {
  const match = ftsMatchExpression(query);
  return db
    .query<{ seq: number; score: number }, LegScope>(
      `SELECT rowid AS seq, bm25(chunks_fts) AS score FROM chunks_fts
        WHERE chunks_fts MATCH :match AND +rowid IN (${PERMITTED}) ORDER BY score LIMIT :limit`,
    )
    .all({ ...s, match })
    .map((r) => ({ id: String(r.seq), score: -r.score }));
}

const QUERIES = ["revenue growth", "cash and debt of Apple", "tax lease margin", "the of"];

test("restricted callers and filters: the same chunks and scores as listing every permitted chunk", () => {
  // 48 documents: a doc_id filter leaves 1/48 of the chunks, past the over-fetch cap.
  const db = corpus((d) => ACLS[d % ACLS.length]!, 48);
  const scopes = [
    scope(),
    scope({ identity: "u1" }),
    scope({ roles: '["analyst"]', barriers: '["b1"]' }),
    scope({ identity: "u1", roles: '["analyst"]', barriers: '["b1"]' }),
    scope({ identity: "u1", roles: '["analyst"]', barriers: '["b1"]', doc_type: "other" }),
    scope({ identity: "u1", entity_id: "e1", limit: 3 }),
    scope({ identity: "u1", roles: '["analyst"]', barriers: '["b1"]', doc_id: "d5" }),
  ];
  let compared = 0;
  for (const s of scopes)
    for (const q of QUERIES) {
      const want = reference(db, s, q);
      expect(keywordLeg(db, s, q)).toEqual(want);
      compared += want.length;
    }
  expect(compared).toBeGreaterThan(100); // the comparisons were not all empty
  // Only the caller who crosses every rule, with no filter, takes the unrestricted path.
  expect(scopes.map((s) => seesEverything(db, s))).toEqual([false, false, false, true, false, false, false]);
  db.close();
});

test("a caller every document admits gets the same results by the unrestricted path", () => {
  const db = corpus(() => OPEN);
  expect(seesEverything(db, scope())).toBe(true);
  for (const q of QUERIES) expect(keywordLeg(db, scope(), q)).toEqual(reference(db, scope(), q));
  // One document the caller may not see turns the check back on, and it stays hidden.
  writeDocument(
    db,
    {
      doc_id: "secret",
      filename: "s.txt",
      format: "txt",
      doc_type: "other",
      entity_id: null,
      uploaded_by: "u1",
      uploaded_at: "2026-11-25T00:00:00Z",
      acl: { visibility: "deal_private", allowed_identity_ids: ["u9"], allowed_roles: [], barrier_id: null },
    },
    [{ chunk_index: 0, id: "secret:0", text: "zebra revenue", embedding: new Float32Array([1, 0, 0, 0]) }],
    DIM,
  );
  expect(seesEverything(db, scope())).toBe(false);
  expect(keywordLeg(db, scope(), "zebra")).toEqual([]);
  expect(keywordLeg(db, scope({ identity: "u9" }), "zebra")).toHaveLength(1);
  db.close();
});

test("an unknown visibility value admits nobody, so nobody looks unrestricted", () => {
  const db = corpus(() => OPEN, 2);
  db.exec("UPDATE documents SET visibility = 'private' WHERE doc_id = 'd0'");
  expect(seesEverything(db, scope({ identity: "u1", roles: '["analyst"]', barriers: '["b1"]' }))).toBe(false);
  const seqs = db.query<{ seq: number }, []>("SELECT seq FROM chunks WHERE doc_id = 'd0'").all();
  const hidden = new Set(seqs.map((r) => String(r.seq)));
  const hits = keywordLeg(db, scope(), "revenue margin cash debt growth apple lease tax");
  expect(hits.length).toBeGreaterThan(0);
  expect(hits.filter((h) => hidden.has(h.id))).toEqual([]);
  db.close();
});

test("permitted chunks that rank below many refused ones: the over-fetch grows until it finds them", () => {
  const SECRET: DocumentAcl = { ...OPEN, visibility: "deal_private", allowed_identity_ids: ["u9"] };
  const db = corpus((d) => (d < 2 ? OPEN : SECRET), 40);
  // Refused chunks are short (a high BM25 for "zebra"), the visible ones long: the first
  // round's candidates are all refused.
  db.exec(`UPDATE chunks SET text = CASE WHEN doc_id IN ('d0', 'd1')
             THEN 'zebra ' || text || ' ' || text ELSE 'zebra zebra' END`);
  for (const limit of [3, 10, 50]) {
    const s = scope({ limit });
    const got = keywordLeg(db, s, "zebra");
    expect(got).toEqual(reference(db, s, "zebra"));
    expect(got).toHaveLength(Math.min(limit, 16));
  }
  db.close();
});

test("a query of stop-words only still finds the chunks holding them", () => {
  const db = corpus(() => OPEN, 4);
  expect(keywordLeg(db, scope(), "the of").length).toBeGreaterThan(0);
  expect(keywordLeg(db, scope(), "  ?! ")).toEqual([]);
  db.close();
});
