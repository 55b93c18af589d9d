/** What the reranker's suites (rerank.test.ts, rerank-service.test.ts) share. */
import { FEATURE_NAMES } from "./rank-features.ts";
import type { LinearRankModel } from "./rerank.ts";

/** A linear model that scores by one feature only (no centring, no scaling). */
export const only = (name: (typeof FEATURE_NAMES)[number], weight = 1): LinearRankModel => ({
  kind: "linear",
  features: [...FEATURE_NAMES],
  mean: FEATURE_NAMES.map(() => 0),
  scale: FEATURE_NAMES.map(() => 1),
  weights: FEATURE_NAMES.map((n) => (n === name ? weight : 0)),
  bias: 0,
});
