import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { INCOME_FIELDS, RATIO_FIELDS } from "../../../domain/financials/fields.ts";
import { ingestSecDirectory } from "../../../pipelines/financials/sec/index.ts";
import { startTestService, type TestService } from "../../../test/harness.ts";
import { FIXTURE_CIK, writeSecFixture } from "../../../test/sec-fixture.ts";
import { sharedData } from "../../../test/shared-data.ts";

let svc: TestService;
let key: string;
let dir: string;
beforeAll(async () => {
  svc = await startTestService();
  dir = mkdtempSync(join(tmpdir(), "cairn-fin-routes-"));
  await ingestSecDirectory(writeSecFixture(join(dir, "sec"), { restated: true }), svc.service.financials, {
    marketDir: null,
  });
  key = await svc.apiKey("analyst@example.com", "enterprise");
});
afterAll(async () => {
  await svc.close();
  rmSync(dir, { recursive: true, force: true });
});

const get = (path: string, apiKey: string | null = key) =>
  svc.request(path, apiKey ? { headers: { "x-api-key": apiKey } } : {});

const INCOME_KEYS = [
  "cik",
  "ticker",
  "fiscal_period_code",
  "period_type",
  "report_period",
  "fiscal_year",
  "accession_number",
  ...INCOME_FIELDS,
];

describe("GET /v1/financials/{cik}/income", () => {
  test("spec 2.14 records, newest first, CIK with or without leading zeros", async () => {
    const res = await get("/v1/financials/999999/income");
    expect(res.status).toBe(200);
    const rows = (await res.json()) as Record<string, unknown>[];
    expect(rows.map((r) => `${r.fiscal_year}-${r.fiscal_period_code}`)).toEqual([
      "2023-FY",
      "2022-FY",
      "2022-Q4",
      "2022-Q3",
      "2022-Q2",
      "2022-Q1",
    ]);
    for (const r of rows) expect(Object.keys(r).sort()).toEqual([...INCOME_KEYS].sort());
    expect(rows[1]).toMatchObject({
      cik: FIXTURE_CIK,
      ticker: "ACME",
      period_type: "annual",
      report_period: "2022-12-31",
      accession_number: "0000999999-24-000001",
      revenue: 470,
      research_and_development: null,
    });
    expect(await (await get(`/v1/financials/${FIXTURE_CIK}/income`)).json()).toEqual(rows);
  });

  test("fiscal_year, period and limit filter", async () => {
    const q = (qs: string) =>
      get(`/v1/financials/999999/income?${qs}`).then((r) => r.json() as Promise<{ fiscal_period_code: string }[]>);
    expect((await q("period=Q4")).map((r) => r.fiscal_period_code)).toEqual(["Q4"]);
    expect(await q("fiscal_year=2022")).toHaveLength(5);
    expect(await q("limit=2")).toHaveLength(2);
    expect(await q("fiscal_year=2019")).toEqual([]);
  });

  test("out-of-range or malformed parameters give the section 7 validation body", async () => {
    for (const [qs, loc, type] of [
      ["limit=41", ["query", "limit"], "less_than_equal"],
      ["limit=0", ["query", "limit"], "greater_than_equal"],
      ["limit=abc", ["query", "limit"], "int_parsing"],
      ["period=Q5", ["query", "period"], "enum"],
      ["fiscal_year=twenty", ["query", "fiscal_year"], "int_parsing"],
    ] as const) {
      const res = await get(`/v1/financials/999999/income?${qs}`);
      expect(res.status).toBe(422);
      const body = (await res.json()) as { detail: { loc: string[]; type: string; msg: string; ctx: unknown }[] };
      expect(body.detail[0]).toMatchObject({ loc, type });
      expect(typeof body.detail[0]?.msg).toBe("string");
    }
    const bad = await get("/v1/financials/AAPL/income");
    expect(bad.status).toBe(422);
  });

  test("an unknown CIK is a 404 with a detail message", async () => {
    const res = await get("/v1/financials/123/income");
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ detail: "No company with CIK 0000000123" });
  });

  test("accepts the X-API-Key scheme only", async () => {
    expect((await get("/v1/financials/999999/income", null)).status).toBe(401);
    const token = await svc.token("jwt-only@example.com", "pro");
    const res = await svc.request("/v1/financials/999999/income", { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(401);
  });
});

describe("GET /v1/financials/{cik}/ratios", () => {
  test("spec 2.13 records with every ratio field, nulls where inputs are missing", async () => {
    const res = await get("/v1/financials/0000999999/ratios?period=FY&fiscal_year=2022");
    expect(res.status).toBe(200);
    const [r] = (await res.json()) as Record<string, unknown>[];
    expect(Object.keys(r ?? {}).sort()).toEqual(
      [
        "cik",
        "ticker",
        "fiscal_period",
        "period",
        "currency",
        "report_period",
        "fiscal_year",
        "market_cap_is_trailing",
        "accession_number",
        ...RATIO_FIELDS,
      ].sort(),
    );
    expect(r).toMatchObject({
      fiscal_period: "FY",
      period: "annual",
      currency: "USD",
      market_cap_is_trailing: null,
      current_ratio: 2,
      debt_to_equity: null,
      price_to_earnings_ratio: null,
    });
    expect(r?.revenue_growth).toBeNull();
  });

  test("default limit is 8; limit is bounded by 40", async () => {
    expect(((await (await get("/v1/financials/999999/ratios")).json()) as unknown[]).length).toBe(6);
    expect((await get("/v1/financials/999999/ratios?limit=40")).status).toBe(200);
    expect((await get("/v1/financials/999999/ratios?limit=41")).status).toBe(422);
    expect((await get("/v1/financials/42/ratios")).status).toBe(404);
  });
});

describe("GET /v1/companies/{cik} and revenue segments", () => {
  test("company facts: profile and the latest value per concept", async () => {
    const res = await get("/v1/companies/999999");
    expect(res.status).toBe(200);
    const c = (await res.json()) as {
      cik: string;
      name: string;
      ticker: string;
      facts: { concept: string; value: number }[];
    };
    expect(c).toMatchObject({
      cik: FIXTURE_CIK,
      name: "Acme Corp",
      ticker: "ACME",
      sic: "3571",
      fiscal_year_end: "1231",
    });
    expect(c.facts.find((f) => f.concept === "Revenues")).toMatchObject({ value: 520, period_end: "2023-12-31" });
    expect((await get("/v1/companies/1")).status).toBe(404);
  });

  test("revenue segments: a known company without segment data is an empty list; unknown is 404", async () => {
    expect(await (await get("/v1/financials/999999/revenue-segments")).json()).toEqual([]);
    expect((await get("/v1/financials/7/revenue-segments")).status).toBe(404);
  });

  test("the OpenAPI document declares the routes with the API-key scheme", async () => {
    const doc = (await (await svc.request("/openapi.json")).json()) as {
      paths: Record<string, { get?: { security?: unknown; responses: Record<string, unknown> } }>;
    };
    for (const p of [
      "/v1/financials/{cik}/ratios",
      "/v1/financials/{cik}/income",
      "/v1/financials/{cik}/revenue-segments",
      "/v1/companies/{cik}",
    ]) {
      expect(doc.paths[p]?.get?.security).toEqual([{ apiKeyHeader: [] }]);
      expect(Object.keys(doc.paths[p]?.get?.responses ?? {})).toEqual(
        expect.arrayContaining(["200", "401", "404", "422"]),
      );
    }
  });
});

describe("reads after an ingest", () => {
  test("a re-ingest is visible at once (the response cache follows the store)", async () => {
    const url = "/v1/financials/999999/income?fiscal_year=2022&period=FY";
    const read = async () => ((await (await get(url)).json()) as { revenue: number }[])[0]?.revenue;
    expect(await read()).toBe(470);
    await ingestSecDirectory(writeSecFixture(join(dir, "v1", "sec")), svc.service.financials, { marketDir: null });
    expect(await read()).toBe(460);
    await ingestSecDirectory(writeSecFixture(join(dir, "v2", "sec"), { restated: true }), svc.service.financials, {
      marketDir: null,
    });
    expect(await read()).toBe(470);
  });
});

const sec = sharedData("sec", "financial routes on shared SEC data");
describe.skipIf(!sec)("financial routes on the shared SEC data", () => {
  beforeAll(async () => {
    await ingestSecDirectory(sec as string, svc.service.financials);
  }, 60_000);

  test("Apple: FY2023 income as its 10-K states it, and segment revenue from the 10-Q instance", async () => {
    const [fy] = (await (await get("/v1/financials/320193/income?fiscal_year=2023&period=FY")).json()) as Record<
      string,
      unknown
    >[];
    expect(fy).toMatchObject({
      ticker: "AAPL",
      revenue: 383_285_000_000,
      net_income: 96_995_000_000,
      earnings_per_share: 6.16,
    });
    const segs = (await (await get("/v1/financials/320193/revenue-segments?fiscal_year=2025&period=Q2")).json()) as {
      axis: string;
      accession_number: string;
      segments: { member: string; revenue: number }[];
    }[];
    const products = segs.find((s) => s.axis === "srt:ProductOrServiceAxis");
    expect(products?.accession_number).toBe("0000320193-25-000057");
    expect(products?.segments.find((s) => s.member === "aapl:IPhoneMember")?.revenue).toBe(46_841_000_000);
  });

  test("NVIDIA ratios carry market data from the shared prices (trailing close, split-restated)", async () => {
    const [r] = (await (await get("/v1/financials/1045810/ratios?fiscal_year=2013&period=FY")).json()) as Record<
      string,
      unknown
    >[];
    expect(r?.market_cap_is_trailing).toBe(true);
    expect(typeof r?.price_to_earnings_ratio).toBe("number");
    const [recent] = (await (await get("/v1/financials/1045810/ratios?fiscal_year=2025&period=FY")).json()) as Record<
      string,
      unknown
    >[];
    expect(recent?.market_cap_is_trailing).toBeNull();
    expect(recent?.price_to_earnings_ratio).toBeNull();
  });

  test("Amazon: company known only from its XBRL instance", async () => {
    const c = (await (await get("/v1/companies/1018724")).json()) as { ticker: string; facts: unknown[] };
    expect(c.ticker).toBe("AMZN");
    expect(c.facts).toEqual([]);
    const segs = (await (await get("/v1/financials/1018724/revenue-segments?period=FY&limit=1")).json()) as {
      axis: string;
    }[];
    expect(segs.map((s) => s.axis).sort()).toEqual([
      "srt:ProductOrServiceAxis",
      "srt:StatementGeographicalAxis",
      "us-gaap:StatementBusinessSegmentsAxis",
    ]);
  });
});
