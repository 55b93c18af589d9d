/**
 * The embedded index's vector leg: HNSW (usearch, adapters/docindex/ann-index.ts) against the
 * exact sqlite-vec scan it replaces above CAIRN_ANN_MIN_CHUNKS, on one synthetic tenant of
 * normalised 768-d vectors with cluster structure (a low-dimensional latent mixture projected
 * to 768-d, like text embeddings). Both legs are the production code (dense-leg.ts) timed
 * query by query in the same process, so the ratio survives a shared machine.
 *
 * Reports, per caller: p50/p99 of each leg (peer: exact) and recall@10 against exact (peer:
 * exact, whose recall is 1). Callers: one who sees 99 % of the chunks, one who sees ~half (the
 * over-fetch grows k'), one who sees 1 % (the exact fallback for selective filters). Also the
 * build time and the load time of the saved index.
 *
 *   bun bench/docindex-ann.ts            # 100k chunks (BENCH_ANN_N to change; BENCH_QUICK=1: 10k)
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { annRecallAt10 } from "../adapters/docindex/ann-recall.ts";
import { SqliteDocumentIndex } from "../adapters/docindex/index.ts";
import type { DocumentAcl } from "../domain/documents/types.ts";
import { emit, emitPair, QUICK, round } from "./runner.ts";

const DIM = 768;
const N = Number(process.env.BENCH_ANN_N ?? (QUICK ? 10_000 : 100_000));
const PER_DOC = 100;
const QUERIES = QUICK ? 20 : 50;

// A small seeded PRNG (mulberry32): the corpus is the same on every run.
let state = 20261125;
function rand(): number {
  state = (state + 0x6d2b79f5) | 0;
  let t = Math.imul(state ^ (state >>> 15), 1 | state);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const gauss = () => Math.sqrt(-2 * Math.log(Math.max(rand(), 1e-12))) * Math.cos(2 * Math.PI * rand());
const LATENT = 24;
const proj = Array.from({ length: LATENT }, () => Float32Array.from({ length: DIM }, gauss));
const centres = Array.from({ length: 200 }, () => Array.from({ length: LATENT }, () => 3 * gauss()));
function embed(): Float32Array {
  const c = centres[Math.floor(rand() * centres.length)] as number[];
  const v = new Float32Array(DIM).map(() => 0.3 * gauss());
  for (let l = 0; l < LATENT; l++) {
    const z = (c[l] as number) + gauss();
    const p = proj[l] as Float32Array;
    for (let j = 0; j < DIM; j++) v[j] = (v[j] as number) + z * (p[j] as number);
  }
  let n = 0;
  for (const x of v) n += x * x;
  n = Math.sqrt(n);
  return v.map((x) => x / n);
}

// Every document is team-only; the roles decide who sees what share of the corpus.
const acl = (roles: string[]): DocumentAcl => ({
  visibility: "team_only",
  allowed_identity_ids: [],
  allowed_roles: roles,
  barrier_id: null,
});

const dataDir = mkdtempSync(join(tmpdir(), "cairn-bench-ann-"));
const idx = new SqliteDocumentIndex({ dataDir, searchThreads: 0 });
const t = { tenantId: "00000000-0000-4000-8000-00000000a2a2", slug: "ann" };
try {
  await idx.ensureNamespace(t);
  const t0 = performance.now();
  for (let d = 0; d < N / PER_DOC; d++) {
    const share = d % 100;
    const roles = share === 0 ? ["rare"] : share % 2 ? ["all"] : ["all", "half"];
    await idx.putDocument(
      t,
      {
        doc_id: `d${d}`,
        filename: `d${d}.txt`,
        format: "txt",
        doc_type: "other",
        entity_id: null,
        uploaded_by: "1",
        uploaded_at: "2026-01-01T00:00:00Z",
        acl: acl(roles),
      },
      Array.from({ length: PER_DOC }, (_, i) => ({
        chunk_index: i,
        text: `p ${i}`,
        id: `d${d}:${i}`,
        embedding: embed(),
      })),
    );
  }
  const fillMs = performance.now() - t0;
  await idx.close();
  const queries = Array.from({ length: QUERIES }, embed);
  const file = idx.pathOf(t);
  const name = `docindex-ann/${N / 1000}k`;
  emit({ bench: `${name}/fill`, metric: "time", value: round(fillMs / 1000), unit: "s", peer: null, ratio: null });
  for (const [who, roles] of [
    ["99pct", ["all"]],
    ["50pct", ["half"]],
    ["1pct", ["rare"]],
  ] as const) {
    const r = annRecallAt10(file, DIM, queries, { identity: "1", roles: [...roles] });
    if (r.buildMs !== null)
      emit({
        bench: `${name}/hnsw-build`,
        metric: "time",
        value: round(r.buildMs / 1000),
        unit: "s",
        peer: null,
        ratio: null,
      });
    if (r.loadMs !== null)
      emit({ bench: `${name}/hnsw-load`, metric: "time", value: round(r.loadMs), unit: "ms", peer: null, ratio: null });
    const b = `${name}/${who}`;
    emitPair({ bench: `${b}/hnsw`, value: r.ann.p50 }, { bench: `${b}/exact`, value: r.exact.p50 }, "p50", "ms");
    emitPair({ bench: `${b}/hnsw`, value: r.ann.p99 }, { bench: `${b}/exact`, value: r.exact.p99 }, "p99", "ms");
    emitPair({ bench: `${b}/hnsw`, value: r.recallAt10 }, { bench: `${b}/exact`, value: 1 }, "recall@10", "fraction");
  }
} finally {
  await idx.close();
  rmSync(dataDir, { recursive: true, force: true });
}
