/**
 * Recall and latency of the HNSW vector leg against the exact one, on one tenant file, for
 * benches (bench/docindex-ann.ts, bench/documents-search.ts) and the recall test. Both legs
 * run the production code (dense-leg.ts) in the same process, query by query, so the ratio
 * holds on a shared machine.
 */
import { Database } from "bun:sqlite";
import * as sqliteVec from "sqlite-vec";
import { AnnIndex } from "./ann-index.ts";
import { denseLeg, exactLeg } from "./dense-leg.ts";
import type { LegScope } from "./permitted.ts";

export interface LegLatency {
  p50: number;
  p99: number;
}

export interface AnnRecall {
  /** Mean over queries of |ANN top 10 ∩ exact top 10| / |exact top 10|. */
  recallAt10: number;
  queries: number;
  /** Milliseconds per query of each leg (limit 10). */
  ann: LegLatency;
  exact: LegLatency;
  /** Chunks in the HNSW index. */
  size: number;
  /** Milliseconds to build it, or null when a saved index was loaded. */
  buildMs: number | null;
  /** Milliseconds to load it, or null when it was built. */
  loadMs: number | null;
}

/** Who searches: default a caller who sees the tenant-wide documents only. */
export interface RecallCaller {
  identity?: string;
  roles?: string[];
  barriers?: string[];
}

function latency(ms: number[]): LegLatency {
  const s = [...ms].sort((a, b) => a - b);
  const at = (p: number) => s[Math.min(s.length - 1, Math.max(0, Math.ceil(p * s.length) - 1))] ?? 0;
  return { p50: at(0.5), p99: at(0.99) };
}

/**
 * recall@10 of the HNSW leg vs exact search over `file` (a tenant's index file, e.g.
 * `SqliteDocumentIndex.pathOf(t)`), with the saved index loaded or, when there is none, built
 * here (and saved, so the service loads it). Opens the file read-only; the adapter may be open.
 */
export function annRecallAt10(
  file: string,
  dim: number,
  queries: readonly Float32Array[],
  caller: RecallCaller = {},
): AnnRecall {
  const db = new Database(file, { readonly: true, strict: true });
  try {
    db.exec("PRAGMA busy_timeout = 5000;");
    sqliteVec.load(db);
    let buildMs: number | null = null;
    let loadMs: number | null = null;
    let t0 = performance.now();
    let ann = db.transaction(() => AnnIndex.load(db, file, dim)).deferred();
    if (ann) loadMs = performance.now() - t0;
    else {
      t0 = performance.now();
      ann = db.transaction(() => AnnIndex.build(db, file, dim, 0)).deferred();
      buildMs = performance.now() - t0;
      ann.save();
    }
    const scope: LegScope = {
      identity: caller.identity ?? "",
      roles: JSON.stringify(caller.roles ?? []),
      barriers: JSON.stringify(caller.barriers ?? []),
      doc_id: null,
      entity_id: null,
      doc_type: null,
      limit: 10,
    };
    const annMs: number[] = [];
    const exactMs: number[] = [];
    let recall = 0;
    for (const q of queries) {
      let t = performance.now();
      const exact = exactLeg(db, scope, q);
      exactMs.push(performance.now() - t);
      t = performance.now();
      const approx = denseLeg(db, scope, q, ann);
      annMs.push(performance.now() - t);
      const got = new Set(approx.map((h) => h.id));
      recall += exact.length === 0 ? 1 : exact.filter((h) => got.has(h.id)).length / exact.length;
    }
    return {
      recallAt10: queries.length ? recall / queries.length : 1,
      queries: queries.length,
      ann: latency(annMs),
      exact: latency(exactMs),
      size: ann.size,
      buildMs,
      loadMs,
    };
  } finally {
    db.close();
  }
}
