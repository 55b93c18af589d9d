/**
 * Standardised income statements (spec 2.14) from a company's XBRL facts:
 *
 *  - periods are quarters (~13 weeks) and fiscal years (~52 weeks) named by the fiscal
 *    calendar; 6- and 9-month year-to-date columns are never quarters;
 *  - each line takes the latest filing's value (a restatement replaces the original),
 *    the chain order deciding between concepts within one filing;
 *  - Q4 is reported rarely, so monetary lines are derived as FY - (Q1 + Q2 + Q3); share
 *    counts and per-share amounts are never derived (a Q4 EPS exists only if reported);
 *  - share counts and per-share amounts are restated to the latest split basis;
 *  - every value keeps its provenance: concept and filing, or the formula that derived it.
 */
import type { FiscalPeriodCode } from "./calendar.ts";
import { INCOME_CHAINS, type IncomeLine, PER_SHARE_LINES, SHARE_LINES } from "./concepts.ts";
import { dayAfter, type Period, type PeriodResolver, periodKey } from "./periods.ts";
import { filingSplitFactor, type Split } from "./splits.ts";

export type Provenance =
  | {
      method: "reported";
      concept: string;
      accession_number: string;
      filed: string;
      split_factor?: number;
      /** Set when the filing reported the count in thousands by mistake (see fixShareScale). */
      scale_factor?: number;
    }
  | { method: "derived"; formula: string; accession_numbers: string[] };

/** Lines of a statement: the chain lines plus EBIT, which no filer tags. */
export type StatementLine = IncomeLine | "ebit";

export interface Statement {
  period: Period;
  /** The reference filing: the latest filing reporting the period (the 10-K for a derived Q4). */
  accession_number: string;
  values: Record<StatementLine, number | null>;
  provenance: Partial<Record<StatementLine, Provenance>>;
}

const LINES = Object.keys(INCOME_CHAINS) as IncomeLine[];
const INCOME_CHAIN_LIST = Object.values(INCOME_CHAINS);

/** Lines that add up across quarters: amounts of money, not shares or per-share values. */
export const MONETARY_LINES: IncomeLine[] = LINES.filter((l) => !SHARE_LINES.has(l) && !PER_SHARE_LINES.has(l));

export function unitFor(line: string, currency: string): string {
  if (SHARE_LINES.has(line)) return "shares";
  if (PER_SHARE_LINES.has(line)) return `${currency}/shares`;
  return currency;
}

/** Per-share values restated by a split factor keep six decimals (floating-point noise). */
const roundPerShare = (x: number) => Math.round(x * 1e6) / 1e6;

function emptyValues(): Record<StatementLine, number | null> {
  const v = { ebit: null } as Record<StatementLine, number | null>;
  for (const l of LINES) v[l] = null;
  return v;
}

function reported(
  resolver: PeriodResolver,
  period: Period,
  currency: string,
  splits: readonly Split[],
): Statement | null {
  const ref = resolver.referenceFiling(INCOME_CHAIN_LIST, period.key);
  if (!ref) return null;
  const st: Statement = { period, accession_number: ref.accn, values: emptyValues(), provenance: {} };
  for (const line of LINES) {
    const p = resolver.pickPeriod(INCOME_CHAINS[line], period.key, unitFor(line, currency));
    if (!p) continue;
    const factor = SHARE_LINES.has(line) || PER_SHARE_LINES.has(line) ? filingSplitFactor(splits, p.filed) : 1;
    st.values[line] = PER_SHARE_LINES.has(line) ? roundPerShare(p.value / factor) : p.value * factor;
    st.provenance[line] = {
      method: "reported",
      concept: p.concept,
      accession_number: p.accn,
      filed: p.filed,
      ...(factor !== 1 ? { split_factor: factor } : {}),
    };
  }
  return st;
}

const sourceOf = (st: Statement, line: StatementLine): string[] => {
  const p = st.provenance[line];
  if (!p) return [];
  return p.method === "reported" ? [p.accession_number] : p.accession_numbers;
};

/** Q4 = FY - (Q1 + Q2 + Q3) for every monetary line Q4 does not report itself. */
function deriveFourthQuarters(byKey: Map<string, Statement>): void {
  for (const fy of [...byKey.values()].filter((s) => s.period.code === "FY")) {
    const y = fy.period.fiscal_year;
    const qs = (["Q1", "Q2", "Q3"] as FiscalPeriodCode[]).map((c) => byKey.get(periodKey(y, c)));
    const [q1, q2, q3] = qs;
    if (!q1 || !q2 || !q3) continue;
    const key = periodKey(y, "Q4");
    const existing = byKey.get(key);
    const q4: Statement = existing ?? {
      period: { key, fiscal_year: y, code: "Q4", kind: "quarter", start: dayAfter(q3.period.end), end: fy.period.end },
      accession_number: fy.accession_number,
      values: emptyValues(),
      provenance: {},
    };
    let derivedAny = false;
    for (const line of MONETARY_LINES) {
      if (q4.values[line] !== null) continue;
      const parts = [fy, q1, q2, q3].map((s) => s.values[line]);
      if (parts.some((v) => v === null)) continue;
      const [a, b, c, d] = parts as number[];
      q4.values[line] = (a as number) - ((b as number) + (c as number) + (d as number));
      q4.provenance[line] = {
        method: "derived",
        formula: "FY - (Q1 + Q2 + Q3)",
        accession_numbers: [...new Set([fy, q1, q2, q3].flatMap((s) => sourceOf(s, line)))],
      };
      derivedAny = true;
    }
    if (!existing && derivedAny) byKey.set(key, q4);
  }
}

function derive(st: Statement, line: StatementLine, value: number, formula: string, from: StatementLine[]): void {
  st.values[line] = value;
  st.provenance[line] = {
    method: "derived",
    formula,
    accession_numbers: [...new Set(from.flatMap((l) => sourceOf(st, l)))],
  };
}

/** Lines computed from other lines of the same period when the filing does not tag them. */
function fillDerivedLines(st: Statement): void {
  const v = st.values;
  if (v.gross_profit === null && v.revenue !== null && v.cost_of_revenue !== null)
    derive(st, "gross_profit", v.revenue - v.cost_of_revenue, "revenue - cost_of_revenue", [
      "revenue",
      "cost_of_revenue",
    ]);
  if (
    v.selling_general_and_administrative_expenses === null &&
    v.selling_and_marketing !== null &&
    v.general_and_administrative !== null
  )
    derive(
      st,
      "selling_general_and_administrative_expenses",
      v.selling_and_marketing + v.general_and_administrative,
      "selling_and_marketing + general_and_administrative",
      ["selling_and_marketing", "general_and_administrative"],
    );
  if (v.operating_expense === null && v.gross_profit !== null && v.operating_income !== null)
    derive(st, "operating_expense", v.gross_profit - v.operating_income, "gross_profit - operating_income", [
      "gross_profit",
      "operating_income",
    ]);
  // EBIT: earnings before interest and taxes = pre-tax income + interest expense. Filers
  // that fold interest into "other income" report no interest line; their EBIT is the
  // operating income (the operating-EBIT convention), recorded as such in the provenance.
  if (v.pretax_income !== null && v.interest_expense !== null)
    derive(st, "ebit", v.pretax_income + v.interest_expense, "pretax_income + interest_expense", [
      "pretax_income",
      "interest_expense",
    ]);
  else if (v.operating_income !== null)
    derive(st, "ebit", v.operating_income, "operating_income (no interest expense reported)", ["operating_income"]);
}

/**
 * Some early XBRL filings tagged share counts in thousands (NVIDIA's 2010 10-Qs report
 * 572,764 shares for 572.8 million). Net income = EPS x shares pins the magnitude: when the
 * reported count is a thousand times too small for the reported EPS and net income, it is
 * scaled, and the provenance says so.
 */
function fixShareScale(st: Statement): void {
  const v = st.values;
  for (const [eps, shares] of [
    ["earnings_per_share", "weighted_average_shares"],
    ["earnings_per_share_diluted", "weighted_average_shares_diluted"],
  ] as const) {
    const e = v[eps];
    const n = v[shares];
    const p = st.provenance[shares];
    if (e === null || n === null || v.net_income === null || e === 0 || n === 0 || p?.method !== "reported") continue;
    const ratio = v.net_income / (e * n);
    if (ratio > 300 && ratio < 3000) {
      v[shares] = n * 1000;
      st.provenance[shares] = { ...p, scale_factor: 1000 };
    }
  }
}

/** The standardised statements of every quarter and fiscal year, oldest first. */
export function buildStatements(resolver: PeriodResolver, currency: string, splits: readonly Split[]): Statement[] {
  const byKey = new Map<string, Statement>();
  for (const period of resolver.periods(INCOME_CHAIN_LIST)) {
    const st = reported(resolver, period, currency, splits);
    if (!st || !LINES.some((l) => st.values[l] !== null)) continue;
    fixShareScale(st);
    byKey.set(period.key, st);
  }
  deriveFourthQuarters(byKey);
  const out = [...byKey.values()];
  for (const st of out) fillDerivedLines(st);
  return out.sort((a, b) =>
    a.period.end === b.period.end ? (a.period.kind === "annual" ? 1 : -1) : a.period.end < b.period.end ? -1 : 1,
  );
}

/** The currency a filer reports in: the most used plain unit among its revenue and earnings facts. */
export function reportingCurrency(resolver: PeriodResolver): string {
  const counts = new Map<string, number>();
  for (const chain of [INCOME_CHAINS.revenue, INCOME_CHAINS.net_income])
    for (const concept of chain)
      for (const f of resolver.index.of(concept))
        if (/^[A-Z]{3}$/.test(f.unit)) counts.set(f.unit, (counts.get(f.unit) ?? 0) + 1);
  let best = "USD";
  let n = 0;
  for (const [u, c] of counts) if (c > n) [best, n] = [u, c];
  return best;
}
