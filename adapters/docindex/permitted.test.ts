/**
 * The single ACL pass (permitted.ts `admitted`) against the three queries it replaced — the
 * dense leg's permitted chunk count, the keyword leg's "does any document refuse?" and its set
 * of admitting documents — for restricted, unrestricted, NULL-rule and filtered callers; and
 * the exact vector leg fed by it against the old `seq IN (PERMITTED)` form.
 */
import type { Database } from "bun:sqlite";
import { expect, test } from "bun:test";
import type { DocumentAcl } from "../../domain/documents/types.ts";
import { exactLeg } from "./dense-leg.ts";
import { legMeta, memoryIndex, scope } from "./leg-test-support.ts";
import { ADMITS, admitted, type LegScope } from "./permitted.ts";
import { writeDocument } from "./sqlite-search.ts";

const DIM = 4;
const OPEN: DocumentAcl = { visibility: "tenant_wide", allowed_identity_ids: [], allowed_roles: [], barrier_id: null };
const ACLS: DocumentAcl[] = [
  OPEN,
  { visibility: "deal_private", allowed_identity_ids: ["u1", "u3"], allowed_roles: [], barrier_id: null },
  { visibility: "team_only", allowed_identity_ids: [], allowed_roles: ["analyst", "ops"], barrier_id: null },
  { ...OPEN, barrier_id: "b1" },
  { visibility: "team_only", allowed_identity_ids: [], allowed_roles: ["analyst"], barrier_id: "b2" },
];

function corpus(acls: (d: number) => DocumentAcl, docs: number): Database {
  const db = memoryIndex(DIM);
  for (let d = 0; d < docs; d++) {
    const chunks = Array.from({ length: 1 + (d % 4) }, (_, j) => ({
      chunk_index: j,
      id: `d${d}:${j}`,
      text: `chunk ${j} of document ${d}`,
      embedding: new Float32Array([Math.cos(d + j), Math.sin(d + j), (d % 3) - 1, j / 4]),
    }));
    writeDocument(db, legMeta(d, acls(d)), chunks, DIM);
  }
  return db;
}

/** The three queries each hybrid search ran before, verbatim. */
function oldForm(db: Database, s: LegScope) {
  const { limit: _, ...acl } = s;
  const count = db
    .query<{ n: number }, LegScope>(`SELECT coalesce(sum(d.chunk_count), 0) AS n FROM documents d WHERE ${ADMITS}`)
    .get(acl)!.n;
  const refused = db
    .query<{ refused: number }, LegScope>(
      `SELECT EXISTS (SELECT 1 FROM documents d WHERE NOT coalesce((${ADMITS}), 0)) AS refused`,
    )
    .get(acl)!.refused;
  const filtered = s.doc_id != null || s.entity_id != null || s.doc_type != null;
  const docs = db
    .query<{ doc_id: string }, LegScope>(`SELECT d.doc_id FROM documents d WHERE ${ADMITS}`)
    .all(acl)
    .map((r) => r.doc_id);
  return { chunks: count, everything: !filtered && refused === 0, docs: docs.sort() };
}

function newForm(db: Database, s: LegScope) {
  const a = admitted(db, s);
  expect(JSON.parse(a.docsJson).sort()).toEqual([...a.docs].sort());
  return { chunks: a.chunks, everything: a.everything, docs: [...a.docs].sort() };
}

const OLD_DENSE = `
  SELECT seq, distance FROM chunks_vec
   WHERE embedding MATCH :vector AND k = :limit
     AND seq IN (SELECT c.seq FROM documents d JOIN chunks c ON c.doc_id = d.doc_id WHERE ${ADMITS})
   ORDER BY distance`;

function sameDense(db: Database, s: LegScope) {
  for (const v of [new Float32Array([1, 0, 0, 0]), new Float32Array([0.2, -0.5, 0.7, 0.1])]) {
    const want = db
      .query<{ seq: number; distance: number }, Record<string, string | number | null | Float32Array>>(OLD_DENSE)
      .all({ ...s, vector: v })
      .map((r) => ({ id: String(r.seq), score: 1 - r.distance }));
    expect(exactLeg(db, s, v, admitted(db, s))).toEqual(want);
  }
}

const CALLERS: [string, LegScope][] = [
  ["nobody special", scope()],
  ["deal member", scope({ identity: "u1" })],
  ["analyst behind b1", scope({ roles: '["analyst"]', barriers: '["b1"]' })],
  ["every rule crossed", scope({ identity: "u1", roles: '["ops","analyst"]', barriers: '["b1","b2"]' })],
  ["filter: doc_type", scope({ identity: "u1", roles: '["analyst"]', barriers: '["b1","b2"]', doc_type: "other" })],
  // entity_id is NULL on two documents in three: the filter evaluates to NULL there.
  ["filter: entity_id over NULLs", scope({ identity: "u3", barriers: '["b1"]', entity_id: "e1" })],
  ["filter: doc_id", scope({ identity: "u1", roles: '["analyst","ops"]', barriers: '["b1","b2"]', doc_id: "d4" })],
  // A NULL in a bound array makes `x IN (...)` NULL rather than false for non-members.
  ["NULL in roles and barriers", scope({ roles: "[null]", barriers: "[null]" })],
  ["NULL identity", scope({ identity: null, roles: '["ops"]', barriers: '["b1"]' })],
];

test("restricted, NULL-rule and filtered callers: one pass answers what the three queries did", () => {
  const db = corpus((d) => ACLS[d % ACLS.length]!, 30);
  const seen = new Set<boolean>();
  for (const [name, s] of CALLERS) {
    const want = oldForm(db, s);
    expect({ name, ...newForm(db, s) }).toEqual({ name, ...want });
    seen.add(want.everything);
    sameDense(db, s);
  }
  // Most callers see part; the one who crosses every rule, unfiltered, sees everything.
  expect(seen).toEqual(new Set([false, true]));
  expect(newForm(db, CALLERS[7]![1]).docs.length).toBeLessThan(30);
  expect(newForm(db, CALLERS[3]![1]).docs.length).toBe(30);
  db.close();
});

test("unrestricted callers: every document admitted, and the legs may skip the check", () => {
  const db = corpus(() => OPEN, 12);
  for (const s of [scope(), scope({ identity: null, roles: "[null]", barriers: "[null]" })]) {
    const got = newForm(db, s);
    expect(got).toEqual(oldForm(db, s));
    expect(got.everything).toBe(true);
    expect(got.chunks).toBe(db.query<{ n: number }, []>("SELECT count(*) AS n FROM chunks").get()!.n);
    sameDense(db, s);
  }
  // A filter is never "everything", even when it matches every document.
  const filtered = scope({ entity_id: null, doc_type: "research_note" });
  expect(newForm(db, filtered)).toEqual(oldForm(db, filtered));
  expect(newForm(db, filtered).everything).toBe(false);
  db.close();
});

test("a rule that evaluates to NULL refuses (fail closed), and an unknown visibility admits nobody", () => {
  const db = corpus(() => OPEN, 6);
  // Barrier b1 against a caller whose barrier list holds only NULL: `'b1' IN (NULL)` is NULL.
  db.exec("UPDATE documents SET barrier_id = 'b1' WHERE doc_id = 'd0'");
  db.exec("UPDATE documents SET visibility = 'private' WHERE doc_id = 'd1'");
  const s = scope({ barriers: "[null]" });
  const got = newForm(db, s);
  expect(got).toEqual(oldForm(db, s));
  expect(got.everything).toBe(false);
  expect(got.docs).toEqual(["d2", "d3", "d4", "d5"]);
  sameDense(db, s);
  db.close();
});
