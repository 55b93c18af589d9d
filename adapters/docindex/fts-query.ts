/**
 * User text → an FTS5 MATCH expression that cannot be read as FTS5 syntax. Every term is
 * a double-quoted string (FTS5 has no escapes inside a string except a doubled quote, and
 * our terms contain no quote at all), joined with OR so that ranking, not a boolean AND,
 * decides, as a BM25 `match` query does in OpenSearch. Operators (AND, NOT, NEAR, column
 * filters, `*`, `^`, parentheses) in the user's text are therefore plain words or dropped.
 *
 * Stop-words are dropped from the query (not from the index) when the query has any other
 * term. FTS5 has no top-k pruning (no WAND): an OR query computes bm25() for every chunk that
 * holds any of its terms, and "the", "of" or "what" are in most chunks, so one of them turns a
 * query over a few thousand chunks into one over nearly the whole index (at 1M chunks, seconds
 * instead of tens of ms). Their IDF is near zero, so they barely move the ranking anyway
 * (measured: docs/decisions.md, issue 20 keyword leg). A query of stop-words only keeps them.
 * term-df.ts extends the rule to the terms that are common in the index searched.
 */

/** Most distinct terms taken from one query (long pasted text would otherwise scan forever). */
export const MAX_QUERY_TERMS = 64;

/**
 * Lucene's English stop set (what OpenSearch's `stop` filter drops by default) plus the
 * question and auxiliary words that start most questions users ask.
 */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    "a an and are as at be but by for if in into is it no not of on or such that the their then there these " +
    "they this to was will with what which who whom whose when where why how do does did done has have had " +
    "been being were am i me my we our you your he him his she her its them from than so can could would " +
    "should may might shall s t"
  ).split(" "),
);

// Letters, digits, marks and private-use characters: what FTS5's unicode61 tokenizer keeps.
const TERM = /[\p{L}\p{N}\p{M}\p{Co}]+/gu;

/** The distinct terms of `text`, lower-cased, in order, at most MAX_QUERY_TERMS. */
export function queryTerms(text: string): string[] {
  const terms: string[] = [];
  const seen = new Set<string>();
  for (const m of text.normalize("NFKC").toLowerCase().matchAll(TERM)) {
    const t = m[0];
    if (seen.has(t)) continue;
    seen.add(t);
    terms.push(t);
  }
  const content = terms.filter((t) => !STOP_WORDS.has(t));
  // Capped after dropping stop-words, so a long question keeps its content words.
  return (content.length > 0 ? content : terms).slice(0, MAX_QUERY_TERMS);
}

/** The MATCH expression of terms from `queryTerms`, or null when there is none. */
export function matchOf(terms: string[]): string | null {
  return terms.length > 0 ? terms.map((t) => `"${t}"`).join(" OR ") : null;
}

/** The MATCH expression, or null when the text has no searchable term. */
export function ftsMatchExpression(text: string): string | null {
  return matchOf(queryTerms(text));
}
