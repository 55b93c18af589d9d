/**
 * Split searches (search-pool.ts): on two idle threads a search runs as two keyword halves
 * merged here, and must return exactly what the same search returns run whole — same chunks,
 * same order, same scores — for every caller, filter and mode; a ranked chunk that changed
 * between the parts' snapshots is never returned.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AccessContext, DocumentAcl, SearchMode } from "../../domain/documents/types.ts";
import { ACL_OPEN, chunks, meta, unitVector } from "../../test/contracts/docindex.contract.ts";
import { prng } from "../../test/prng.ts";
import { compileSearch } from "./search-request.ts";
import { SqliteDocumentIndex } from "./sqlite.ts";
import { hydrateSnapshot } from "./sqlite-search.ts";

const DIM = 8;
const WORDS = Array.from({ length: 60 }, (_, i) => `w${i.toString(36)}x`);
const t = { tenantId: crypto.randomUUID(), slug: "split" };
const dir = mkdtempSync(join(tmpdir(), "cairn-split-search-"));
// One file, read by two indexes: one runs every search whole on its own thread, the other
// splits every search it can (threshold 0 ms, two threads).
const whole = new SqliteDocumentIndex({ dataDir: dir, embeddingDim: DIM, searchThreads: 0 });
const split = new SqliteDocumentIndex({ dataDir: dir, embeddingDim: DIM, searchThreads: 2, splitKeywordMs: 0 });
const r = prng(20_261_126);
const pick = <T>(xs: readonly T[]): T => r.pick(xs);

const ACLS: DocumentAcl[] = [
  ACL_OPEN,
  { visibility: "deal_private", allowed_identity_ids: ["7"], allowed_roles: [], barrier_id: null },
  { visibility: "team_only", allowed_identity_ids: [], allowed_roles: ["analyst"], barrier_id: null },
];
const CALLERS: Partial<AccessContext>[] = [
  { identityId: "1", roles: [] },
  { identityId: "7", roles: [] },
  { identityId: "2", roles: ["analyst"] },
];

beforeAll(async () => {
  await whole.ensureNamespace(t);
  // Every chunk has a length of its own (10 + its number of words), so no two chunks tie on
  // BM25 and "the same order" is well defined.
  let n = 0;
  for (let d = 0; d < 120; d++) {
    const docId = `d${d}`;
    const texts = Array.from({ length: 3 }, () => {
      n++;
      const words = Array.from({ length: 10 + n }, () => pick(WORDS));
      // A rare word in a few chunks: queries with it find fewer than a leg wants once the
      // common words are pruned, so the parts' full-query fallback is exercised too.
      if (n % 37 === 0) words[0] = "rarezz";
      return words.join(" ");
    });
    const vectors = texts.map(() => unitVector(r, DIM));
    await whole.putDocument(
      t,
      meta(docId, { acl: ACLS[d % ACLS.length] as DocumentAcl, doc_type: d % 2 ? "cim" : "other" }),
      chunks(docId, texts, vectors),
    );
  }
});
afterAll(async () => {
  await split.close();
  await whole.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("split searches", () => {
  test("give exactly the whole search's hits, for every caller, filter and mode", async () => {
    const modes: SearchMode[] = ["bm25", "hybrid"];
    let compared = 0;
    for (let q = 0; q < 24; q++) {
      const words = Array.from({ length: 1 + (q % 4) }, () => pick(WORDS));
      const query = (q % 2 ? ["rarezz", ...words] : words).join(" ");
      const embedding = unitVector(r, DIM);
      for (const caller of CALLERS) {
        for (const mode of modes) {
          const req = {
            query,
            embedding,
            access: { tenantId: t.tenantId, barriers: [], identityId: "1", roles: [], ...caller },
            filters: q % 3 === 0 ? { doc_type: "cim" as const } : {},
            k: 10,
            mode,
          };
          const a = await whole.search(t, req);
          const b = await split.search(t, req);
          expect(b.map((h) => [h.chunk_id, h.score, h.ranks])).toEqual(a.map((h) => [h.chunk_id, h.score, h.ranks]));
          compared += a.length;
        }
      }
    }
    expect(compared).toBeGreaterThan(500);
    const stats = split.searchStats();
    // The first search of the file ran whole (it learns the file's rowids); the rest split.
    expect(stats?.whole).toBe(1);
    expect(stats?.split).toBe(24 * CALLERS.length * 2 - 1);
    expect(stats?.rerun).toBe(0);
  });

  test("hydration re-checks the ACL in its own snapshot and drops a chunk deleted since the legs ran", async () => {
    const db = (whole as unknown as { usable(t: unknown): import("bun:sqlite").Database }).usable(t);
    const caller = { tenantId: t.tenantId, identityId: "1", roles: [], barriers: [] };
    const req = compileSearch(t, { query: "x", access: caller, filters: {}, k: 10, mode: "bm25" }, DIM);
    const seqs = db
      .query<{ seq: number; doc_id: string }, []>("SELECT seq, doc_id FROM chunks ORDER BY seq LIMIT 9")
      .all();
    const ranked = seqs.map((s, i) => ({ id: String(s.seq), score: 1 - i / 10, ranks: { bm25: i + 1, dense: null } }));
    // d0 is tenant-wide, d1 private to identity 7, d2 for analysts: caller 1 sees d0 only.
    expect(hydrateSnapshot(db, req, ranked).map((h) => h.doc_id)).toEqual(["d0", "d0", "d0"]);
    await whole.deleteDocument(t, "d0");
    expect(hydrateSnapshot(db, req, ranked)).toEqual([]);
  });
});
