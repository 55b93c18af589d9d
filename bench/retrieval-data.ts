/**
 * Finance retrieval sets in BEIR layout (../shared/data/retrieval, see its MANIFEST.md):
 * corpus {_id,title,text}, queries {_id,text}, qrels.tsv (query-id, corpus-id, score; header).
 * BEIR FiQA-2018 is not obtainable here (the manifest says why); FinanceRAG's re-cast finance
 * QA sets are the closest real sets with judgments.
 */
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { gunzipSync } from "node:zlib";

export interface BeirDoc {
  id: string;
  title: string;
  text: string;
}

export interface RetrievalSet {
  name: string;
  corpus: BeirDoc[];
  /** Judged queries only (FinanceRAG released judgments for ~30% of its queries). */
  queries: { id: string; text: string }[];
  /** query id -> relevant corpus ids (all judgments are binary). */
  qrels: Map<string, Set<string>>;
}

export const DATASETS = ["financebench", "financebench-derived", "finqabench", "finqa", "tatqa", "convfinqa"] as const;
export type DatasetName = (typeof DATASETS)[number];

const FOLDERS: Record<DatasetName, string> = {
  financebench: "FinanceBench",
  "financebench-derived": "FinanceBench",
  finqabench: "FinQABench",
  finqa: "FinQA",
  tatqa: "TATQA",
  convfinqa: "ConvFinQA",
};

export function retrievalRoot(): string {
  const root = process.env.CAIRN_SHARED_DATA ?? resolve(import.meta.dir, "..", "..", "shared", "data");
  return join(root, "retrieval");
}

function readMaybeGz(base: string): string {
  if (existsSync(base)) return readFileSync(base, "utf8");
  if (existsSync(`${base}.gz`)) return gunzipSync(readFileSync(`${base}.gz`)).toString("utf8");
  throw new Error(`${base}(.gz) is missing (set CAIRN_SHARED_DATA to the shared data folder)`);
}

function jsonl<T>(text: string): T[] {
  return text
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as T);
}

export function loadRetrievalSet(name: DatasetName): RetrievalSet {
  const dir = join(retrievalRoot(), "financerag", FOLDERS[name]);
  const corpus = jsonl<{ _id: string; title?: string; text: string }>(readMaybeGz(join(dir, "corpus.jsonl"))).map(
    (d) => ({ id: d._id, title: d.title ?? "", text: d.text }),
  );
  const allQueries = jsonl<{ _id: string; text: string }>(readMaybeGz(join(dir, "queries.jsonl")));
  const qrels = new Map<string, Set<string>>();
  for (const line of readFileSync(join(dir, "qrels.tsv"), "utf8").split("\n").slice(1)) {
    const [q, d, score] = line.trim().split("\t");
    if (!q || !d || Number(score) <= 0) continue;
    if (!qrels.has(q)) qrels.set(q, new Set());
    qrels.get(q)?.add(d);
  }
  if (name === "financebench-derived") addFinanceBenchLabels(corpus, allQueries, qrels);
  const queries = allQueries.filter((q) => qrels.has(q._id)).map((q) => ({ id: q._id, text: q.text }));
  return { name, corpus, queries, qrels };
}

/**
 * FinanceBench's own release labels all 150 questions with evidence pages. Every question
 * equals one FinanceRAG query; 79 of the 189 evidence pages equal (whitespace aside) a
 * FinanceRAG corpus page, so 80 questions get judgments: the 45 released ones and 35 more.
 */
function addFinanceBenchLabels(
  corpus: BeirDoc[],
  queries: { _id: string; text: string }[],
  qrels: Map<string, Set<string>>,
): void {
  const file = join(retrievalRoot(), "financebench", "financebench_open_source.jsonl");
  const squash = (t: string) => t.replace(/\s+/g, " ").trim();
  const byText = new Map(corpus.map((d) => [squash(d.text), d.id]));
  const byQuestion = new Map(queries.map((q) => [q.text.trim(), q._id]));
  for (const row of jsonl<{ question: string; evidence: { evidence_text_full_page: string }[] }>(
    readFileSync(file, "utf8"),
  )) {
    const qid = byQuestion.get(row.question.trim());
    if (!qid) continue;
    for (const ev of row.evidence) {
      const did = byText.get(squash(ev.evidence_text_full_page));
      if (!did) continue;
      if (!qrels.has(qid)) qrels.set(qid, new Set());
      qrels.get(qid)?.add(did);
    }
  }
}
