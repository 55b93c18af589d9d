/**
 * The reranker in the service's search path, over a real embedded index (SQLite FTS5 + vectors)
 * and a small deterministic embedder (a bag of hashed words: the test is about the order the
 * reranker imposes, not about embedding quality).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SqliteDocumentIndex } from "../../adapters/docindex/index.ts";
import type { TenantRef } from "../tenants/namespaces.ts";
import { canSee } from "./acl.ts";
import type { Embedder } from "./ports.ts";
import { type LinearRankModel, RERANK_BY_DEFAULT, SERVICE_RANK_MODEL } from "./rerank.ts";
import { only } from "./rerank-test-support.ts";
import { DocumentService, type DocumentServiceDeps } from "./service.ts";
import type { AccessContext, DocumentMeta } from "./types.ts";

const DIM = 16;
const tenant: TenantRef = { tenantId: "t-rerank", slug: "t-rerank" };
const access: AccessContext = { tenantId: tenant.tenantId, identityId: "1", roles: [], barriers: [] };

function embed(text: string): Float32Array {
  const v = new Float32Array(DIM);
  for (const w of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
    let h = 0;
    for (const c of w) h = (h * 31 + c.charCodeAt(0)) >>> 0;
    v[h % DIM] = (v[h % DIM] ?? 0) + 1;
  }
  const n = Math.hypot(...v) || 1;
  return v.map((x) => x / n);
}
const embedder: Embedder = {
  dim: DIM,
  model: "hashed-words",
  embed: async (texts) => texts.map(embed),
  close: async () => {},
};

const TEXTS = [
  "revenue revenue revenue grew strongly in the year",
  "capital expenditure was 1,577 million in 2018 for 3M",
  "the board met twice; revenue was discussed",
  "unrelated notes about leases and pensions",
];

let dir: string;
let index: SqliteDocumentIndex;
function service(rerank: LinearRankModel | null | undefined): DocumentService {
  const deps = {
    index,
    embedder,
    permits: canSee,
    ...(rerank === undefined ? {} : { rerank }),
  } as unknown as DocumentServiceDeps; // search uses only these
  return new DocumentService(deps);
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "cairn-rerank-"));
  index = new SqliteDocumentIndex({ dataDir: dir, embeddingDim: DIM, searchThreads: 0 });
  await index.ensureNamespace(tenant);
  for (const [i, text] of TEXTS.entries()) {
    const meta: DocumentMeta = {
      doc_id: `d${i}`,
      filename: `doc${i}.txt`,
      format: "txt",
      doc_type: "other",
      entity_id: null,
      uploaded_by: "1",
      uploaded_at: new Date(0).toISOString(),
      acl: { visibility: "tenant_wide", allowed_identity_ids: [], allowed_roles: [], barrier_id: null },
    };
    await index.putDocument(tenant, meta, [{ chunk_index: 0, text, id: `d${i}:0`, embedding: embed(text) }]);
  }
});
afterAll(async () => {
  await index.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("reranking in DocumentService.search", () => {
  const query = "3M capital expenditure revenue 2018";

  test("null turns it off (the index's order and scores); unset means the shipped model", async () => {
    const plain = await service(null).search(tenant, access, { query, filters: {}, k: 4 });
    const direct = await index.search(tenant, {
      query,
      embedding: embed(query),
      access,
      filters: {},
      k: 4,
      mode: "hybrid",
    });
    expect(plain.map((h) => [h.chunk_id, h.score])).toEqual(direct.map((h) => [h.chunk_id, h.score]));
    const byDefault = await service(undefined).search(tenant, access, { query, filters: {}, k: 4 });
    const shipped = await service(SERVICE_RANK_MODEL as LinearRankModel).search(tenant, access, {
      query,
      filters: {},
      k: 4,
    });
    expect(RERANK_BY_DEFAULT).toBe(true);
    expect(byDefault).toEqual(shipped);
    expect(byDefault.map((h) => h.chunk_id).sort()).toEqual(plain.map((h) => h.chunk_id).sort());
  });

  test("with a model the order is the model's, cut to k; ranks keep each leg's rank", async () => {
    const fused = await service(null).search(tenant, access, { query, filters: {}, k: 4 });
    // Scoring by the fused position negated reverses the fused order.
    const reversed = await service(only("fused_rr", -1)).search(tenant, access, { query, filters: {}, k: 4 });
    expect(reversed.map((h) => h.chunk_id)).toEqual(fused.map((h) => h.chunk_id).reverse());
    const byId = new Map(fused.map((h) => [h.chunk_id, h.ranks]));
    for (const h of reversed) expect(h.ranks).toEqual(byId.get(h.chunk_id) as (typeof h)["ranks"]);
    for (let i = 1; i < reversed.length; i++)
      expect(reversed[i - 1]?.score).toBeGreaterThanOrEqual(reversed[i]?.score as number);
    // Number coverage: the only chunk with 2018 and 1,577's neighbour 3M comes first; k = 1 keeps it alone.
    const top = await service(only("num_cover", 1)).search(tenant, access, { query, filters: {}, k: 1 });
    expect(top.map((h) => h.chunk_id)).toEqual(["d1:0"]);
  });

  test("single-leg modes are never reranked", async () => {
    const plain = await service(null).search(tenant, access, { query, filters: {}, k: 4, mode: "bm25" });
    const withModel = await service(only("fused_rr", -1)).search(tenant, access, {
      query,
      filters: {},
      k: 4,
      mode: "bm25",
    });
    expect(withModel).toEqual(plain);
  });
});
