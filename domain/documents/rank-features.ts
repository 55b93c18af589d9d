/**
 * Features of one (query, candidate chunk) pair for the learned reranker (rerank.ts), computed
 * from what every index adapter returns with a hit — the legs' ranks, the fused order, the
 * chunk's text and its document's filename — never from engine-specific scores (FTS5's and
 * OpenSearch's BM25 live on different scales; ranks do not). Pure and deterministic: the
 * evaluation harness dumps exactly these vectors for training (bench/retrieval-eval.ts,
 * lab/src/lab/ranking), and the service computes the same ones at query time.
 *
 * "Term" = a run of letters/digits, lower-cased (as the keyword leg tokenises), minus a short
 * English stop list: the features measure how much of the question's content a chunk carries,
 * which BM25 over OR-ed terms and a 384-d sentence vector both blur. Term rarity is taken
 * within the candidate set (how many of the candidates contain the term), so no corpus
 * statistics are needed.
 */

export interface RankCandidate {
  text: string;
  /** The document's filename (or title): questions often name the company or filing. */
  filename: string;
  /** 1-based rank in each leg, null when the leg did not return the chunk. */
  ranks: { bm25: number | null; dense: number | null };
}

/** Feature names, in vector order; the model file lists them too and must match. */
export const FEATURE_NAMES = [
  "bm25_rr", // 10 / (10 + bm25 rank), 0 when absent
  "dense_rr", // 10 / (10 + dense rank), 0 when absent
  "fused_rr", // 10 / (10 + position in the fused list)
  "both_legs", // 1 when both legs returned it
  "cover", // share of the question's distinct terms found in the chunk
  "cover_rare", // the same, each term weighted by its rarity among the candidates
  "bigram_cover", // share of the question's adjacent term pairs found adjacent in the chunk
  "num_cover", // share of the question's numbers (years, amounts) found in the chunk; 0 without numbers
  "head_cover", // share of the question's terms in the filename and the chunk's first line
  "q_has_num", // the question has a number
  "q_len", // log2(1 + distinct question terms) / 6
  "c_len", // log2(1 + chunk characters) / 12
  "bm25_rr_x_qlen", // interactions a linear model cannot form itself: long (pasted, dialogue)
  "dense_rr_x_qlen", //   questions favour the keyword leg, short natural ones the vector leg
  "dense_rr_x_qnum",
  "bm25_rr_x_qnum",
] as const;

const STOP = new Set(
  (
    "a an and are as at be by did do does for from has have how in is it its of on or over per " +
    "the their this to was were what when which who will with during than that between by year " +
    "years total amount value"
  ).split(" "),
);

const NON_TERM = /[^\p{L}\p{N}]+/u;
// NFKC changes nothing in plain ASCII and is the costly step, so ASCII text skips it.
const NON_ASCII = /[^\p{ASCII}]/u;
// Numbers as written in finance text: 2019, 1,234.5, 3.5, -12 (signs and % are not part of it).
const NUMBER = /\d[\d,]*(?:\.\d+)?/g;

const NON_TERM_ASCII = /[^a-z0-9]+/;

export function terms(text: string): string[] {
  // Plain ASCII (most filings) takes a faster split with the same result; NFKC is a no-op there.
  const ascii = !NON_ASCII.test(text);
  const norm = (ascii ? text : text.normalize("NFKC")).toLowerCase();
  const out: string[] = [];
  for (const t of norm.split(ascii ? NON_TERM_ASCII : NON_TERM)) if (t.length > 0 && !STOP.has(t)) out.push(t);
  return out;
}

/** Numbers with thousands separators and trailing zeros of a decimal dropped: "1,200.50" → "1200.5". */
export function numbers(text: string): Set<string> {
  const out = new Set<string>();
  for (const m of text.matchAll(NUMBER)) {
    let n = m[0].replaceAll(",", "");
    if (n.includes(".")) n = n.replace(/0+$/, "").replace(/\.$/, "");
    if (n.length > 0) out.add(n);
  }
  return out;
}

function bigrams(ts: string[]): Set<string> {
  const out = new Set<string>();
  for (let i = 1; i < ts.length; i++) out.add(`${ts[i - 1]} ${ts[i]}`);
  return out;
}

/** The question's adjacent pairs that occur adjacent in the chunk (only question terms are paired). */
function bigramsFound(ts: string[], qTerms: Set<string>, qBigrams: Set<string>): Set<string> {
  const out = new Set<string>();
  for (let i = 1; i < ts.length; i++) {
    const a = ts[i - 1] as string;
    const b = ts[i] as string;
    if (qTerms.has(a) && qTerms.has(b)) {
      const pair = `${a} ${b}`;
      if (qBigrams.has(pair)) out.add(pair);
    }
  }
  return out;
}

const share = (wanted: Set<string>, have: Set<string>) => {
  if (wanted.size === 0) return 0;
  let n = 0;
  for (const w of wanted) if (have.has(w)) n++;
  return n / wanted.size;
};

const rr = (rank: number | null) => (rank === null ? 0 : 10 / (10 + rank));

/** One feature vector per candidate (candidates in fused order, best first). */
export function rankFeatures(query: string, candidates: RankCandidate[]): number[][] {
  const qTermList = terms(query);
  const qTerms = new Set(qTermList);
  const qBigrams = bigrams(qTermList);
  const qNums = numbers(query);
  const qLen = Math.log2(1 + qTerms.size) / 6;
  const qHasNum = qNums.size > 0 ? 1 : 0;
  const parsed = candidates.map((c) => {
    const ts = terms(c.text);
    const firstLine = (c.text.split("\n", 1)[0] ?? "").slice(0, 200); // a title line, not a paragraph
    return {
      terms: new Set(ts),
      bigrams: bigramsFound(ts, qTerms, qBigrams),
      nums: numbers(c.text),
      head: new Set(terms(`${c.filename.replace(/\.[a-z0-9]+$/i, "")} ${firstLine}`.replaceAll("_", " "))),
    };
  });
  // Rarity within the candidate set: a term every candidate has tells them apart not at all.
  const df = new Map<string, number>();
  for (const t of qTerms) df.set(t, parsed.filter((p) => p.terms.has(t)).length);
  const idf = (t: string) => Math.log((candidates.length + 1) / ((df.get(t) ?? 0) + 0.5));
  let idfSum = 0;
  for (const t of qTerms) idfSum += idf(t);
  return candidates.map((c, i) => {
    const p = parsed[i] as (typeof parsed)[number];
    let rare = 0;
    for (const t of qTerms) if (p.terms.has(t)) rare += idf(t);
    const b = rr(c.ranks.bm25);
    const d = rr(c.ranks.dense);
    return [
      b,
      d,
      rr(i + 1),
      c.ranks.bm25 !== null && c.ranks.dense !== null ? 1 : 0,
      share(qTerms, p.terms),
      idfSum > 0 ? rare / idfSum : 0,
      share(qBigrams, p.bigrams),
      share(qNums, p.nums),
      share(qTerms, p.head),
      qHasNum,
      qLen,
      Math.log2(1 + c.text.length) / 12,
      b * qLen,
      d * qLen,
      d * qHasNum,
      b * qHasNum,
    ];
  });
}
