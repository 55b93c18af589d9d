import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { TopicDocument, TopicMention } from "../../../domain/financials/topics.ts";
import { sharedData } from "../../../test/shared-data.ts";
import {
  candidates,
  countTone,
  DEFAULT_EMERGING_OPTIONS,
  detectEmergingTopics,
  type Lexicon,
  loadLoughranMcDonald,
  netTone,
  scoreDocuments,
  sentences,
  singular,
  tokens,
  topicKey,
} from "./index.ts";

describe("text", () => {
  test("sentences split on end punctuation before a capital, and on line breaks", () => {
    expect(sentences("Sales rose 9.8%. Comps were up.\nThanks! next")).toEqual([
      "Sales rose 9.8%.",
      "Comps were up.",
      "Thanks! next",
    ]);
  });

  test("tokens are lower case, possessives dropped, phrase-breaking punctuation kept as |", () => {
    expect(tokens("Home Depot's Pro customers, year-over-year")).toEqual([
      "home",
      "depot",
      "pro",
      "customers",
      "|",
      "year-over-year",
    ]);
  });

  test("the head noun is made singular; sales, states and -ss words are left alone", () => {
    expect(["customers", "companies", "businesses", "sales", "states", "loss", "analysis"].map(singular)).toEqual([
      "customer",
      "company",
      "business",
      "sales",
      "states",
      "loss",
      "analysis",
    ]);
    expect(topicKey(["pro", "customers"])).toBe("pro customer");
  });

  test("candidates are n-grams of content-word runs, without excluded names", () => {
    const c = candidates("We think the supply chain was tight. Supply chain costs rose, Craig said. Home Depot grew.", {
      words: new Set(["craig"]),
      phrases: ["home depot"],
    });
    expect(c.counts.get("supply chain")).toBe(2);
    expect(c.counts.get("supply chain cost")).toBe(1);
    expect([...c.counts.keys()].some((k) => k.includes("craig") || k.includes("home depot"))).toBe(false);
    expect(c.counts.has("think")).toBe(false);
  });

  test("scores favour phrases frequent here and rare elsewhere; overlapping ones give way", () => {
    const docs = [
      candidates("Supply chain pressure. Supply chain pressure. Gross margin. Gross margin."),
      candidates("Gross margin. Gross margin. Cloud revenue. Cloud revenue."),
      candidates("Gross margin. Gross margin. Store traffic. Store traffic."),
    ];
    const [first] = scoreDocuments(docs, { perDocument: 5, minCount: 2 });
    expect(first?.top[0]).toEqual({ topic: "supply chain pressure", importance: 1, count: 2 });
    // "supply chain" is inside the chosen phrase; "gross margin" is everywhere, so scores lower.
    expect(first?.top.map((t) => t.topic)).toEqual(["supply chain pressure", "gross margin"]);
    expect(first?.top[1]?.importance ?? 1).toBeLessThan(1);
  });
});

describe("emerging topics", () => {
  // Three years of documents; "generative ai" appears only in the last 180 days, in most
  // documents of three companies, while "gross margin" is everywhere all the time.
  const docs: TopicDocument[] = [];
  const mentions: TopicMention[] = [];
  const add = (id: string, cik: string, date: string, topics: string[]) => {
    docs.push({
      doc_id: id,
      source_type: "transcript",
      cik,
      ticker: null,
      company_name: null,
      doc_date: date,
      date_basis: "call_date",
    });
    for (const t of topics) mentions.push({ topic: t, doc_id: id, importance: 1, sentiment: 0, mentions: 3 });
  };
  for (let q = 0; q < 10; q++) {
    const date = new Date(Date.UTC(2022, 3 * q, 15)).toISOString().slice(0, 10);
    add(`old-a-${q}`, "1", date, ["gross margin", "store traffic"]);
    add(`old-b-${q}`, "2", date, ["gross margin"]);
  }
  add("new-a", "1", "2024-11-15", ["gross margin", "generative ai"]);
  add("new-b", "2", "2024-12-15", ["generative ai", "gross margin"]);
  add("new-c", "3", "2025-01-15", ["generative ai"]);
  add("new-d", "3", "2025-02-15", ["store traffic"]);

  test("a topic that rises across companies in the recent window emerges; steady ones do not", () => {
    const found = detectEmergingTopics(docs, mentions);
    expect(found.map((e) => e.topic)).toEqual(["generative ai"]);
    const [e] = found;
    expect(e?.window_end).toBe("2025-02-15");
    expect(e?.window_start).toBe("2024-08-20"); // 180 days ending 2025-02-15
    expect(e?.recent_doc_count).toBe(3);
    expect(e?.recent_share).toBe(0.75);
    expect(e?.baseline_share).toBe(0);
    expect(e?.lift ?? 0).toBeGreaterThan(DEFAULT_EMERGING_OPTIONS.minLift);
  });

  test("one company alone does not make a topic emerge", () => {
    const solo = mentions.filter((m) => m.topic !== "generative ai" || m.doc_id === "new-c");
    solo.push({ topic: "generative ai", doc_id: "new-d", importance: 1, sentiment: 0, mentions: 2 });
    expect(detectEmergingTopics(docs, solo)).toEqual([]);
  });
});

const lm = sharedData("news/sentiment", "sentiment");
describe.skipIf(!lm)("Loughran-McDonald tone", () => {
  const lex: Lexicon = lm
    ? loadLoughranMcDonald(join(lm, "loughran_mcdonald"))
    : { positive: new Set(), negative: new Set() };

  test("finance word lists, with negated positives counted as negative", () => {
    // In the lists: strong, improved, profitability (positive), loss (negative); not "growth".
    expect(countTone(lex, tokens("Strong growth and improved profitability, with a loss"))).toEqual({
      positive: 3,
      negative: 1,
    });
    expect(countTone(lex, tokens("Results were not strong"))).toEqual({ positive: 0, negative: 1 });
    expect(netTone(3, 0)).toBe(0.75);
    expect(netTone(0, 0)).toBe(0);
  });

  test("agrees with the Financial PhraseBank labels on sentences it scores", () => {
    const rows = readFileSync(join(lm ?? "", "financial_phrasebank_all-data.csv"), "latin1")
      .split(/\r?\n/)
      .slice(1);
    let right = 0;
    let scored = 0;
    for (const row of rows) {
      const m = /^(positive|negative),"?(.*?)"?$/.exec(row);
      if (!m?.[1] || !m[2]) continue;
      const c = countTone(lex, tokens(m[2]));
      if (c.positive === c.negative) continue;
      scored++;
      if (c.positive > c.negative === (m[1] === "positive")) right++;
    }
    expect(scored).toBeGreaterThan(500);
    expect(right / scored).toBeGreaterThan(0.7);
  });
});
