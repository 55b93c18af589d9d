/**
 * Independent checks for the correctness suite. Everything here reads the companyfacts JSON
 * directly (not through the pipeline's parser or derivation) and recomputes what a filing
 * itself says; the served records are only compared against it.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { IncomeStatementRecord, RatioRecord } from "../../domain/financials/fields.ts";

export interface Check {
  kind: string;
  cik: string;
  what: string;
  pass: boolean;
  detail: string;
}

interface Raw {
  tax: string;
  concept: string;
  unit: string;
  start: string | null;
  end: string;
  val: number;
  accn: string;
  fy: number | null;
  fp: string | null;
  form: string;
  filed: string;
}

type Json = { facts: Record<string, Record<string, { units: Record<string, Record<string, unknown>[]> }>> };

function flatten(raw: unknown): Raw[] {
  const out: Raw[] = [];
  for (const [tax, concepts] of Object.entries((raw as Json).facts))
    for (const [concept, body] of Object.entries(concepts))
      for (const [unit, list] of Object.entries(body.units))
        for (const x of list)
          out.push({
            tax,
            concept,
            unit,
            start: typeof x.start === "string" ? x.start : null,
            end: String(x.end),
            val: Number(x.val),
            accn: String(x.accn),
            fy: typeof x.fy === "number" ? x.fy : null,
            fp: typeof x.fp === "string" ? x.fp : null,
            form: String(x.form),
            filed: String(x.filed),
          });
  return out;
}

const days = (a: string, b: string) => (Date.parse(b) - Date.parse(a)) / 86_400_000 + 1;
const isAnnual = (f: Raw) => f.start !== null && days(f.start, f.end) >= 350 && days(f.start, f.end) <= 380;
const isQuarter = (f: Raw) => f.start !== null && days(f.start, f.end) >= 80 && days(f.start, f.end) <= 100;
const ANNUAL_FORMS = new Set(["10-K", "20-F"]);
const REPORT_FORMS = /^(10-K|10-Q|20-F)(\/A)?$/;

/** Each report's own period: the latest end among its durations of the given length. */
function ownPeriods(
  facts: Raw[],
  form: "10-K" | "10-Q",
): Map<string, { end: string; fy: number | null; fp: string | null }> {
  const out = new Map<string, { end: string; fy: number | null; fp: string | null }>();
  for (const f of facts) {
    if ((form === "10-K" ? !ANNUAL_FORMS.has(f.form) : f.form !== "10-Q") || f.start === null) continue;
    if (form === "10-K" ? !isAnnual(f) : !isQuarter(f)) continue;
    if (f.end > f.filed) continue; // a period ending after the filing date is a tagging error, not the report's period
    const cur = out.get(f.accn);
    if (!cur || f.end > cur.end) out.set(f.accn, { end: f.end, fy: f.fy, fp: f.fp });
  }
  return out;
}

/** A line as its own report states it: the first listed concept the report tags for its period. */
const LINES: Record<string, string[]> = {
  revenue: [
    "us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax",
    "us-gaap:Revenues",
    "us-gaap:SalesRevenueNet",
    "us-gaap:RevenueFromContractWithCustomerIncludingAssessedTax",
    "ifrs-full:Revenue",
  ],
  cost_of_revenue: [
    "us-gaap:CostOfRevenue",
    "us-gaap:CostOfGoodsAndServicesSold",
    "us-gaap:CostOfGoodsSold",
    "ifrs-full:CostOfSales",
  ],
  operating_income: ["us-gaap:OperatingIncomeLoss", "ifrs-full:ProfitLossFromOperatingActivities"],
  // Net income attributable to the parent: US GAAP NetIncomeLoss, IFRS profit attributable to owners.
  net_income: [
    "us-gaap:NetIncomeLoss",
    "us-gaap:ProfitLoss",
    "us-gaap:NetIncomeLossAvailableToCommonStockholdersBasic",
    "ifrs-full:ProfitLossAttributableToOwnersOfParent",
    "ifrs-full:ProfitLoss",
  ],
  research_and_development: ["us-gaap:ResearchAndDevelopmentExpense"],
  selling_general_and_administrative_expenses: ["us-gaap:SellingGeneralAndAdministrativeExpense"],
};

const qname = (f: Raw) => `${f.tax}:${f.concept}`;

/** The rounding unit of a reported amount (the largest power of ten dividing it, up to 10^9). */
function unitOf(v: number): number {
  if (!Number.isInteger(v) || v === 0) return 1;
  let u = 1;
  while (u < 1e9 && v % (u * 10) === 0) u *= 10;
  return u;
}

/** Each of n reported figures is rounded to its unit: sums may differ by half a unit each. */
const withinRounding = (a: number, b: number, parts: number[]) =>
  Math.abs(a - b) <= (Math.max(...parts.map(unitOf)) * parts.length) / 2;

function stated(facts: Raw[], accn: string, concepts: string[], start: string | null, end: string): number | null {
  for (const c of concepts) {
    const f = facts.find(
      (x) => x.accn === accn && qname(x) === c && x.end === end && x.start === start && !x.unit.includes("/"),
    );
    if (f) return f.val;
  }
  return null;
}

/**
 * The value filings give for exactly [start, end]: the first listed concept any report tags,
 * its latest-filed value, unless that only repeats an earlier value rounded more coarsely
 * (then the precise one) - the documented rule, written again here from its statement.
 */
function latest(facts: Raw[], concepts: string[], start: string | null, end: string, unit?: string): Raw | null {
  for (const c of concepts) {
    const found = facts
      .filter(
        (f) =>
          qname(f) === c &&
          f.start === start &&
          f.end === end &&
          REPORT_FORMS.test(f.form) &&
          (!unit || f.unit === unit),
      )
      .sort((a, b) => (a.filed === b.filed ? (a.accn < b.accn ? 1 : -1) : a.filed < b.filed ? 1 : -1));
    const top = found[0];
    if (!top) continue;
    const u = unitOf(top.val);
    if (u >= 1000) {
      const finer = found.find((f) => unitOf(f.val) < u && Math.abs(f.val - top.val) <= u / 2);
      if (finer) return finer;
    }
    return top;
  }
  return null;
}

export function independentChecks(input: {
  cik: string;
  raw: unknown;
  income: IncomeStatementRecord[];
  ratios: RatioRecord[];
  provenance: { fiscal_year: number; fiscal_period_code: string; provenance: string }[];
  ratioProvenance: { fiscal_year: number; fiscal_period: string; provenance: string }[];
  secDir: string;
}): Check[] {
  const { cik, income, ratios } = input;
  const facts = flatten(input.raw);
  const checks: Check[] = [];
  const add = (kind: string, what: string, pass: boolean, detail: string) =>
    checks.push({ kind, cik, what, pass, detail });
  const key = (fy: number | null, code: string | null) => `${fy}-${code}`;
  const rec = new Map(income.map((r) => [key(r.fiscal_year, r.fiscal_period_code), r]));
  const byEnd = (end: string, annual: boolean) =>
    income.find((r) => r.report_period === end && (r.period_type === "annual") === annual);
  const prov = new Map(
    input.provenance.map((p) => [
      key(p.fiscal_year, p.fiscal_period_code),
      JSON.parse(p.provenance) as Record<string, { method: string; split_factor?: number }>,
    ]),
  );

  // The filer's own naming convention: the most common (fy - calendar year of the period end)
  // over its reports. A report whose SEC fy disagrees with it carries bad metadata (early
  // NVIDIA filings state fy 2010 for the year NVIDIA itself calls fiscal 2011) and is not a
  // reference for labels.
  const nameYear = (end: string) =>
    Number(end.slice(0, 4)) - (end.slice(5, 7) === "01" && Number(end.slice(8, 10)) <= 7 ? 1 : 0);
  const votes = new Map<number, number>();
  for (const form of ["10-K", "10-Q"] as const)
    for (const own of ownPeriods(facts, form).values())
      if (own.fy !== null) votes.set(own.fy - nameYear(own.end), (votes.get(own.fy - nameYear(own.end)) ?? 0) + 1);
  const convention = [...votes].sort((a, b) => b[1] - a[1])[0]?.[0] ?? 0;

  // 1. Each report's own-period lines: ours equal the report, or a later filing's restatement.
  for (const [form, annual] of [
    ["10-K", true],
    ["10-Q", false],
  ] as const) {
    for (const [accn, own] of ownPeriods(facts, form)) {
      const r = byEnd(own.end, annual);
      const start =
        facts.find((f) => f.accn === accn && f.end === own.end && (annual ? isAnnual(f) : isQuarter(f)))?.start ?? null;
      for (const [line, concepts] of Object.entries(LINES)) {
        const original = stated(facts, accn, concepts, start, own.end);
        if (original === null) continue;
        const ours = r ? (r[line as keyof IncomeStatementRecord] as number | null) : null;
        const restated = latest(facts, concepts, start, own.end);
        const ok = ours === original || (restated !== null && restated.filed > own.end && ours === restated.val);
        add(
          `${annual ? "annual" : "quarterly"} report line`,
          `${line} ${own.end} (${accn})`,
          ok,
          `ours ${ours}, report ${original}, latest ${restated?.val}`,
        );
      }
      // 5. Fiscal labels agree with the report's own fiscal focus.
      const metadataConsistent =
        own.fy !== null && own.fy - nameYear(own.end) === convention && (annual ? own.fp === "FY" : own.fp !== "FY");
      if (own.fy !== null && own.fp !== null && metadataConsistent)
        add(
          "fiscal label",
          `${accn} ${own.end}`,
          !!r && r.fiscal_year === own.fy && r.fiscal_period_code === own.fp,
          `ours ${r?.fiscal_year}-${r?.fiscal_period_code}, report ${own.fy}-${own.fp}`,
        );
    }
  }

  // 2. Year-to-date columns: Q1+Q2 (6 months) and Q1+Q2+Q3 (9 months), latest filed.
  for (const r of income.filter((x) => x.fiscal_period_code === "Q2" || x.fiscal_period_code === "Q3")) {
    const n = Number(r.fiscal_period_code?.slice(1));
    const qs = Array.from({ length: n }, (_, i) => rec.get(key(r.fiscal_year, `Q${i + 1}`)));
    const q1 = qs[0];
    if (!q1 || qs.some((q) => !q)) continue;
    const fyStart =
      facts.find((f) => f.end === q1.report_period && isQuarter(f) && (LINES.revenue ?? []).includes(qname(f)))
        ?.start ?? null;
    if (!fyStart) continue;
    for (const line of ["revenue", "net_income", "operating_income"] as const) {
      const ytd = latest(facts, LINES[line] ?? [], fyStart, r.report_period as string);
      const parts = qs.map((q) => q?.[line] ?? null);
      if (!ytd || parts.some((p) => p === null)) continue;
      const sum = (parts as number[]).reduce((a, b) => a + b, 0);
      add(
        "year-to-date sum",
        `${line} ${r.fiscal_year}-Q1..${r.fiscal_period_code}`,
        withinRounding(sum, ytd.val, [...(parts as number[]), ytd.val]),
        `sum ${sum}, ytd ${ytd.val}`,
      );
    }
  }

  for (const r of income) {
    const p = prov.get(key(r.fiscal_year, r.fiscal_period_code)) ?? {};
    // 3. Gross profit identity where all three are tagged.
    if (
      p.gross_profit?.method === "reported" &&
      p.revenue?.method === "reported" &&
      p.cost_of_revenue?.method === "reported"
    ) {
      const v = (r.revenue as number) - (r.cost_of_revenue as number);
      const parts = [r.revenue as number, r.cost_of_revenue as number, r.gross_profit as number];
      add(
        "gross profit = revenue - cost",
        `${r.fiscal_year}-${r.fiscal_period_code}`,
        withinRounding(v, r.gross_profit as number, parts),
        `${r.gross_profit} vs ${v}`,
      );
    }
    // 4. EPS x shares = the earnings EPS is computed on (net income available to common
    // stockholders where the filer tags it, else net income) within half a reported cent.
    for (const [eps, sh, common] of [
      ["earnings_per_share", "weighted_average_shares", "us-gaap:NetIncomeLossAvailableToCommonStockholdersBasic"],
      [
        "earnings_per_share_diluted",
        "weighted_average_shares_diluted",
        "us-gaap:NetIncomeLossAvailableToCommonStockholdersDiluted",
      ],
    ] as const) {
      const e = r[eps];
      const s = r[sh];
      if (e === null || s === null || r.net_income === null || p[eps]?.method !== "reported" || s === 0) continue;
      const factor = p[eps]?.split_factor ?? 1;
      const start =
        facts.find(
          (f) =>
            f.end === r.report_period &&
            f.start !== null &&
            days(f.start, f.end) >= (r.period_type === "annual" ? 350 : 80) &&
            days(f.start, f.end) <= (r.period_type === "annual" ? 380 : 100) &&
            qname(f) === "us-gaap:NetIncomeLoss",
        )?.start ?? null;
      // Diluted EPS starts from the basic numerator when the filer tags no diluted one.
      const toCommon = latest(
        facts,
        [common, "us-gaap:NetIncomeLossAvailableToCommonStockholdersBasic"],
        start,
        r.report_period as string,
      );
      const implied = (toCommon?.val ?? r.net_income) / s;
      add(
        "EPS x shares = net income",
        `${eps} ${r.fiscal_year}-${r.fiscal_period_code}`,
        Math.abs(implied - e) <= 0.005 / factor + 1e-9,
        `eps ${e}, NI/shares ${implied}`,
      );
    }
  }

  // 6. Apple's statement table extracted from its FY2023 10-K.
  const table = join(input.secDir, "xbrl", "extracted", "apple_operations_mapped.csv");
  if (cik === "0000320193" && existsSync(table)) {
    const MAP: Record<string, [keyof IncomeStatementRecord, number]> = {
      Revenues: ["revenue", 1e6],
      CostOfRevenue: ["cost_of_revenue", 1e6],
      GrossProfit: ["gross_profit", 1e6],
      ResearchAndDevelopmentExpense: ["research_and_development", 1e6],
      SellingGeneralAndAdministrativeExpense: ["selling_general_and_administrative_expenses", 1e6],
      OperatingExpenses: ["operating_expense", 1e6],
      OperatingIncomeLoss: ["operating_income", 1e6],
      NetIncomeLoss: ["net_income", 1e6],
      EarningsPerShareBasic: ["earnings_per_share", 1],
      EarningsPerShareDiluted: ["earnings_per_share_diluted", 1],
      WeightedAverageNumberOfSharesOutstandingBasic: ["weighted_average_shares", 1e3],
      WeightedAverageNumberOfDilutedSharesOutstanding: ["weighted_average_shares_diluted", 1e3],
    };
    for (const line of readFileSync(table, "utf8").split("\n").slice(1)) {
      const cells = line.match(/("[^"]*"|[^,]+)/g) ?? [];
      const m = MAP[cells[1] ?? ""];
      if (!m) continue;
      [2023, 2022, 2021].forEach((fy, i) => {
        const r = rec.get(key(fy, "FY"));
        const want = Number(cells[2 + i]) * m[1];
        add("Apple extracted statement", `${m[0]} FY${fy}`, r?.[m[0]] === want, `ours ${r?.[m[0]]}, table ${want}`);
      });
    }
  }

  // 7. Balance-sheet ratios from the filings' own balance sheets.
  for (const r of ratios) {
    const end = r.report_period as string;
    const ca = latest(facts, ["us-gaap:AssetsCurrent", "ifrs-full:CurrentAssets"], null, end);
    const cl = latest(facts, ["us-gaap:LiabilitiesCurrent", "ifrs-full:CurrentLiabilities"], null, end);
    if (ca && cl && cl.val !== 0)
      add(
        "current ratio",
        `${r.fiscal_year}-${r.fiscal_period}`,
        close(r.current_ratio, ca.val / cl.val),
        `${r.current_ratio} vs ${ca.val / cl.val}`,
      );
    const eq = latest(facts, ["us-gaap:StockholdersEquity"], null, end);
    const ni = rec.get(key(r.fiscal_year, r.fiscal_period))?.net_income ?? null;
    if (r.fiscal_period === "FY" && eq && ni !== null && eq.val !== 0)
      add(
        "return on equity",
        `${r.fiscal_year}-FY`,
        close(r.return_on_equity, ni / eq.val),
        `${r.return_on_equity} vs ${ni / eq.val}`,
      );
  }

  // 8. Market caps: the unadjusted close (re-read from the price file) times the period-end
  // share count as the original report stated it, before any later split restatement.
  for (const rp of input.ratioProvenance) {
    const p = JSON.parse(rp.provenance) as {
      market_cap?: number;
      price?: { date: string; source: string; ticker: string };
    };
    if (p.market_cap === undefined || !p.price) continue;
    const r = ratios.find((x) => x.fiscal_year === rp.fiscal_year && x.fiscal_period === rp.fiscal_period);
    const end = r?.report_period as string;
    const close = closeFromFile(
      join(input.secDir, "..", "market", "daily", p.price.source),
      p.price.ticker,
      p.price.date,
    );
    const original = facts
      .filter((f) => qname(f) === "us-gaap:CommonStockSharesOutstanding" && f.start === null && f.end === end)
      .sort((a, b) => (a.filed < b.filed ? -1 : 1))[0];
    const cover = facts
      .filter((f) => qname(f) === "dei:EntityCommonStockSharesOutstanding" && f.end > end && days(end, f.end) <= 80)
      .sort((a, b) => (a.end < b.end ? -1 : 1))[0];
    const shares = original ?? cover;
    if (close === null || !shares) continue;
    const independent = close * shares.val;
    add(
      "market cap (split consistency)",
      `${rp.fiscal_year}-${rp.fiscal_period}`,
      Math.abs(p.market_cap / independent - 1) <= 1e-9,
      `${p.market_cap} vs ${independent}`,
    );
  }
  return checks;
}

function close(a: number | null, b: number): boolean {
  return a !== null && Math.abs(a - b) <= 1e-12 * Math.max(1, Math.abs(b));
}

/** The Close column of a daily file, or the price of a monthly long table, on a date. */
function closeFromFile(path: string, ticker: string, date: string): number | null {
  if (!existsSync(path)) return null;
  const lines = readFileSync(path, "utf8").split(/\r?\n/);
  const header = (lines[0] ?? "").toLowerCase().split(",");
  if (header.includes("symbol")) {
    const months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
    const label = `${months[Number(date.slice(5, 7)) - 1]} 1 ${date.slice(0, 4)}`;
    const row = lines.find((l) => l.startsWith(`${ticker},${label},`));
    return row ? Number(row.split(",")[2]) : null;
  }
  const ci = header.indexOf("close");
  const row = lines.find((l) => l.startsWith(`${date},`));
  return row ? Number(row.split(",")[ci]) : null;
}
