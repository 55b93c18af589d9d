/**
 * The learned reranker: after fusion, the top RERANK_DEPTH hybrid candidates are re-ordered by
 * a small model over rank-features.ts (leg ranks, fused order, question-term / number / title
 * coverage). The model is trained in the lab (lab/src/lab/ranking) on features the retrieval
 * evaluation dumps, and shipped as coefficients in rank-model.json — plain numbers, no engine,
 * a few microseconds per candidate on the service thread. docs/search.md "Hybrid ranking" has
 * the per-set numbers (leave-one-dataset-out) and the latency cost.
 *
 * Two model kinds: "linear" (standardised features · weights + bias) and "trees" (a LightGBM
 * ensemble exported as its dump_model() trees: Σ leaf values). Both give a score per candidate,
 * higher is better; ties keep the fused order, so a model that scores everything alike changes
 * nothing.
 */
import { FEATURE_NAMES, type RankCandidate, rankFeatures } from "./rank-features.ts";
import shippedModel from "./rank-model.json";

/** Candidates the reranker sees: enough to lift a page from the fused 50th place to the top. */
export const RERANK_DEPTH = 50;

export interface LinearRankModel {
  kind: "linear";
  features: string[];
  mean: number[];
  scale: number[];
  weights: number[];
  bias: number;
}

/** One LightGBM tree node as dump_model() writes it (numerical splits only). */
export type TreeNode =
  | { leaf_value: number }
  | {
      split_feature: number;
      threshold: number;
      decision_type: "<=";
      default_left: boolean;
      left_child: TreeNode;
      right_child: TreeNode;
    };

export interface TreesRankModel {
  kind: "trees";
  features: string[];
  trees: TreeNode[];
}

export type RankModel = LinearRankModel | TreesRankModel;

/** The model the service ships (trained on all evaluation sets; see the module comment). */
export const SERVICE_RANK_MODEL: RankModel = checkRankModel(shippedModel as RankModel);

/**
 * Whether hybrid searches are reranked when the service is not given a model (deps.rerank):
 * on because the model beat plain fusion on every evaluation set held out of its training
 * (docs/search.md "Hybrid ranking" says which sets could be measured in which mode).
 */
export const RERANK_BY_DEFAULT = true;

/** Checks a model file against this build's features: a stale model must fail loudly, not rank badly. */
export function checkRankModel(m: RankModel): RankModel {
  const names = [...FEATURE_NAMES];
  if (m.features.length !== names.length || m.features.some((f, i) => f !== names[i])) {
    throw new Error(`rank model features ${m.features.join(",")} do not match ${names.join(",")}`);
  }
  if (m.kind === "linear") {
    for (const v of [m.mean, m.scale, m.weights]) {
      if (v.length !== names.length || !v.every(Number.isFinite)) throw new Error("rank model: bad coefficient vector");
    }
  } else if (m.trees.length === 0) throw new Error("rank model: no trees");
  return m;
}

function treeValue(node: TreeNode, x: number[]): number {
  let n = node;
  while (!("leaf_value" in n)) {
    const v = x[n.split_feature];
    const left = v === undefined || Number.isNaN(v) ? n.default_left : v <= n.threshold;
    n = left ? n.left_child : n.right_child;
  }
  return n.leaf_value;
}

/** The model's score of one feature vector. */
export function scoreFeatures(m: RankModel, x: number[]): number {
  if (m.kind === "trees") return m.trees.reduce((s, t) => s + treeValue(t, x), 0);
  let s = m.bias;
  for (let i = 0; i < x.length; i++) {
    const scale = m.scale[i] || 1;
    s += (m.weights[i] ?? 0) * (((x[i] ?? 0) - (m.mean[i] ?? 0)) / scale);
  }
  return s;
}

/**
 * Re-orders candidates (in fused order, best first) by the model, returning each with its
 * model score. Only the first RERANK_DEPTH are re-ordered; any after them keep their order
 * below (their score is then the lowest model score, so scores stay descending).
 */
export function rerank<T extends RankCandidate>(
  query: string,
  candidates: T[],
  model: RankModel,
): { item: T; score: number }[] {
  const head = candidates.slice(0, RERANK_DEPTH);
  const feats = rankFeatures(query, head);
  const scored = head.map((item, i) => ({ item, score: scoreFeatures(model, feats[i] as number[]), i }));
  scored.sort((a, b) => b.score - a.score || a.i - b.i);
  const floor = scored.at(-1)?.score ?? 0;
  return [
    ...scored.map(({ item, score }) => ({ item, score })),
    ...candidates.slice(RERANK_DEPTH).map((item) => ({ item, score: floor })),
  ];
}

/**
 * The service's step: hybrid hits (fused order) re-ordered by the model, each carrying the
 * model's score; `ranks` keep meaning each leg's rank. The caller fetched max(k, RERANK_DEPTH)
 * hits and cuts to k afterwards.
 */
export function rerankHits<H extends { text: string; ranks: RankCandidate["ranks"]; document: { filename: string } }>(
  query: string,
  hits: H[],
  model: RankModel,
): H[] {
  const candidates = hits.map((h) => ({ hit: h, text: h.text, filename: h.document.filename, ranks: h.ranks }));
  return rerank(query, candidates, model).map(({ item, score }) => ({ ...item.hit, score }));
}
