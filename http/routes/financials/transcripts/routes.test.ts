import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ingestTranscriptsDirectory } from "../../../../pipelines/financials/transcripts/index.ts";
import { startTestService, type TestService } from "../../../../test/harness.ts";
import { sharedData } from "../../../../test/shared-data.ts";

const SUMMARY_KEYS = [
  "analyst_word_count",
  "analysts",
  "call_date",
  "company_name",
  "doc_id",
  "exchange",
  "executive_word_count",
  "executives",
  "fiscal_quarter",
  "fiscal_year",
  "indexed_at",
  "market_cap_usd",
  "period_label",
  "stock_price_at_close",
  "ticker",
  "total_utterances",
  "total_words",
];

interface Page {
  total: number;
  limit: number;
  offset: number;
  transcripts: Record<string, unknown>[];
}

const dir = sharedData("transcripts", "transcript routes");
describe.skipIf(!dir)("GET /v1/transcripts", () => {
  let svc: TestService;
  let key: string;
  const get = async (query = "") => svc.request(`/v1/transcripts${query}`, { headers: { "x-api-key": key } });
  const page = async (query = "") => (await (await get(query)).json()) as Page;

  beforeAll(async () => {
    svc = await startTestService();
    key = await svc.apiKey("transcripts@example.com", "enterprise");
    await ingestTranscriptsDirectory(svc.service.research, dir ?? "");
  });
  afterAll(() => svc.close());

  test("needs an API key", async () => {
    expect((await svc.request("/v1/transcripts")).status).toBe(401);
    const token = await svc.token("transcripts@example.com");
    expect((await svc.request("/v1/transcripts", { headers: { authorization: `Bearer ${token}` } })).status).toBe(401);
  });

  test("defaults: the first 20 of every call, each a spec 2.15 summary", async () => {
    const res = await get();
    expect(res.status).toBe(200);
    const body = (await res.json()) as Page;
    // 12 structured calls + 4 plain-text ones, one of which (HD Q3 2021) is the same call.
    expect(body.total).toBe(15);
    expect(body.limit).toBe(20);
    expect(body.offset).toBe(0);
    expect(body.transcripts).toHaveLength(15);
    for (const t of body.transcripts) expect(Object.keys(t).sort()).toEqual(SUMMARY_KEYS);
    // Dated calls first, newest first.
    expect(body.transcripts.slice(0, 2).map((t) => [t.ticker, t.call_date])).toEqual([
      ["UNH", "2021-10-14"],
      ["NOW", "2021-07-28"],
    ]);
  });

  test("limit and offset page through the same order", async () => {
    const all = (await page("?limit=100")).transcripts.map((t) => t.doc_id);
    const second = await page("?limit=5&offset=5");
    expect(second.total).toBe(15);
    expect(second.limit).toBe(5);
    expect(second.offset).toBe(5);
    expect(second.transcripts.map((t) => t.doc_id)).toEqual(all.slice(5, 10));
    const past = await page("?offset=40");
    expect(past.total).toBe(15);
    expect(past.transcripts).toEqual([]);
  });

  test("ticker, fiscal year and quarter filters", async () => {
    const hd = await page("?ticker=hd");
    expect(hd.total).toBe(1);
    expect(hd.transcripts[0]).toMatchObject({
      ticker: "HD",
      company_name: "HOME DEPOT, INC.",
      period_label: "Q3 2021",
      fiscal_year: 2021,
      fiscal_quarter: 3,
      exchange: null,
    });
    // The structured source won over the plain-text copy of the same call.
    expect(hd.transcripts[0]?.executive_word_count).toBeGreaterThan(0);
    expect(hd.transcripts[0]?.analysts).toHaveLength(10);
    expect((await page("?fiscal_year=2022")).transcripts.map((t) => t.ticker).sort()).toEqual(["CRM", "DIS", "PG"]);
    expect((await page("?fiscal_quarter=4")).total).toBe(6);
    expect((await page("?fiscal_year=2021&fiscal_quarter=3&ticker=UNH")).total).toBe(1);
    expect((await page("?ticker=ZZZZ")).total).toBe(0);
  });

  test("from_date and to_date bound the call date; undated calls never match", async () => {
    expect((await page("?from_date=2021-07-01")).transcripts.map((t) => t.ticker)).toEqual(["UNH", "NOW"]);
    expect((await page("?to_date=2021-08-01")).transcripts.map((t) => t.ticker)).toEqual(["NOW"]);
    expect((await page("?from_date=2021-07-28&to_date=2021-07-28")).total).toBe(1);
  });

  test("out-of-range and malformed parameters give the section 7 validation body", async () => {
    const cases: [string, string, string][] = [
      ["?limit=0", "limit", "greater_than_equal"],
      ["?limit=101", "limit", "less_than_equal"],
      ["?offset=-1", "offset", "greater_than_equal"],
      ["?fiscal_quarter=5", "fiscal_quarter", "less_than_equal"],
      ["?fiscal_quarter=0", "fiscal_quarter", "greater_than_equal"],
      ["?fiscal_year=abc", "fiscal_year", "int_parsing"],
      ["?from_date=2021-13-01", "from_date", "date_from_datetime_parsing"],
    ];
    for (const [query, field, type] of cases) {
      const res = await get(query);
      expect(res.status).toBe(422);
      const body = (await res.json()) as { detail: { loc: string[]; type: string; msg: string }[] };
      expect(body.detail[0]?.loc).toEqual(["query", field]);
      expect(body.detail[0]?.type).toBe(type);
    }
    const reversed = await get("?from_date=2022-01-01&to_date=2021-01-01");
    expect(reversed.status).toBe(422);
  });

  test("re-ingesting changes nothing but indexed_at", async () => {
    const before = (await page("?limit=100")).transcripts;
    const report = await ingestTranscriptsDirectory(svc.service.research, dir ?? "");
    expect(report).toMatchObject({ files: 16, inserted: 0, updated: 15, kept_existing: 1, skipped: [] });
    const after = (await page("?limit=100")).transcripts;
    const strip = (ts: Record<string, unknown>[]) => ts.map(({ indexed_at: _, ...t }) => t);
    expect(strip(after)).toEqual(strip(before));
  });
});
