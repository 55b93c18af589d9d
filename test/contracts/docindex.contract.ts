/**
 * Contract suite for DocumentIndexPort: runs unchanged against the embedded index (SQLite
 * FTS5 + sqlite-vec) and the cluster index (OpenSearch). Vectors are deterministic unit
 * vectors from a seeded PRNG: the index must not care where they come from.
 *
 * The ACL property test builds random corpora (documents × visibilities × allowed ids ×
 * roles × barriers) and random callers, and checks every mode's result set against `canSee`
 * over the whole corpus with queries that match every chunk: no leaks, no wrongful denials.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { canSee } from "../../domain/documents/acl.ts";
import type { DocumentIndexPort } from "../../domain/documents/ports.ts";
import type {
  AccessContext,
  DocType,
  DocumentAcl,
  DocumentMeta,
  IndexedChunk,
  SearchFilters,
  SearchMode,
  Visibility,
} from "../../domain/documents/types.ts";
import type { NamespacePort, TenantRef } from "../../domain/tenants/namespaces.ts";
import { fuzzSeed, type Prng, prng } from "../prng.ts";

export type DocIndexAdapter = DocumentIndexPort & NamespacePort;
export const DIM = 768;

/** A unit vector drawn from the PRNG (Box–Muller normals, L2-normalised). */
export function unitVector(r: Prng, dim = DIM): Float32Array {
  const v = new Float32Array(dim);
  for (let i = 0; i < dim; i += 2) {
    const u1 = Math.max(r.next(), 1e-12);
    const u2 = r.next();
    const m = Math.sqrt(-2 * Math.log(u1));
    v[i] = m * Math.cos(2 * Math.PI * u2);
    if (i + 1 < dim) v[i + 1] = m * Math.sin(2 * Math.PI * u2);
  }
  return normalise(v);
}

/** `base` moved towards a random direction by `t` (0 = base), renormalised. */
export function near(base: Float32Array, r: Prng, t: number): Float32Array {
  const noise = unitVector(r, base.length);
  return normalise(base.map((x, i) => (1 - t) * x + t * (noise[i] as number)));
}

function normalise(v: Float32Array): Float32Array {
  let n = 0;
  for (const x of v) n += x * x;
  n = Math.sqrt(n) || 1;
  return v.map((x) => x / n);
}

export const ACL_OPEN: DocumentAcl = {
  visibility: "tenant_wide",
  allowed_identity_ids: [],
  allowed_roles: [],
  barrier_id: null,
};

export function meta(docId: string, over: Partial<DocumentMeta> = {}): DocumentMeta {
  return {
    doc_id: docId,
    filename: `${docId}.txt`,
    format: "txt",
    doc_type: "other",
    entity_id: null,
    uploaded_by: "1",
    uploaded_at: "2026-01-01T00:00:00.000Z",
    acl: ACL_OPEN,
    ...over,
  };
}

export function chunks(docId: string, texts: string[], vectors: Float32Array[]): IndexedChunk[] {
  return texts.map((text, i) => ({
    chunk_index: i,
    text,
    page: i + 1,
    id: `${docId}:${i}`,
    embedding: vectors[i] as Float32Array,
  }));
}

const access = (tenantId: string, over: Partial<AccessContext> = {}): AccessContext => ({
  tenantId,
  identityId: "1",
  roles: [],
  barriers: [],
  ...over,
});

const tenant = (): TenantRef => ({ tenantId: crypto.randomUUID(), slug: "docs" });

export function runDocumentIndexContract(
  name: string,
  make: () => DocIndexAdapter | undefined,
  opts: { aclCorpora?: number } = {},
): void {
  const adapter = make();
  describe.skipIf(!adapter)(`DocumentIndexPort contract: ${name}`, () => {
    const idx = adapter as DocIndexAdapter;
    const t = tenant();
    const other = tenant();
    const r = prng(20260101);
    const topic = unitVector(r);

    beforeAll(async () => {
      await idx.ensureNamespace(t);
      await idx.ensureNamespace(other);
    });
    afterAll(async () => {
      await idx.dropNamespace(t);
      await idx.dropNamespace(other);
      await idx.close();
    });

    test("ready is false until provisioned; writes to an unprovisioned index are 503", async () => {
      const fresh = tenant();
      expect(await idx.ready(fresh)).toBe(false);
      await expect(idx.putDocument(fresh, meta("d0"), [])).rejects.toMatchObject({ code: "unavailable" });
      await expect(
        idx.search(fresh, { query: "x", access: access(fresh.tenantId), filters: {}, k: 1, mode: "bm25" }),
      ).rejects.toMatchObject({ code: "unavailable" });
      expect(await idx.ready(t)).toBe(true);
    });

    test("put, get, replace atomically with fewer chunks, delete", async () => {
      const id = crypto.randomUUID();
      const vs = [unitVector(r), unitVector(r), unitVector(r)];
      await idx.putDocument(
        t,
        meta(id, { filename: "deck.pdf" }),
        chunks(id, ["alpha zebra", "beta zebra", "gamma"], vs),
      );
      const got = await idx.getDocument(t, id);
      expect(got).toMatchObject({ doc_id: id, filename: "deck.pdf", chunks: 3, acl: ACL_OPEN });
      const q = { access: access(t.tenantId), filters: { doc_id: id }, k: 10, mode: "bm25" as const };
      expect((await idx.search(t, { ...q, query: "zebra" })).map((h) => h.chunk_id).sort()).toEqual([
        `${id}:0`,
        `${id}:1`,
      ]);
      // Replace: one chunk with new text; the old chunks must vanish from both legs.
      await idx.putDocument(
        t,
        meta(id, { filename: "deck-v2.pdf" }),
        chunks(id, ["delta walrus"], [vs[2] as Float32Array]),
      );
      expect(await idx.getDocument(t, id)).toMatchObject({ filename: "deck-v2.pdf", chunks: 1 });
      expect(await idx.search(t, { ...q, query: "zebra" })).toEqual([]);
      const dense = await idx.search(t, { ...q, query: "", mode: "dense", embedding: vs[0] as Float32Array });
      expect(dense.map((h) => h.chunk_id)).toEqual([`${id}:0`]);
      expect(dense[0]?.text).toBe("delta walrus");
      expect(dense[0]?.page).toBe(1);
      expect(dense[0]?.document.filename).toBe("deck-v2.pdf");
      expect(await idx.deleteDocument(t, id)).toBe(true);
      expect(await idx.getDocument(t, id)).toBeNull();
      expect(await idx.search(t, { ...q, query: "walrus" })).toEqual([]);
      expect(await idx.search(t, { ...q, query: "", mode: "dense", embedding: vs[2] as Float32Array })).toEqual([]);
      expect(await idx.deleteDocument(t, id)).toBe(false);
    });

    test("searches running during replacements see the old set or the new set, never a mix", async () => {
      const id = crypto.randomUUID();
      const v = unitVector(r);
      const version = (tag: string, n: number) =>
        chunks(
          id,
          Array.from({ length: n }, (_, i) => `${tag} swapword ${i}`),
          Array.from({ length: n }, () => near(v, r, 0.2)),
        );
      const sets = { one: version("vone", 3), two: version("vtwo", 5) };
      await idx.putDocument(t, meta(id), sets.one);
      let writing = true;
      const writer = (async () => {
        for (let i = 0; i < 8; i++) await idx.putDocument(t, meta(id), i % 2 === 0 ? sets.two : sets.one);
        writing = false;
      })();
      const seen: string[] = [];
      while (writing) {
        for (const mode of ["bm25", "dense"] as const) {
          const hits = await idx.search(t, {
            query: "swapword",
            embedding: v,
            access: access(t.tenantId),
            filters: { doc_id: id },
            k: 50,
            mode,
          });
          const tags = new Set(hits.map((h) => h.text.split(" ")[0]));
          const shape = `${[...tags].join("+")}:${hits.length}`;
          seen.push(shape);
          expect(["vone:3", "vtwo:5"]).toContain(shape);
        }
      }
      await writer;
      expect(seen.length).toBeGreaterThan(0);
      await idx.deleteDocument(t, id);
    });

    test("filters doc_id, entity_id and doc_type narrow every mode", async () => {
      const ids: string[] = [crypto.randomUUID(), crypto.randomUUID(), crypto.randomUUID()];
      const types: DocType[] = ["cim", "nda", "cim"];
      const entities = ["deal-a", "deal-a", "deal-b"];
      for (const [i, id] of ids.entries()) {
        await idx.putDocument(
          t,
          meta(id, { doc_type: types[i] as DocType, entity_id: entities[i] as string }),
          chunks(id, [`filterword revenue ${i}`], [near(topic, r, 0.3)]),
        );
      }
      const run = async (mode: SearchMode, filters: SearchFilters) =>
        (
          await idx.search(t, {
            query: "filterword",
            embedding: topic,
            access: access(t.tenantId),
            filters,
            k: 50,
            mode,
          })
        )
          .map((h) => h.doc_id)
          .filter((d) => ids.includes(d))
          .sort();
      const [i0, i1, i2] = ids as [string, string, string];
      for (const mode of ["bm25", "dense", "hybrid"] as const) {
        expect(await run(mode, {})).toEqual([...ids].sort());
        expect(await run(mode, { doc_id: i1 })).toEqual([i1]);
        expect(await run(mode, { entity_id: "deal-a" })).toEqual([i0, i1].sort());
        expect(await run(mode, { doc_type: "cim" })).toEqual([i0, i2].sort());
        expect(await run(mode, { doc_type: "cim", entity_id: "deal-a" })).toEqual([i0]);
      }
      for (const id of ids) await idx.deleteDocument(t, id);
    });

    test("modes: bm25 ranks the keyword, dense the nearest vector, hybrid fuses both", async () => {
      const a = crypto.randomUUID();
      const b = crypto.randomUUID();
      const qv = unitVector(r);
      // a: the keyword but a far vector; b: no keyword but the query's own vector.
      await idx.putDocument(t, meta(a), chunks(a, ["ebitda margin expansion ebitda"], [unitVector(r)]));
      await idx.putDocument(t, meta(b), chunks(b, ["unrelated words entirely"], [qv]));
      const base = { query: "EBITDA", embedding: qv, access: access(t.tenantId), filters: {}, k: 2 };
      const bm = await idx.search(t, { ...base, filters: { doc_id: a }, mode: "bm25" });
      expect(bm[0]?.doc_id).toBe(a);
      expect(bm[0]?.ranks).toEqual({ bm25: 1, dense: null });
      expect(bm[0]?.score).toBeGreaterThan(0);
      const dn = await idx.search(t, { ...base, mode: "dense" });
      expect(dn[0]?.doc_id).toBe(b);
      expect(dn[0]?.score).toBeCloseTo(1, 3);
      expect(dn[0]?.ranks).toEqual({ bm25: null, dense: 1 });
      const hy = await idx.search(t, { ...base, mode: "hybrid" });
      expect(hy.map((h) => h.doc_id).sort()).toEqual([a, b].sort());
      const ha = hy.find((h) => h.doc_id === a);
      expect(ha?.ranks.bm25).toBe(1);
      expect(ha?.ranks.dense).not.toBeNull(); // the dense leg lists every permitted chunk here
      // Weights are tunable: all weight on one leg makes that leg's winner first.
      const onlyBm = await idx.search(t, { ...base, mode: "hybrid", weights: { bm25: 1, dense: 0 } });
      expect(onlyBm[0]?.doc_id).toBe(a);
      const onlyDense = await idx.search(t, { ...base, mode: "hybrid", weights: { bm25: 0, dense: 1 } });
      expect(onlyDense[0]?.doc_id).toBe(b);
      await idx.deleteDocument(t, a);
      await idx.deleteDocument(t, b);
    });

    test("k permitted results even when many forbidden chunks rank higher (pre-filter, not post-filter)", async () => {
      const qv = unitVector(r);
      const hidden = crypto.randomUUID();
      const visible = crypto.randomUUID();
      const secret: DocumentAcl = { ...ACL_OPEN, visibility: "deal_private", allowed_identity_ids: ["999"] };
      const n = 300; // far more than any leg's candidate count for k = 5
      await idx.putDocument(
        t,
        meta(hidden, { acl: secret }),
        chunks(
          hidden,
          Array.from({ length: n }, (_, i) => `prefilter prefilter prefilter secret ${i}`),
          Array.from({ length: n }, () => near(qv, r, 0.05)),
        ),
      );
      await idx.putDocument(
        t,
        meta(visible),
        chunks(
          visible,
          Array.from({ length: 5 }, (_, i) => `prefilter public note ${i} with many other words to dilute it`),
          Array.from({ length: 5 }, () => unitVector(r)),
        ),
      );
      for (const mode of ["bm25", "dense", "hybrid"] as const) {
        const hits = await idx.search(t, {
          query: "prefilter",
          embedding: qv,
          access: access(t.tenantId, { identityId: "1" }),
          filters: {},
          k: 5,
          mode,
        });
        expect(hits.map((h) => h.doc_id)).toEqual(Array(5).fill(visible));
      }
      const insider = await idx.search(t, {
        query: "prefilter",
        embedding: qv,
        access: access(t.tenantId, { identityId: "999" }),
        filters: {},
        k: 5,
        mode: "dense",
      });
      expect(insider.map((h) => h.doc_id)).toEqual(Array(5).fill(hidden));
      await idx.deleteDocument(t, hidden);
      await idx.deleteDocument(t, visible);
    });

    test("tenants are isolated, and an access context of another tenant is refused", async () => {
      const id = crypto.randomUUID();
      const v = unitVector(r);
      await idx.putDocument(t, meta(id), chunks(id, ["isolationword"], [v]));
      const q = { query: "isolationword", embedding: v, filters: {}, k: 5, mode: "hybrid" as const };
      expect(await idx.search(other, { ...q, access: access(other.tenantId) })).toEqual([]);
      expect(await idx.getDocument(other, id)).toBeNull();
      await expect(idx.search(other, { ...q, access: access(t.tenantId) })).rejects.toMatchObject({
        code: "forbidden",
      });
      expect((await idx.search(t, { ...q, access: access(t.tenantId) })).map((h) => h.doc_id)).toEqual([id]);
      await idx.deleteDocument(t, id);
    });

    test("query text is never read as query syntax", async () => {
      const id = crypto.randomUUID();
      await idx.putDocument(t, meta(id), chunks(id, ["near and or not column quote"], [unitVector(r)]));
      const hostile = [
        '"unbalanced',
        "AND OR NOT",
        "text:near*",
        "NEAR(near column, 2)",
        "-near ^column (quote",
        "\u0000 {} [] ' \\ \" ; --",
        "   ",
        "",
      ];
      for (const query of hostile) {
        const hits = await idx.search(t, {
          query,
          access: access(t.tenantId),
          filters: { doc_id: id },
          k: 3,
          mode: "bm25",
        });
        const words = query.toLowerCase().match(/[a-z]+/g) ?? [];
        const matches = words.some((w) => ["near", "and", "or", "not", "column", "quote", "text"].includes(w));
        expect(hits.length).toBe(matches ? 1 : 0);
      }
      await idx.deleteDocument(t, id);
    });

    test("bad requests: k out of range, a missing or wrong-width query vector", async () => {
      const base = { query: "x", access: access(t.tenantId), filters: {} };
      await expect(idx.search(t, { ...base, k: 0, mode: "bm25" })).rejects.toMatchObject({ code: "bad_request" });
      await expect(idx.search(t, { ...base, k: 5, mode: "dense" })).rejects.toMatchObject({ code: "bad_request" });
      await expect(
        idx.search(t, { ...base, k: 5, mode: "hybrid", embedding: new Float32Array(3) }),
      ).rejects.toMatchObject({ code: "bad_request" });
      await expect(
        idx.putDocument(t, meta("w"), [{ chunk_index: 0, text: "x", id: "w:0", embedding: new Float32Array(5) }]),
      ).rejects.toMatchObject({ code: "bad_request" });
    });

    const base = fuzzSeed(`docindex ACL ${name}`);
    for (let round = 0; round < (opts.aclCorpora ?? 3); round++) {
      test(`ACL property, corpus ${round + 1}: zero leaks and zero wrongful denials for random callers`, async () => {
        await aclRound(idx, prng(base + round));
      });
    }
  });
}

const IDENTITIES = ["1", "2", "3", "4", "5", "6", "7", "8"];
const ROLES = ["analyst", "associate", "partner", "legal", "ops"];
const BARRIERS = [crypto.randomUUID(), crypto.randomUUID(), crypto.randomUUID()];
const VISIBILITIES: Visibility[] = ["tenant_wide", "deal_private", "team_only"];

function subset<T>(r: Prng, xs: readonly T[], p: number): T[] {
  return xs.filter(() => r.bool(p));
}

function randomAcl(r: Prng): DocumentAcl {
  const visibility = r.pick(VISIBILITIES);
  return {
    visibility,
    allowed_identity_ids: visibility === "deal_private" ? subset(r, IDENTITIES, 0.3) : [],
    allowed_roles: visibility === "team_only" ? subset(r, ROLES, 0.35) : [],
    barrier_id: r.bool(0.4) ? r.pick(BARRIERS) : null,
  };
}

/** One random corpus in a fresh tenant, then every caller × mode against `canSee`. */
async function aclRound(idx: DocIndexAdapter, r: Prng): Promise<void> {
  const t = tenant();
  await idx.ensureNamespace(t);
  try {
    const docs: DocumentMeta[] = [];
    const chunkDoc = new Map<string, DocumentMeta>();
    const nDocs = 25 + r.int(15);
    for (let d = 0; d < nDocs; d++) {
      const doc = meta(crypto.randomUUID(), { acl: randomAcl(r), doc_type: r.pick(["cim", "nda", "other"]) });
      const n = 1 + r.int(3);
      const cs = chunks(
        doc.doc_id,
        Array.from({ length: n }, (_, i) => `everything common passage ${d} part ${i}`),
        Array.from({ length: n }, () => unitVector(r)),
      );
      await idx.putDocument(t, doc, cs);
      docs.push(doc);
      for (const c of cs) chunkDoc.set(c.id, doc);
    }
    const total = chunkDoc.size;
    const callers: AccessContext[] = Array.from({ length: 10 }, () => ({
      tenantId: t.tenantId,
      identityId: r.bool(0.85) ? r.pick(IDENTITIES) : "404",
      roles: subset(r, ROLES, 0.3),
      barriers: subset(r, BARRIERS, 0.4),
    }));
    for (const caller of callers) {
      const expected = [...chunkDoc.entries()]
        .filter(([, doc]) => canSee(doc.acl, caller))
        .map(([id]) => id)
        .sort();
      for (const mode of ["bm25", "dense", "hybrid"] as const) {
        const req = { query: "everything", embedding: unitVector(r), access: caller, filters: {}, mode };
        const all = await idx.search(t, { ...req, k: total + 5 });
        const got = all.map((h) => h.chunk_id).sort();
        const ctx = `seed=${r.seed} mode=${mode} caller=${JSON.stringify(caller)}`;
        const leaks = got.filter((id) => !expected.includes(id));
        const denied = expected.filter((id) => !got.includes(id));
        expect({ ctx, leaks, denied }).toEqual({ ctx, leaks: [], denied: [] });
        for (const h of all) expect(canSee(h.document.acl, caller)).toBe(true);
        // A small k still fills up from permitted chunks only.
        const k = 1 + r.int(4);
        const few = await idx.search(t, { ...req, k });
        expect(few.length).toBe(Math.min(k, expected.length));
        for (const h of few) expect(expected).toContain(h.chunk_id);
      }
      // Filters compose with the ACL: they narrow, never widen.
      const docType = r.pick(["cim", "nda", "other"] as const);
      const narrowed = (
        await idx.search(t, {
          query: "everything",
          embedding: unitVector(r),
          access: caller,
          filters: { doc_type: docType },
          k: total + 5,
          mode: "hybrid",
        })
      )
        .map((h) => h.chunk_id)
        .sort();
      expect(narrowed).toEqual(expected.filter((id) => chunkDoc.get(id)?.doc_type === docType));
    }
  } finally {
    await idx.dropNamespace(t);
  }
}
