/**
 * User text → an FTS5 MATCH expression that cannot be read as FTS5 syntax. Every term is
 * a double-quoted string (FTS5 has no escapes inside a string except a doubled quote, and
 * our terms contain no quote at all), joined with OR so that ranking, not a boolean AND,
 * decides, as a BM25 `match` query does in OpenSearch. Operators (AND, NOT, NEAR, column
 * filters, `*`, `^`, parentheses) in the user's text are therefore plain words or dropped.
 */

/** Most distinct terms taken from one query (long pasted text would otherwise scan forever). */
export const MAX_QUERY_TERMS = 64;

// Letters, digits, marks and private-use characters: what FTS5's unicode61 tokenizer keeps.
const TERM = /[\p{L}\p{N}\p{M}\p{Co}]+/gu;

/** The MATCH expression, or null when the text has no searchable term. */
export function ftsMatchExpression(text: string): string | null {
  const terms: string[] = [];
  const seen = new Set<string>();
  for (const m of text.normalize("NFKC").toLowerCase().matchAll(TERM)) {
    const t = m[0];
    if (seen.has(t)) continue;
    seen.add(t);
    terms.push(`"${t}"`);
    if (terms.length >= MAX_QUERY_TERMS) break;
  }
  return terms.length > 0 ? terms.join(" OR ") : null;
}
