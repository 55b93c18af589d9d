import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { sharedData } from "../../../test/shared-data.ts";
import { CompanyDirectory, MarketData } from "../reference/index.ts";
import {
  buildTranscriptRecord,
  classifyParticipants,
  countWords,
  extractCallDate,
  parseFileName,
  parsePlainText,
  parseStructured,
  SpeakerMatcher,
  TranscriptFormatError,
  transcriptContext,
  transcriptDocId,
} from "./index.ts";

describe("file names and formats", () => {
  test("TICKER_qN_YYYY names give ticker, quarter and fiscal year", () => {
    expect(parseFileName("HD_q3_2021.json")).toEqual({ ticker: "HD", fiscal_quarter: 3, fiscal_year: 2021 });
    expect(parseFileName("cvs_q4_2021_transcript.txt")).toEqual({
      ticker: "CVS",
      fiscal_quarter: 4,
      fiscal_year: 2021,
    });
    expect(parseFileName("HD_q5_2021.json")).toBeNull();
    expect(parseFileName("HD_q3_2021_summary.txt")).toBeNull();
  });

  test("malformed structured files are refused with a reason", () => {
    expect(() => parseStructured("HD_q3_2021.json", "{not json")).toThrow(TranscriptFormatError);
    expect(() => parseStructured("HD_q3_2021.json", JSON.stringify({ prepared_remarks: [] }))).toThrow(/no prepared/);
    expect(() => parseStructured("HD_q3_2021.json", JSON.stringify({ q_and_a: [{ speaker: "x" }] }))).toThrow(
      /no speech/,
    );
    expect(() => parseStructured("notes.json", "{}")).toThrow(/file name/);
  });

  test("plain text: one utterance per non-empty line, no speakers", () => {
    const p = parsePlainText("PG_q1_2022_transcript.txt", "First line.\n\n  Second line. \n");
    expect(p.utterances).toEqual([
      { section: "text", speaker: null, text: "First line." },
      { section: "text", speaker: null, text: "Second line." },
    ]);
  });

  test("doc_id is a stable UUID v5 of ticker and period", () => {
    const id = transcriptDocId("hd", 2021, 3);
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(transcriptDocId("HD", 2021, 3)).toBe(id);
    expect(transcriptDocId("HD", 2021, 4)).not.toBe(id);
  });
});

describe("participants and speakers", () => {
  const lines = [
    "Isabel Janci--Investor Relations",
    "Matthew D. Ellis--Executive Vice President and Chief Financial Officer",
    "Simeon Gutman--Morgan Stanley -- Analyst",
    "Kash Rangan--Bank of America / Merrill Lynch",
  ];
  const utterances = [
    { section: "q_and_a" as const, speaker: "Operator", text: "Our next question comes from Kash Rangan. Go ahead." },
  ];

  test("'-- Analyst' lines and people the operator introduces as questioners are analysts", () => {
    const p = classifyParticipants(lines, utterances);
    expect(p.executives).toEqual([
      { name: "Isabel Janci", title: "Investor Relations" },
      { name: "Matthew D. Ellis", title: "Executive Vice President and Chief Financial Officer" },
    ]);
    expect(p.analysts).toEqual([
      { name: "Simeon Gutman", firm: "Morgan Stanley" },
      { name: "Kash Rangan", firm: "Bank of America / Merrill Lynch" },
    ]);
  });

  test("speakers match exactly, or by first initial and last name", () => {
    const m = new SpeakerMatcher(classifyParticipants(lines, utterances));
    expect(m.role("Operator")).toBe("operator");
    expect(m.role("Simeon Gutman")).toBe("analyst");
    expect(m.role("Matt Ellis")).toBe("executive");
    expect(m.role("Somebody Else")).toBe("unknown");
    expect(m.role(null)).toBeNull();
  });

  test("words are counted as tokens, with contractions and numbers whole", () => {
    expect(countWords("We're up 9.8% to $36.8 billion, year-over-year.")).toBe(7);
  });
});

describe("call date", () => {
  test("a dated header line or a safe-harbour sentence states the date", () => {
    expect(extractCallDate(["Nov 16, 2021, 9:00 a.m. ET"], [])).toBe("2021-11-16");
    expect(extractCallDate([], ["Our guidance is based on information as of July 28, 2021, and..."])).toBe(
      "2021-07-28",
    );
    expect(extractCallDate([], ["...in our Form 8-K dated October 14, 2021, which may be accessed"])).toBe(
      "2021-10-14",
    );
    expect(extractCallDate([], ["Welcome to the call today, Tuesday, November 16, 2021."])).toBe("2021-11-16");
  });

  test("balances 'as of' a date, impossible dates and missing years are not call dates", () => {
    expect(extractCallDate([], ["We ended with cash as of December 31, 2021 of $2 billion."])).toBeNull();
    expect(extractCallDate(["February 30, 2021"], [])).toBeNull();
    expect(extractCallDate(["Contents:"], ["Disney+ will debut on March 2."])).toBeNull();
  });
});

const dir = sharedData("transcripts", "transcript pipeline");
describe.skipIf(!dir)("real transcripts", () => {
  const root = dir ?? "";
  const ctx = dir ? transcriptContext(dir) : { companies: CompanyDirectory.empty(), market: MarketData.none() };

  test("Home Depot Q3 2021: company, period, people and word counts", () => {
    const file = join(root, "la83la", "HD_q3_2021.json");
    const r = buildTranscriptRecord(parseStructured("HD_q3_2021.json", readFileSync(file, "utf8")), file, ctx);
    const s = r.summary;
    expect(s).toMatchObject({
      ticker: "HD",
      company_name: "HOME DEPOT, INC.",
      exchange: null,
      call_date: null,
      fiscal_year: 2021,
      fiscal_quarter: 3,
      period_label: "Q3 2021",
      market_cap_usd: null,
      stock_price_at_close: null,
    });
    expect(r.cik).toBe("0000354950");
    expect(s.executives.map((e) => e.name)).toContain("Craig Menear");
    expect(s.analysts).toContainEqual({ name: "Simeon Gutman", firm: "Morgan Stanley" });
    expect(s.total_utterances).toBe(r.utterances.length);
    expect(s.total_words).toBe(r.utterances.reduce((n, u) => n + u.word_count, 0));
    expect(s.executive_word_count ?? 0).toBeGreaterThan(5000);
    expect(s.analyst_word_count ?? 0).toBeGreaterThan(500);
    expect((s.executive_word_count ?? 0) + (s.analyst_word_count ?? 0)).toBeLessThanOrEqual(s.total_words ?? 0);
    expect(r.utterances.filter((u) => u.role === "unknown")).toEqual([]);
  });

  test("ServiceNow states its call date in the safe-harbour remarks", () => {
    const file = join(root, "la83la", "NOW_q2_2021.json");
    const r = buildTranscriptRecord(parseStructured("NOW_q2_2021.json", readFileSync(file, "utf8")), file, ctx);
    expect(r.summary.call_date).toBe("2021-07-28");
  });

  test("an ECTSum transcript has no speakers, so no per-role word counts", () => {
    const name = "PG_q1_2022_transcript.txt";
    const r = buildTranscriptRecord(parsePlainText(name, readFileSync(join(root, "ectsum", name), "utf8")), name, ctx);
    expect(r.summary).toMatchObject({ ticker: "PG", company_name: "PROCTER & GAMBLE Co", period_label: "Q1 2022" });
    expect(r.summary.executive_word_count).toBeNull();
    expect(r.summary.analyst_word_count).toBeNull();
    expect(r.summary.executives).toEqual([]);
    expect(r.summary.total_words ?? 0).toBeGreaterThan(1000);
  });
});

describe("market data", () => {
  const market = sharedData("market/daily", "transcript market data");
  test.skipIf(!market)("closing price on a date, or the last close up to four days before", () => {
    const m = new MarketData(market ?? null, null);
    expect(m.closeOn("NVDA", "1999-01-22")).toBeCloseTo(1.640625, 6);
    // 1999-01-23 is a Saturday: Friday's close.
    expect(m.closeOn("NVDA", "1999-01-23")).toBeCloseTo(1.640625, 6);
    expect(m.closeOn("NVDA", "1990-01-01")).toBeNull();
    expect(m.closeOn("HD", "2021-11-16")).toBeNull();
  });
});
