/**
 * Contract of the research stores (transcripts, 8-K exhibits, topics), run unchanged
 * against every SQL dialect by research-stores.test.ts.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { ResearchStores } from "../../domain/financials/ports.ts";
import type { FilingRecord } from "../../domain/financials/presentations.ts";
import type { TopicDocument, TopicMention } from "../../domain/financials/topics.ts";
import type { TranscriptRecord, TranscriptSourceFormat } from "../../domain/financials/transcripts.ts";

export interface ResearchHarness {
  stores: ResearchStores;
  cleanup(): Promise<void>;
}

function transcript(
  id: string,
  ticker: string,
  year: number,
  quarter: number,
  callDate: string | null,
  format: TranscriptSourceFormat = "structured_json",
): TranscriptRecord {
  return {
    summary: {
      doc_id: id,
      ticker,
      exchange: null,
      company_name: `${ticker} Corp`,
      call_date: callDate,
      fiscal_year: year,
      fiscal_quarter: quarter,
      period_label: `Q${quarter} ${year}`,
      executives: [{ name: "Ann Chief", title: "CEO" }],
      analysts: [{ name: "Bo Asker", firm: "Bank" }],
      total_words: format === "structured_json" ? 300 : 100,
      total_utterances: 2,
      executive_word_count: format === "structured_json" ? 200 : null,
      analyst_word_count: format === "structured_json" ? 100 : null,
      market_cap_usd: 1.5e9,
      stock_price_at_close: 12.25,
      indexed_at: "2025-01-01T00:00:00.000Z",
    },
    cik: "0000000001",
    source_format: format,
    source_file: `${ticker}.json`,
    utterances: [
      { seq: 0, section: "prepared_remarks", speaker: "Ann Chief", role: "executive", text: "Hello.", word_count: 200 },
      { seq: 1, section: "q_and_a", speaker: "Bo Asker", role: "analyst", text: "Why?", word_count: 100 },
    ],
  };
}

function filing(key: string, accession: string | null, exhibits: [string, string][]): FilingRecord {
  return {
    filing_key: key,
    accession_number: accession,
    cik: "0000000042",
    ticker: "XMPL",
    company_name: "Example Corp",
    form_type: "8-K",
    filed_date: "2024-11-22",
    source_file: "x.txt",
    documents: [
      {
        doc_type: "8-K",
        sequence: 1,
        filename: "a.htm",
        description: null,
        doc_type_label: "Current report",
        sec_url: "https://www.sec.gov/a",
        markdown: "# Cover",
      },
      ...exhibits.map(([type, label], i) => ({
        doc_type: type,
        sequence: i + 2,
        filename: `ex${i}.htm`,
        description: null,
        doc_type_label: label,
        sec_url: `https://www.sec.gov/ex${i}`,
        markdown: `# ${label} ${i}`,
      })),
    ],
  };
}

const doc = (id: string, cik: string | null, date: string, source: "transcript" | "filing" = "transcript") =>
  ({
    doc_id: id,
    source_type: source,
    cik,
    ticker: cik ? `T${cik.slice(-1)}` : null,
    company_name: cik === "0000000009" ? null : cik ? `Company ${cik.slice(-1)}` : null,
    doc_date: date,
    date_basis: "call_date",
  }) satisfies TopicDocument;

const mention = (topic: string, docId: string, importance: number, sentiment: number): TopicMention => ({
  topic,
  doc_id: docId,
  importance,
  sentiment,
  mentions: 2,
});

export function runResearchStoresContract(name: string, make: () => Promise<ResearchHarness>): void {
  describe(`research stores contract (${name})`, () => {
    let h: ResearchHarness;
    beforeAll(async () => {
      h = await make();
    });
    afterAll(() => h.cleanup());

    test("transcripts: filters, total, paging and newest-first order with undated calls last", async () => {
      const t = h.stores.transcripts;
      expect(await t.upsert(transcript("a1", "AAA", 2021, 1, "2021-04-20"))).toBe("inserted");
      await t.upsert(transcript("a2", "AAA", 2021, 2, "2021-07-20"));
      await t.upsert(transcript("a3", "AAA", 2021, 3, null));
      await t.upsert(transcript("b1", "BBB", 2021, 2, "2021-07-25"));
      await t.upsert(transcript("b2", "BBB", 2022, 1, "2022-02-01"));

      const all = await t.list({ limit: 20, offset: 0 });
      expect(all.total).toBe(5);
      expect(all.transcripts.map((s) => s.doc_id)).toEqual(["b2", "b1", "a2", "a1", "a3"]);
      expect(all.transcripts[0]).toMatchObject({
        executives: [{ name: "Ann Chief", title: "CEO" }],
        analysts: [{ name: "Bo Asker", firm: "Bank" }],
        market_cap_usd: 1.5e9,
        stock_price_at_close: 12.25,
        fiscal_year: 2022,
        total_words: 300,
      });

      const page = await t.list({ limit: 2, offset: 2 });
      expect(page.total).toBe(5);
      expect(page.transcripts.map((s) => s.doc_id)).toEqual(["a2", "a1"]);
      expect((await t.list({ limit: 2, offset: 10 })).transcripts).toEqual([]);

      const aaa = await t.list({ ticker: "aaa", limit: 20, offset: 0 });
      expect(aaa.total).toBe(3);
      expect((await t.list({ fiscal_year: 2021, fiscal_quarter: 2, limit: 20, offset: 0 })).total).toBe(2);
      const window = await t.list({ from_date: "2021-07-20", to_date: "2021-07-25", limit: 20, offset: 0 });
      expect(window.transcripts.map((s) => s.doc_id)).toEqual(["b1", "a2"]);
      expect((await t.list({ from_date: "2000-01-01", limit: 20, offset: 0 })).total).toBe(4);
    });

    test("transcripts: re-ingest is idempotent and a poorer source never replaces a richer one", async () => {
      const t = h.stores.transcripts;
      expect(await t.upsert(transcript("a1", "AAA", 2021, 1, "2021-04-20"))).toBe("updated");
      expect(await t.upsert(transcript("a1", "AAA", 2021, 1, "2021-04-20", "plain_text"))).toBe("kept_existing");
      expect(await t.upsert(transcript("p1", "PPP", 2021, 1, null, "plain_text"))).toBe("inserted");
      expect(await t.upsert(transcript("p1", "PPP", 2021, 1, null))).toBe("updated");
      const rows = (await t.list({ ticker: "AAA", fiscal_quarter: 1, limit: 20, offset: 0 })).transcripts;
      expect(rows).toHaveLength(1);
      expect(rows[0]?.executive_word_count).toBe(200);
      const texts = await t.texts();
      expect(texts.find((x) => x.doc_id === "a1")?.utterances.map((u) => [u.seq, u.speaker, u.role])).toEqual([
        [0, "Ann Chief", "executive"],
        [1, "Bo Asker", "analyst"],
      ]);
    });

    test("filings: the presentation is the deck over the press release over the 8-K body", async () => {
      const f = h.stores.filings;
      await f.upsertFiling(
        filing("0000000042-24-000001", "0000000042-24-000001", [
          ["EX-99.1", "Press release"],
          ["EX-99.2", "Investor presentation"],
        ]),
      );
      await f.upsertFiling(filing("0000000042-24-000002", "0000000042-24-000002", [["EX-99.1", "Press release"]]));
      await f.upsertFiling(filing("0000000042-24-000003", "0000000042-24-000003", []));
      await f.upsertFiling(filing("file:no-accession", null, [["EX-99.1", "Press release"]]));

      expect(await f.presentation("0000000042-24-000001")).toEqual({
        accession_number: "0000000042-24-000001",
        cik: "0000000042",
        ticker: "XMPL",
        company_name: "Example Corp",
        form_type: "8-K",
        exhibit_type: "EX-99.2",
        doc_type_label: "Investor presentation",
        published_at: "2024-11-22",
        sec_url: "https://www.sec.gov/ex1",
        s3_url: null,
        markdown: "# Investor presentation 1",
      });
      expect((await f.presentation("0000000042-24-000002"))?.exhibit_type).toBe("EX-99.1");
      expect((await f.presentation("0000000042-24-000003"))?.exhibit_type).toBe("8-K");
      expect(await f.presentation("0000000042-24-999999")).toBeNull();
      expect((await f.texts()).filter((x) => x.filing_key === "file:no-accession")).toHaveLength(2);
    });

    test("filings: re-ingesting a filing replaces its documents", async () => {
      const f = h.stores.filings;
      await f.upsertFiling(filing("0000000042-24-000001", "0000000042-24-000001", [["EX-99.1", "Press release"]]));
      expect((await f.presentation("0000000042-24-000001"))?.exhibit_type).toBe("EX-99.1");
      expect((await f.texts()).filter((x) => x.filing_key === "0000000042-24-000001")).toHaveLength(2);
    });

    test("topics: ids are stable across rebuilds, new names get new ids", async () => {
      const t = h.stores.topics;
      const docs = [doc("d1", "0000000001", "2023-01-10"), doc("d2", "0000000001", "2024-06-01")];
      const first = await t.replaceCorpus(docs, [
        mention("supply chain", "d1", 1, 0.5),
        mention("gross margin", "d2", 1, 0),
      ]);
      const second = await t.replaceCorpus(docs, [
        mention("gross margin", "d1", 0.5, 0),
        mention("pricing power", "d2", 1, 0.2),
        mention("supply chain", "d2", 0.8, -0.5),
      ]);
      expect(second.get("supply chain")).toBe(first.get("supply chain") ?? -1);
      expect(second.get("gross margin")).toBe(first.get("gross margin") ?? -1);
      const ids = [...second.values()];
      expect(new Set(ids).size).toBe(3);
      expect(ids.every((id) => Number.isInteger(id) && id > 0)).toBe(true);
    });

    test("topics: per-company aggregates over a date window and source type", async () => {
      const t = h.stores.topics;
      const docs = [
        doc("d1", "0000000001", "2023-01-10"),
        doc("d2", "0000000001", "2024-06-01"),
        doc("f1", "0000000001", "2024-07-01", "filing"),
        doc("x1", "0000000002", "2024-06-01"),
      ];
      await t.replaceCorpus(docs, [
        mention("supply chain", "d1", 1, 0.5),
        mention("supply chain", "d2", 0.5, -0.5),
        mention("supply chain", "f1", 0.6, 0.25),
        mention("gross margin", "d2", 1, 0),
        mention("gross margin", "x1", 1, 0),
      ]);
      const all = await t.extracted("0000000001", {
        date_from: "2020-01-01",
        date_to: "2030-01-01",
        source_type: "all",
        limit: 30,
      });
      expect(all).toEqual([
        {
          topic_name: "supply chain",
          doc_count: 3,
          avg_importance: 0.7,
          avg_sentiment: 0.0833,
          latest_date: "2024-07-01",
          earliest_date: "2023-01-10",
        },
        {
          topic_name: "gross margin",
          doc_count: 1,
          avg_importance: 1,
          avg_sentiment: 0,
          latest_date: "2024-06-01",
          earliest_date: "2024-06-01",
        },
      ]);
      const calls = await t.extracted("0000000001", {
        date_from: "2024-01-01",
        date_to: "2024-12-31",
        source_type: "transcript",
        limit: 1,
      });
      expect(calls.map((x) => [x.topic_name, x.doc_count])).toEqual([["gross margin", 1]]);
      expect(
        await t.extracted("0000000003", {
          date_from: "2020-01-01",
          date_to: "2030-01-01",
          source_type: "all",
          limit: 5,
        }),
      ).toEqual([]);
      expect(await t.companyName("0000000001")).toBe("Company 1");
      expect(await t.companyName("0000000003")).toBeNull();
    });

    test("emerging topics: ids kept per topic, only current ones listed, companies in the window", async () => {
      const t = h.stores.topics;
      await t.replaceCorpus(
        [
          doc("r1", "0000000001", "2025-01-10"),
          doc("r2", "0000000002", "2025-02-10"),
          doc("r3", "0000000009", "2025-02-11"),
          doc("r4", null, "2025-02-12"),
          doc("o1", "0000000003", "2022-01-10"),
        ],
        [
          mention("generative ai", "r1", 1, 0.5),
          mention("generative ai", "r2", 1, 0.5),
          mention("generative ai", "r3", 1, 0.5),
          mention("generative ai", "r4", 1, 0.5),
          mention("generative ai", "o1", 1, 0.5),
          mention("tariff", "r1", 1, -0.5),
        ],
      );
      const window = { window_start: "2024-08-20", window_end: "2025-02-15", baseline_start: "2022-08-20" };
      const gen = { topic: "generative ai", lift: 4, recent_share: 0.75, baseline_share: 0, recent_doc_count: 3 };
      const tariff = { topic: "tariff", lift: 2, recent_share: 0.25, baseline_share: 0, recent_doc_count: 1 };
      const first = await t.replaceEmerging(
        [
          { ...gen, ...window },
          { ...tariff, ...window },
        ],
        "2025-03-01T00:00:00Z",
      );
      expect(first.map((e) => e.topic)).toEqual(["generative ai", "tariff"]);
      const genId = first[0]?.emerging_topic_id ?? -1;

      const second = await t.replaceEmerging([{ ...gen, lift: 5, ...window }], "2025-03-02T00:00:00Z");
      expect(second.map((e) => [e.emerging_topic_id, e.topic, e.lift])).toEqual([[genId, "generative ai", 5]]);
      const third = await t.replaceEmerging([{ ...tariff, ...window }], "2025-03-03T00:00:00Z");
      expect(third[0]?.emerging_topic_id).toBe(first[1]?.emerging_topic_id ?? -1);

      const e = await t.getEmerging(genId);
      expect(e?.topic).toBe("generative ai");
      expect(await t.getEmerging(999_999)).toBeNull();
      if (!e) return;
      const companies = await t.emergingCompanies(e, 20);
      // The 2022 document is outside the window; the CIK-less document names no company.
      expect(companies).toEqual([
        { cik: "0000000009", doc_count: 1, company_name: "", ticker: "T9", latest_date: "2025-02-11" },
        { cik: "0000000002", doc_count: 1, company_name: "Company 2", ticker: "T2", latest_date: "2025-02-10" },
        { cik: "0000000001", doc_count: 1, company_name: "Company 1", ticker: "T1", latest_date: "2025-01-10" },
      ]);
      expect(await t.emergingCompanies(e, 1)).toHaveLength(1);
    });
  });
}
