/**
 * Tone with the Loughran-McDonald finance word lists (general-purpose lists misread
 * finance: "liability" or "tax" are not negative there). A topic's tone in a document is
 * the net tone of the sentences that name it: (P - N) / (P + N + 1), in -1..1; the +1
 * keeps one stray word from reading as a verdict. As Loughran and McDonald do, a positive
 * word within three words after a negation ("not", "no", "never", ...) counts as negative.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";

export interface Lexicon {
  positive: ReadonlySet<string>;
  negative: ReadonlySet<string>;
}

const NEGATIONS = new Set(["not", "no", "never", "none", "neither", "nor", "nobody", "without", "cannot"]);
const NEGATION_WINDOW = 3;

function readList(path: string): Set<string> {
  return new Set(
    readFileSync(path, "utf8")
      .split(/\r?\n/)
      .map((w) => w.trim().toLowerCase())
      .filter((w) => /^[a-z][a-z'-]*$/.test(w) && w !== "words"),
  );
}

/** Reads LoughranMcDonald_Positive.csv and _Negative.csv (one word per line) from dir. */
export function loadLoughranMcDonald(dir: string): Lexicon {
  const pos = join(dir, "LoughranMcDonald_Positive.csv");
  const neg = join(dir, "LoughranMcDonald_Negative.csv");
  if (!existsSync(pos) || !existsSync(neg)) throw new Error(`Loughran-McDonald lists not found in ${dir}`);
  return { positive: readList(pos), negative: readList(neg) };
}

export function countTone(lex: Lexicon, toks: readonly string[]): { positive: number; negative: number } {
  let positive = 0;
  let negative = 0;
  toks.forEach((t, i) => {
    if (lex.negative.has(t)) negative++;
    else if (lex.positive.has(t)) {
      const before = toks.slice(Math.max(0, i - NEGATION_WINDOW), i);
      if (before.some((b) => NEGATIONS.has(b))) negative++;
      else positive++;
    }
  });
  return { positive, negative };
}

export function netTone(positive: number, negative: number): number {
  return Math.round(((positive - negative) / (positive + negative + 1)) * 1e4) / 1e4;
}

/** Net tone of the sentences containing the phrase (as consecutive singular-normalised words). */
export function topicTone(
  lex: Lexicon,
  sentenceTokens: readonly string[][],
  matches: (toks: readonly string[]) => boolean,
): number {
  let p = 0;
  let n = 0;
  for (const toks of sentenceTokens) {
    if (!matches(toks)) continue;
    const c = countTone(lex, toks);
    p += c.positive;
    n += c.negative;
  }
  return netTone(p, n);
}
