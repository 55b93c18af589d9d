/** Messages between OnnxScorer (service side, scorer.ts) and its runtime processes (host.ts). */

/**
 * One input tensor, [rows, 1]: doubles, or strings dictionary-encoded (the distinct values and
 * one code per row) — cloning one string per row over IPC cost ~20 ms per 8,192 German credit
 * rows on the service's thread; the codes are one typed array (structured clone keeps it).
 */
export type Column = { type: "float64"; data: Float64Array } | { type: "string"; values: string[]; codes: Int32Array };

export type ToHost =
  | { type: "init"; cacheSize: number; intraOpThreads: number }
  /** `bytes` only when the host said it lacks the model ("missing"); the host checks the hash. */
  | { type: "score"; id: number; sha256: string; bytes?: Uint8Array; rows: number; feeds: Record<string, Column> };

export type FromHost =
  | { type: "ready" }
  /** The host has no session for `sha256`: send the score again with the bytes. */
  | { type: "missing"; id: number }
  /** `data` row-major [rows, width]; width 1 for regression. */
  | { type: "result"; id: number; output: "probabilities" | "values"; width: number; data: Float64Array }
  | { type: "error"; id: number; message: string; code: "internal" | "bad_request" };
