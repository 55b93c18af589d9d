/**
 * The HNSW vector leg of the embedded index (ann-index.ts, dense-leg.ts): deleted chunks never
 * come back (also after a restart, from the saved file), a corrupt, rotten or missing saved index
 * is rebuilt and answers the same, recall@10 against exact search, a selective ACL answered by
 * the exact fallback, and a large tenant answered exactly while its index builds.
 * The contract suite (test/contracts/docindex.test.ts) also runs with the ANN forced on.
 */
import { Database } from "bun:sqlite";
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as sqliteVec from "sqlite-vec";
import type { AccessContext, DocumentAcl, DocumentMeta, IndexedChunk } from "../../domain/documents/types.ts";
import { type Prng, prng } from "../../test/prng.ts";
import { AnnIndex, annFiles, boundLoggedVectors, sidecarPath } from "./ann-index.ts";
import { annRecallAt10 } from "./ann-recall.ts";
import { AnnRegistry } from "./ann-registry.ts";
import { scrubsSettled } from "./generation-check.ts";
import { rewriteLater, rot, settle, stampFor } from "./leg-test-support.ts";
import { SqliteDocumentIndex } from "./sqlite.ts";

const DIM = 768;
const root = mkdtempSync(join(tmpdir(), "cairn-ann-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const OPEN: DocumentAcl = { visibility: "tenant_wide", allowed_identity_ids: [], allowed_roles: [], barrier_id: null };

function normalise(v: Float32Array): Float32Array {
  let n = 0;
  for (const x of v) n += x * x;
  n = Math.sqrt(n) || 1;
  return v.map((x) => x / n);
}

/**
 * Vectors shaped like text embeddings: clusters in a low-dimensional latent space, projected
 * to 768-d with noise (uniformly random 768-d vectors have no neighbourhoods to recall).
 */
function embedder(r: Prng, latent = 16, clusters = 40) {
  const gauss = () => {
    const u = Math.max(r.next(), 1e-12);
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * r.next());
  };
  const proj = Array.from({ length: latent }, () => Float32Array.from({ length: DIM }, gauss));
  const centres = Array.from({ length: clusters }, () => Array.from({ length: latent }, () => 3 * gauss()));
  return () => {
    const c = centres[r.int(clusters)] as number[];
    const v = new Float32Array(DIM).map(() => 0.3 * gauss());
    for (let l = 0; l < latent; l++) {
      const z = (c[l] as number) + gauss();
      const p = proj[l] as Float32Array;
      for (let j = 0; j < DIM; j++) v[j] = (v[j] as number) + z * (p[j] as number);
    }
    return normalise(v);
  };
}

function randomUnit(r: Prng): Float32Array {
  return normalise(new Float32Array(DIM).map(() => r.next() - 0.5));
}

const meta = (docId: string, acl: DocumentAcl = OPEN): DocumentMeta => ({
  doc_id: docId,
  filename: `${docId}.txt`,
  format: "txt",
  doc_type: "other",
  entity_id: null,
  uploaded_by: "1",
  uploaded_at: "2026-01-01T00:00:00.000Z",
  acl,
});

const chunksOf = (docId: string, vectors: Float32Array[]): IndexedChunk[] =>
  vectors.map((embedding, i) => ({ chunk_index: i, text: `passage ${i}`, id: `${docId}:${i}`, embedding }));

const tenant = () => ({ tenantId: crypto.randomUUID(), slug: "ann" });

function dense(idx: SqliteDocumentIndex, t: { tenantId: string }, embedding: Float32Array, k: number, who = {}) {
  const access: AccessContext = { tenantId: t.tenantId, identityId: "1", roles: [], barriers: [], ...who };
  return idx.search(t as never, { query: "", embedding, access, filters: {}, k, mode: "dense" });
}

/** The saved index, as a restarted thread would load it (with the log replayed). */
function loadSaved(file: string): AnnIndex | null {
  const db = new Database(file, { readonly: true, strict: true });
  try {
    sqliteVec.load(db);
    return db.transaction(() => AnnIndex.load(db, file, DIM)).deferred();
  } finally {
    db.close();
  }
}

describe("HNSW vector leg", () => {
  test("a deleted document's chunks never come back from the ANN index, also after a restart", async () => {
    const dir = join(root, "delete");
    const r = prng(7);
    const t = tenant();
    const make = () => new SqliteDocumentIndex({ dataDir: dir, searchThreads: 1, ann: { minChunks: 0 } });
    let idx = make();
    await idx.ensureNamespace(t);
    const file = idx.pathOf(t);
    const bVecs = Array.from({ length: 30 }, () => randomUnit(r));
    const aVecs = Array.from({ length: 30 }, () => randomUnit(r));
    await idx.putDocument(t, meta("B"), chunksOf("B", bVecs));
    await idx.putDocument(t, meta("A"), chunksOf("A", aVecs)); // A holds the highest seqs
    expect((await dense(idx, t, aVecs[3] as Float32Array, 1))[0]?.chunk_id).toBe("A:3");
    expect(existsSync(sidecarPath(file))).toBe(true); // built on the first search and saved
    await idx.deleteDocument(t, "A");
    // C reuses A's seqs (INTEGER PRIMARY KEY without AUTOINCREMENT): the ANN must hold C's vectors under them.
    const cVecs = Array.from({ length: 30 }, () => randomUnit(r));
    await idx.putDocument(t, meta("C"), chunksOf("C", cVecs));
    const check = async (label: string) => {
      for (const v of aVecs.slice(0, 5)) {
        const hits = await dense(idx, t, v, 60);
        expect({ label, a: hits.filter((h) => h.doc_id === "A").length }).toEqual({ label, a: 0 });
        expect(hits.length).toBe(60);
      }
      expect((await dense(idx, t, cVecs[3] as Float32Array, 1))[0]?.chunk_id).toBe("C:3");
      // The index itself, loaded from disk with the log replayed: A's vectors are gone.
      const saved = loadSaved(file);
      expect(saved).not.toBeNull();
      const db = new Database(file, { readonly: true });
      const idOf = (seq: number) =>
        db.query<{ id: string }, [number]>("SELECT id FROM chunks WHERE seq = ?").get(seq)?.id;
      // Nothing in the index is A's vector (its own would be at distance ≈ 0; others are ~orthogonal).
      for (const v of aVecs) expect((saved as AnnIndex).scored(v, 1)[0]?.distance).toBeGreaterThan(0.5);
      for (const [i, v] of cVecs.entries()) expect(idOf((saved as AnnIndex).search(v, 1)[0] ?? -1)).toBe(`C:${i}`);
      db.close();
    };
    await check("before restart");
    await idx.close();
    expect(annFiles(file).some((f) => f.endsWith(".usearch"))).toBe(true);
    idx = make(); // a new adapter and a new search thread, loading the saved file
    await check("after restart");
    await idx.close();
  });

  test("threads view the saved generation; changes go to a delta until a builder writes the next generation", async () => {
    const dir = join(root, "compact");
    const r = prng(23);
    const t = tenant();
    const make = () =>
      new SqliteDocumentIndex({ dataDir: dir, searchThreads: 0, ann: { minChunks: 0, compactAt: 40 } });
    let idx = make();
    await idx.ensureNamespace(t);
    const file = idx.pathOf(t);
    const vecs = Array.from({ length: 4 }, () => Array.from({ length: 30 }, () => randomUnit(r)));
    for (const [d, vs] of vecs.entries()) await idx.putDocument(t, meta(`d${d}`), chunksOf(`d${d}`, vs));
    await dense(idx, t, randomUnit(r), 1); // built inline and saved
    await idx.close();
    const gen = () => JSON.parse(readFileSync(sidecarPath(file), "utf8")).gen as string;
    const first = gen();
    const viewed = loadSaved(file) as AnnIndex;
    expect(viewed.viewed).toBe(true);
    expect(viewed.pending).toBe(0);
    expect(viewed.superseded()).toBe(false);
    // Checked once, stamped: other threads and processes do not hash the file again.
    expect(existsSync(`${file}.ann-${first}.usearch.ok`)).toBe(true);

    idx = make(); // its search thread views the saved generation
    expect((await dense(idx, t, vecs[1]?.[4] as Float32Array, 1))[0]?.chunk_id).toBe("d1:4");
    // 30 changes: below compactAt, they live in the delta; the generation is unchanged.
    await idx.deleteDocument(t, "d0");
    const e = Array.from({ length: 30 }, () => randomUnit(r));
    await idx.putDocument(t, meta("e"), chunksOf("e", e));
    expect((await dense(idx, t, e[7] as Float32Array, 1))[0]?.chunk_id).toBe("e:7");
    expect((await dense(idx, t, vecs[0]?.[2] as Float32Array, 5)).some((h) => h.doc_id === "d0")).toBe(false);
    expect(gen()).toBe(first);
    const mid = loadSaved(file) as AnnIndex;
    expect(mid.pending).toBe(60); // 30 deletes + 30 adds replayed into its delta
    // Another search thread's registry, holding a view of the first generation.
    const other = new AnnRegistry();
    const heldByOther = () => {
      const db = new Database(file, { readonly: true, strict: true });
      try {
        sqliteVec.load(db);
        const opts = { minChunks: 0, syncBuildMax: 0, compactAt: 1e9 };
        return db.transaction(() => other.get(db, file, DIM, opts)).deferred() as AnnIndex;
      } finally {
        db.close();
      }
    };
    const otherBefore = heldByOther();
    expect(heldByOther()).toBe(otherBefore); // held, caught up in place
    for (const v of vecs[0] ?? []) expect(mid.scored(v, 1)[0]?.distance).toBeGreaterThan(0.5);
    expect(mid.scored(e[7] as Float32Array, 1)[0]?.distance).toBeLessThan(0.01);

    // Past compactAt: the next search hands the delta to a builder thread, which writes the next
    // generation; searches meanwhile answer from the view and the delta.
    const deadline = Date.now() + 60_000;
    while (gen() === first && Date.now() < deadline) {
      expect((await dense(idx, t, e[7] as Float32Array, 1))[0]?.chunk_id).toBe("e:7");
      await Bun.sleep(50);
    }
    expect(gen()).not.toBe(first);
    // The old generation is removed with its digest stamp; the new one is stamped once checked.
    expect(annFiles(file).filter((f) => f.endsWith(".usearch")).length).toBe(1);
    expect(annFiles(file).filter((f) => f.endsWith(".usearch.ok")).length).toBeLessThanOrEqual(1);
    // The new generation itself holds the changes: nothing to replay, d0 gone, e in.
    const next = loadSaved(file) as AnnIndex;
    expect(next.pending).toBe(0);
    expect(next.size).toBe(120);
    for (const v of vecs[0] ?? []) expect(next.scored(v, 1)[0]?.distance).toBeGreaterThan(0.5);
    expect(next.scored(e[7] as Float32Array, 1)[0]?.distance).toBeLessThan(0.01);
    // The view taken before the compaction still answers (the unlinked file stays mapped), and
    // knows it is superseded: any thread holding it reopens on its next search.
    expect(viewed.scored(vecs[1]?.[4] as Float32Array, 1)[0]?.distance).toBeLessThan(0.01);
    expect(viewed.superseded()).toBe(true);
    expect(mid.superseded()).toBe(true);
    expect(next.superseded()).toBe(false);
    // The other thread reopens on its next search: the new generation, nothing left in a delta.
    const otherAfter = heldByOther();
    expect(otherAfter).not.toBe(otherBefore);
    expect(otherAfter.pending).toBe(0);
    expect(otherAfter.superseded()).toBe(false);
    other.flush();
    await Bun.sleep(50); // after the builder says "done" the thread views the new generation; right either way
    expect((await dense(idx, t, e[7] as Float32Array, 1))[0]?.chunk_id).toBe("e:7");
    expect((await dense(idx, t, vecs[3]?.[9] as Float32Array, 1))[0]?.chunk_id).toBe("d3:9");
    await idx.close();
  });

  test("a corrupt or missing saved index is rebuilt and answers the same", async () => {
    const dir = join(root, "corrupt");
    const r = prng(11);
    const t = tenant();
    const make = () => new SqliteDocumentIndex({ dataDir: dir, searchThreads: 0, ann: { minChunks: 0 } });
    let idx = make();
    await idx.ensureNamespace(t);
    const file = idx.pathOf(t);
    const vecs = Array.from({ length: 300 }, () => randomUnit(r));
    for (let d = 0; d < 10; d++)
      await idx.putDocument(t, meta(`d${d}`), chunksOf(`d${d}`, vecs.slice(d * 30, d * 30 + 30)));
    const queries = Array.from({ length: 5 }, () => randomUnit(r));
    const answer = async () => {
      const out: string[][] = [];
      for (const q of queries) out.push((await dense(idx, t, q, 10)).map((h) => h.chunk_id));
      return out;
    };
    const before = await answer();
    await idx.close();
    const gen = () => JSON.parse(readFileSync(sidecarPath(file), "utf8")).gen as string;
    const first = gen();
    const usearchFile = annFiles(file).find((f) => f.endsWith(".usearch")) as string;
    rewriteLater(usearchFile, Buffer.alloc(readFileSync(usearchFile).length, 7)); // same size, garbage
    idx = make();
    expect(await answer()).toEqual(before);
    expect(gen()).not.toBe(first); // rebuilt and saved as a new generation
    await idx.close();
    for (const f of annFiles(file)) rmSync(f);
    idx = make();
    expect(await answer()).toEqual(before);
    expect(existsSync(sidecarPath(file))).toBe(true);
    await idx.close();
    // Bit rot behind a stamp an earlier run left (size, time, inode kept): searched on the stamp's
    // word, found by the background scrub, rebuilt by the next search (generation-check.ts).
    const third = gen();
    const rotten = annFiles(file).find((f) => f.endsWith(".usearch")) as string;
    settle(rotten);
    const digest = JSON.parse(readFileSync(sidecarPath(file), "utf8")).digest;
    writeFileSync(`${rotten}.ok`, stampFor(rotten, digest, 1_000));
    rot(rotten, 1000);
    idx = make();
    await answer();
    await scrubsSettled();
    expect(await answer()).toEqual(before);
    expect(gen()).not.toBe(third);
    await idx.close();
  });

  describe("on 5,000 embedding-like vectors", () => {
    const dir = join(root, "recall");
    const r = prng(20261125);
    const t = tenant();
    const idx = new SqliteDocumentIndex({ dataDir: dir, searchThreads: 0, ann: { minChunks: 0 } });
    const embed = embedder(r);
    // No tenant-wide documents: the selective caller below sees the 20 `few` chunks only.
    const analysts: DocumentAcl = { ...OPEN, visibility: "team_only", allowed_roles: ["analyst"] };
    const analystsAndOps: DocumentAcl = { ...analysts, allowed_roles: ["analyst", "ops"] };
    const few: Float32Array[] = Array.from({ length: 20 }, () => randomUnit(r));

    test("recall@10 of the ANN leg against exact search is at least 0.95, with and without an ACL", async () => {
      await idx.ensureNamespace(t);
      for (let d = 0; d < 50; d++) {
        const vs = Array.from({ length: 100 }, embed);
        // Every other document is hidden from ops: the filtered search must keep its recall.
        await idx.putDocument(t, meta(`d${d}`, d % 2 ? analysts : analystsAndOps), chunksOf(`d${d}`, vs));
      }
      await idx.putDocument(
        t,
        meta("few", { ...OPEN, visibility: "deal_private", allowed_identity_ids: ["77"] }),
        chunksOf("few", few),
      );
      const queries = Array.from({ length: 25 }, embed);
      const all = annRecallAt10(idx.pathOf(t), DIM, queries, { identity: "1", roles: ["analyst"] });
      expect(all.size).toBe(5020);
      expect(all.recallAt10).toBeGreaterThanOrEqual(0.95);
      const half = annRecallAt10(idx.pathOf(t), DIM, queries, { identity: "1", roles: ["ops"] });
      expect(half.loadMs).not.toBeNull(); // the first call saved the index it built
      expect(half.recallAt10).toBeGreaterThanOrEqual(0.95);
    }, 60_000); // 5,000 writes and an HNSW build: 11 s seen on a busy machine, past the 5 s default

    test("a selective ACL: permitted chunks far from the query are found (exact fallback), k whenever k exist", async () => {
      const q = embed();
      const exact = few
        .map((v, i) => ({ id: `few:${i}`, d: v.reduce((s, x, j) => s + x * (q[j] as number), 0) }))
        .sort((a, b) => b.d - a.d)
        .map((x) => x.id);
      const hits = await dense(idx, t, q, 5, { identityId: "77" });
      expect(hits.map((h) => h.chunk_id)).toEqual(exact.slice(0, 5));
      const more = await dense(idx, t, q, 25, { identityId: "77" });
      expect(more.map((h) => h.chunk_id)).toEqual(exact); // all 20 that exist, in order
      // Hybrid too: the dense leg's candidates are all permitted.
      const access = { tenantId: t.tenantId, identityId: "77", roles: [], barriers: [] };
      const hybrid = await idx.search(t, { query: "passage", embedding: q, access, filters: {}, k: 5, mode: "hybrid" });
      expect(hybrid.every((h) => h.doc_id === "few")).toBe(true);
      expect(hybrid.length).toBe(5);
    });

    test("close", async () => {
      await idx.close();
    });
  });

  test("a version 2 file (no ann_log) is upgraded on open and its HNSW index built from chunks_vec", async () => {
    const dir = join(root, "v2");
    const r = prng(3);
    const t = tenant();
    const make = () => new SqliteDocumentIndex({ dataDir: dir, searchThreads: 0, ann: { minChunks: 0 } });
    let idx = make();
    await idx.ensureNamespace(t);
    const vecs = Array.from({ length: 40 }, () => randomUnit(r));
    await idx.putDocument(t, meta("old"), chunksOf("old", vecs));
    await idx.close();
    const db = new Database(idx.pathOf(t));
    db.exec(`DROP TRIGGER chunks_ann_ai; DROP TRIGGER chunks_ann_ad; DROP TABLE ann_log;
             UPDATE _namespace SET value = '2' WHERE key = 'schema_version';`);
    db.close();
    idx = make();
    expect(await idx.namespaceExists(t)).toBe(true);
    expect((await dense(idx, t, vecs[9] as Float32Array, 1))[0]?.chunk_id).toBe("old:9");
    expect(existsSync(sidecarPath(idx.pathOf(t)))).toBe(true);
    // Writes after the upgrade are logged and reach the index.
    const fresh = randomUnit(r);
    await idx.putDocument(t, meta("new"), chunksOf("new", [fresh]));
    expect((await dense(idx, t, fresh, 1))[0]?.chunk_id).toBe("new:0");
    await idx.close();
  });

  test("the log keeps vectors for its newest rows only; a holder reads older ones from chunks_vec", async () => {
    const db = new Database(":memory:");
    db.exec(
      "CREATE TABLE ann_log (id INTEGER PRIMARY KEY AUTOINCREMENT, seq INTEGER NOT NULL, op TEXT NOT NULL, vec BLOB)",
    );
    const add = db.query("INSERT INTO ann_log (seq, op, vec) VALUES (?, 'add', x'00')");
    db.transaction(() => {
      for (let i = 1; i <= 20_000; i++) add.run(i);
    })();
    boundLoggedVectors(db, 0);
    const kept = (where: string) =>
      db.query<{ n: number }, []>(`SELECT count(*) AS n FROM ann_log WHERE vec IS NOT NULL AND ${where}`).get()?.n;
    expect(kept("id <= 3616")).toBe(0);
    expect(kept("id > 3616")).toBe(16_384);
    db.close();
    // End to end, a holder that has to replay vector-less rows still indexes them (vec0 path).
    const dir = join(root, "vecless");
    const r = prng(13);
    const t = tenant();
    const idx = new SqliteDocumentIndex({ dataDir: dir, searchThreads: 0, ann: { minChunks: 0 } });
    await idx.ensureNamespace(t);
    await idx.putDocument(t, meta("a"), chunksOf("a", [randomUnit(r)]));
    await dense(idx, t, randomUnit(r), 1); // built and saved
    const later = randomUnit(r);
    await idx.putDocument(t, meta("b"), chunksOf("b", [later]));
    const file = new Database(idx.pathOf(t));
    file.exec("UPDATE ann_log SET vec = NULL");
    file.close();
    expect((await dense(idx, t, later, 1))[0]?.chunk_id).toBe("b:0");
    await idx.close();
  });

  test("a tenant too large to build inline is answered exactly while its index builds in the background", async () => {
    const dir = join(root, "background");
    const r = prng(5);
    const t = tenant();
    const idx = new SqliteDocumentIndex({ dataDir: dir, searchThreads: 0, ann: { minChunks: 0, syncBuildMax: 50 } });
    await idx.ensureNamespace(t);
    const file = idx.pathOf(t);
    const vecs = Array.from({ length: 200 }, () => randomUnit(r));
    for (let d = 0; d < 4; d++)
      await idx.putDocument(t, meta(`d${d}`), chunksOf(`d${d}`, vecs.slice(d * 50, d * 50 + 50)));
    const q = vecs[17] as Float32Array;
    const first = (await dense(idx, t, q, 10)).map((h) => h.chunk_id);
    expect(first[0]).toBe("d0:17");
    // Generous bound: the build runs on its own thread on a loaded machine.
    const deadline = Date.now() + 60_000;
    while (!existsSync(sidecarPath(file)) && Date.now() < deadline) await Bun.sleep(50);
    expect(existsSync(sidecarPath(file))).toBe(true);
    await Bun.sleep(50); // let the builder's "done" message arrive
    expect((await dense(idx, t, q, 10)).map((h) => h.chunk_id)).toEqual(first);
    await idx.close();
  });
});
