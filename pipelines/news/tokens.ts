/**
 * One tokenizer for company linking, categories, countries and sentiment, so an alias and
 * the text it must match are always split the same way: words keep inner "&", "." and
 * apostrophes (AT&T, JD.com, don't), hyphens split (Coca-Cola → Coca, Cola), and a
 * possessive "'s" is dropped (Apple's → Apple).
 */

export interface Token {
  /** As written (case kept, possessive removed). */
  text: string;
  lower: string;
  /** Offset in the source string. */
  start: number;
}

const WORD = /[\p{L}\p{N}]+(?:[&.'’][\p{L}\p{N}]+)*/gu;

export function tokenize(s: string): Token[] {
  const out: Token[] = [];
  for (const m of s.matchAll(WORD)) {
    const text = m[0].replace(/['’][sS]$/, "");
    out.push({ text, lower: text.toLowerCase(), start: m.index ?? 0 });
  }
  return out;
}

/** Lower-case word list, for lexicon lookups. */
export function words(s: string): string[] {
  return tokenize(s).map((t) => t.lower);
}

/** True when a token starts with an upper-case letter or a digit (names, not common words). */
export function isCapitalised(t: Token): boolean {
  const c = t.text.charAt(0);
  return c !== c.toLowerCase() || /\d/.test(c);
}
