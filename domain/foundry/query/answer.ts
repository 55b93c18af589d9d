/** What a natural-language query answers (POST /v1/foundry/query), its limits, and "cannot answer". */

export type QuerySource = "lakehouse" | "timeseries" | "graph" | "readmodel";

export interface QueryAnswer {
  question: string;
  answered: boolean;
  source: QuerySource | null;
  sql?: string;
  cypher?: string;
  columns: string[];
  rows: unknown[][];
  explanation: string;
  planner: "llm" | "rules";
  /** True when the result had more than the row limit: `rows` holds the first ones. */
  truncated: boolean;
}

export const MAX_QUESTION_CHARS = 2000;
/** Rows an answer carries at most. */
export const DEFAULT_MAX_ROWS = 1000;
/** Daily bars a time-series window may read at most (every symbol of the range). */
export const MAX_WINDOW_ROWS = 1_000_000;
export const MARKET_TABLE = "market_bars_daily";

/** An answer that says plainly why the question is not answered (200: the request was fine). */
export function unanswered(
  question: string,
  explanation: string,
  planner: "llm" | "rules",
  extra: { source?: QuerySource; sql?: string } = {},
): QueryAnswer {
  return {
    question,
    answered: false,
    source: extra.source ?? null,
    ...(extra.sql ? { sql: extra.sql } : {}),
    columns: [],
    rows: [],
    explanation,
    planner,
    truncated: false,
  };
}
