/**
 * A small synthetic SEC company for tests that must run without the shared data: companyfacts,
 * submissions and company_tickers.json in the layout pipelines/financials/sec reads. Fiscal
 * years are calendar years; FY2022 has three 10-Qs and a 10-K, so Q4 2022 is derived.
 * `restated` adds the FY2023 10-K, which restates FY2022 revenue (restatement wins).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { StoredFact } from "../domain/financials/fields.ts";

export const FIXTURE_CIK = "0000999999";
export const FIXTURE_TICKER = "ACME";

type Entry = {
  start?: string;
  end: string;
  val: number;
  accn: string;
  fy: number;
  fp: string;
  form: string;
  filed: string;
};

const Q1 = { accn: "0000999999-22-000001", fy: 2022, fp: "Q1", form: "10-Q", filed: "2022-05-02" };
const Q2 = { accn: "0000999999-22-000002", fy: 2022, fp: "Q2", form: "10-Q", filed: "2022-08-01" };
const Q3 = { accn: "0000999999-22-000003", fy: 2022, fp: "Q3", form: "10-Q", filed: "2022-11-01" };
const K22 = { accn: "0000999999-23-000001", fy: 2022, fp: "FY", form: "10-K", filed: "2023-02-15" };
const K23 = { accn: "0000999999-24-000001", fy: 2023, fp: "FY", form: "10-K", filed: "2024-02-15" };
/** A proxy statement filed after the 10-K that tags net income (pay-versus-performance). */
const PROXY = { accn: "0001111111-23-000009", fy: 2022, fp: "FY", form: "DEF 14A", filed: "2023-04-01" };

const span = (start: string, end: string) => ({ start, end });
const Q1S = span("2022-01-01", "2022-03-31");
const Q2S = span("2022-04-01", "2022-06-30");
const Q3S = span("2022-07-01", "2022-09-30");
const H1 = span("2022-01-01", "2022-06-30");
const M9 = span("2022-01-01", "2022-09-30");
const FY22 = span("2022-01-01", "2022-12-31");
const FY23 = span("2023-01-01", "2023-12-31");

function facts(restated: boolean): Record<string, Record<string, Entry[]>> {
  const e = (s: { start?: string; end: string }, val: number, f: typeof Q1): Entry => ({ ...s, val, ...f });
  const usd: Record<string, Entry[]> = {
    Revenues: [
      e(Q1S, 100, Q1),
      e(Q2S, 110, Q2),
      e(H1, 210, Q2),
      e(Q3S, 120, Q3),
      e(M9, 330, Q3),
      e(FY22, 460, K22),
      ...(restated ? [e(FY22, 470, K23), e(FY23, 520, K23)] : []),
    ],
    CostOfRevenue: [
      e(Q1S, 60, Q1),
      e(Q2S, 64, Q2),
      e(Q3S, 70, Q3),
      e(FY22, 270, K22),
      ...(restated ? [e(FY22, 270, K23), e(FY23, 300, K23)] : []),
    ],
    OperatingIncomeLoss: [
      e(Q1S, 20, Q1),
      e(Q2S, 22, Q2),
      e(Q3S, 25, Q3),
      e(FY22, 60, K22),
      ...(restated ? [e(FY22, 62, K23), e(FY23, 80, K23)] : []),
    ],
    NetIncomeLoss: [
      e(Q1S, 10, Q1),
      e(Q2S, 12, Q2),
      e(Q3S, 14, Q3),
      e(FY22, 30, K22),
      e(FY22, 30, PROXY),
      ...(restated ? [e(FY22, 31, K23), e(FY23, 40, K23)] : []),
    ],
    NetCashProvidedByUsedInOperatingActivities: [e(Q1S, 15, Q1), e(H1, 32, Q2), e(M9, 50, Q3), e(FY22, 70, K22)],
    PaymentsToAcquirePropertyPlantAndEquipment: [e(Q1S, 5, Q1), e(H1, 9, Q2), e(M9, 14, Q3), e(FY22, 20, K22)],
    Assets: [e({ end: "2022-03-31" }, 1000, Q1), e({ end: "2022-12-31" }, 1200, K22)],
    AssetsCurrent: [e({ end: "2022-03-31" }, 400, Q1), e({ end: "2022-12-31" }, 500, K22)],
    LiabilitiesCurrent: [e({ end: "2022-03-31" }, 200, Q1), e({ end: "2022-12-31" }, 250, K22)],
    StockholdersEquity: [e({ end: "2022-03-31" }, 600, Q1), e({ end: "2022-12-31" }, 700, K22)],
    CashAndCashEquivalentsAtCarryingValue: [e({ end: "2022-12-31" }, 150, K22)],
    AccountsReceivableNetCurrent: [e({ end: "2022-12-31" }, 92, K22)],
  };
  return {
    "us-gaap": {
      ...usd,
      EarningsPerShareBasic: [e(Q1S, 1.0, Q1), e(Q2S, 1.2, Q2), e(Q3S, 1.4, Q3), e(FY22, 3.0, K22)],
      WeightedAverageNumberOfSharesOutstandingBasic: [e(Q1S, 10, Q1), e(Q2S, 10, Q2), e(Q3S, 10, Q3), e(FY22, 10, K22)],
      CommonStockSharesOutstanding: [e({ end: "2022-12-31" }, 10, K22)],
    },
  };
}

const UNIT: Record<string, string> = {
  EarningsPerShareBasic: "USD/shares",
  WeightedAverageNumberOfSharesOutstandingBasic: "shares",
  CommonStockSharesOutstanding: "shares",
};

export function fixtureCompanyFacts(restated = false): unknown {
  const body: Record<string, Record<string, { label: string; units: Record<string, Entry[]> }>> = {};
  for (const [tax, concepts] of Object.entries(facts(restated))) {
    body[tax] = {};
    for (const [concept, list] of Object.entries(concepts))
      (body[tax] as Record<string, unknown>)[concept] = { label: concept, units: { [UNIT[concept] ?? "USD"]: list } };
  }
  return { cik: 999999, entityName: "Acme Corp", facts: body };
}

/** The same facts as StoredFact rows (for domain tests). */
export function fixtureFacts(restated = false): StoredFact[] {
  const out: StoredFact[] = [];
  for (const [taxonomy, concepts] of Object.entries(facts(restated)))
    for (const [concept, list] of Object.entries(concepts))
      for (const x of list)
        out.push({
          taxonomy,
          concept,
          unit: UNIT[concept] ?? "USD",
          start: x.start ?? null,
          end: x.end,
          val: x.val,
          accn: x.accn,
          fy: x.fy,
          fp: x.fp,
          form: x.form,
          filed: x.filed,
          frame: null,
        });
  return out;
}

export function fixtureSubmissions(restated = false): unknown {
  const filings = [Q1, Q2, Q3, K22, PROXY, ...(restated ? [K23] : [])].reverse();
  return {
    cik: FIXTURE_CIK,
    name: "Acme Corp",
    tickers: [FIXTURE_TICKER],
    exchanges: ["Nasdaq"],
    sic: "3571",
    sicDescription: "Electronic Computers",
    fiscalYearEnd: "1231",
    stateOfIncorporation: "DE",
    filings: {
      recent: {
        accessionNumber: filings.map((f) => f.accn),
        filingDate: filings.map((f) => f.filed),
        reportDate: filings.map((f) =>
          f.fp === "FY" ? `${f.fy}-12-31` : f === Q1 ? "2022-03-31" : f === Q2 ? "2022-06-30" : "2022-09-30",
        ),
        form: filings.map((f) => f.form),
        primaryDocument: filings.map((f) => `${f.accn}.htm`),
      },
    },
  };
}

/** Writes the fixture in the sec/ layout under `dir` (created). */
export function writeSecFixture(dir: string, opts: { restated?: boolean } = {}): string {
  mkdirSync(join(dir, "companyfacts"), { recursive: true });
  mkdirSync(join(dir, "submissions"), { recursive: true });
  writeFileSync(
    join(dir, "companyfacts", `CIK${FIXTURE_CIK}.json`),
    JSON.stringify(fixtureCompanyFacts(opts.restated)),
  );
  writeFileSync(join(dir, "submissions", `CIK${FIXTURE_CIK}.json`), JSON.stringify(fixtureSubmissions(opts.restated)));
  writeFileSync(
    join(dir, "company_tickers.json"),
    JSON.stringify({ "0": { cik_str: 999999, ticker: FIXTURE_TICKER, title: "ACME CORP" } }),
  );
  return dir;
}
