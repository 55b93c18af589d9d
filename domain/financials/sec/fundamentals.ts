/**
 * The balance-sheet and cash-flow inputs of the ratios, per statement period. Balance
 * lines are instants at the period end. Cash-flow lines are reported year-to-date in
 * 10-Qs (3, 6, 9 months), so a quarter is the difference of consecutive year-to-date
 * columns and Q4 is the year less nine months.
 */
import { dayNumber, durationDays } from "./calendar.ts";
import { BALANCE_CHAINS, type BalanceLine, CASH_FLOW_CHAINS, type CashFlowLine, COVER_SHARES } from "./concepts.ts";
import { type Period, type PeriodResolver, periodKey } from "./periods.ts";
import { filingSplitFactor, type Split } from "./splits.ts";
import type { Provenance, Statement } from "./statements.ts";

export type FundamentalLine = CashFlowLine | BalanceLine | "total_debt";

export interface Fundamentals {
  period: Period;
  days: number;
  values: Record<FundamentalLine, number | null>;
  provenance: Partial<Record<FundamentalLine, Provenance>>;
}

const CASH_LINES = Object.keys(CASH_FLOW_CHAINS) as CashFlowLine[];
const BALANCE_LINES = Object.keys(BALANCE_CHAINS) as BalanceLine[];

interface Ytd {
  value: number;
  accns: string[];
}

function ytd(resolver: PeriodResolver, line: CashFlowLine, start: string, end: string, currency: string): Ytd | null {
  const p = resolver.pickSpan(CASH_FLOW_CHAINS[line], start, end, currency);
  return p ? { value: p.value, accns: [p.accn] } : null;
}

function cashFlow(
  resolver: PeriodResolver,
  line: CashFlowLine,
  period: Period,
  fyStart: string | null,
  quarterEnds: Map<number, string>,
  currency: string,
): { value: number; prov: Provenance } | null {
  const chain = CASH_FLOW_CHAINS[line];
  const direct = resolver.pickPeriod(chain, period.key, currency);
  if (direct)
    return {
      value: direct.value,
      prov: { method: "reported", concept: direct.concept, accession_number: direct.accn, filed: direct.filed },
    };
  if (period.code === "FY" || fyStart === null) return null;
  const q = Number(period.code.slice(1));
  const cum = (k: number): Ytd | null => {
    const end = k === 4 ? period.end : quarterEnds.get(k);
    return end ? ytd(resolver, line, fyStart, end, currency) : null;
  };
  const now = cum(q);
  const before = cum(q - 1);
  if (!now || !before) return null;
  return {
    value: now.value - before.value,
    prov: {
      method: "derived",
      formula: `YTD(${q * 3} months) - YTD(${(q - 1) * 3} months)`,
      accession_numbers: [...new Set([...now.accns, ...before.accns])],
    },
  };
}

function reportedProv(p: { concept: string; accn: string; filed: string }, factor = 1): Provenance {
  return {
    method: "reported",
    concept: p.concept,
    accession_number: p.accn,
    filed: p.filed,
    ...(factor !== 1 ? { split_factor: factor } : {}),
  };
}

/** Cover-page shares of the period's own report (dated within ~11 weeks after its end). */
function coverShares(resolver: PeriodResolver, end: string, splits: readonly Split[]) {
  const e = dayNumber(end);
  let pick: { value: number; concept: string; accn: string; filed: string; end: string } | null = null;
  for (const f of resolver.index.of(COVER_SHARES)) {
    const d = dayNumber(f.end) - e;
    if (d <= 0 || d > 80 || f.unit !== "shares") continue;
    if (!pick || f.end < pick.end)
      pick = { value: f.val, concept: COVER_SHARES, accn: f.accn, filed: f.filed, end: f.end };
  }
  if (!pick) return null;
  const factor = filingSplitFactor(splits, pick.filed);
  return { value: pick.value * factor, prov: reportedProv(pick, factor) };
}

export function buildFundamentals(
  resolver: PeriodResolver,
  statements: readonly Statement[],
  currency: string,
  splits: readonly Split[],
): Map<string, Fundamentals> {
  const byKey = new Map(statements.map((s) => [s.period.key, s.period]));
  const out = new Map<string, Fundamentals>();
  for (const st of statements) {
    const period = st.period;
    const y = period.fiscal_year;
    const fy = byKey.get(periodKey(y, "FY"));
    const q1 = byKey.get(periodKey(y, "Q1"));
    const fyStart = fy?.start ?? q1?.start ?? null;
    const quarterEnds = new Map<number, string>();
    for (const k of [1, 2, 3]) {
      const q = byKey.get(periodKey(y, `Q${k}` as "Q1"));
      if (q) quarterEnds.set(k, q.end);
    }
    const f: Fundamentals = {
      period,
      days: durationDays(period.start, period.end),
      values: {} as Record<FundamentalLine, number | null>,
      provenance: {},
    };
    for (const line of CASH_LINES) {
      const cf = cashFlow(resolver, line, period, fyStart, quarterEnds, currency);
      f.values[line] = cf ? cf.value : null;
      if (cf) f.provenance[line] = cf.prov;
    }
    for (const line of BALANCE_LINES) {
      const unit = line === "shares_outstanding" ? "shares" : currency;
      const p = resolver.pickInstant(BALANCE_CHAINS[line], period.end, unit);
      f.values[line] = null;
      if (!p) continue;
      const factor = line === "shares_outstanding" ? filingSplitFactor(splits, p.filed) : 1;
      f.values[line] = p.value * factor;
      f.provenance[line] = reportedProv(p, factor);
    }
    if (f.values.shares_outstanding === null) {
      const cover = coverShares(resolver, period.end, splits);
      if (cover) {
        f.values.shares_outstanding = cover.value;
        f.provenance.shares_outstanding = cover.prov;
      }
    }
    setTotalDebt(f);
    out.set(period.key, f);
  }
  return out;
}

/**
 * Total debt = long-term debt (the total when tagged, else non-current + current portion)
 * + commercial paper + short-term borrowings, over the components the filer reports;
 * null when it reports none (a filer without debt lines is not assumed debt-free).
 */
function setTotalDebt(f: Fundamentals): void {
  const v = f.values;
  const parts: [string, number][] = [];
  if (v.long_term_debt_total !== null) parts.push(["long_term_debt_total", v.long_term_debt_total]);
  else {
    if (v.long_term_debt_noncurrent !== null) parts.push(["long_term_debt_noncurrent", v.long_term_debt_noncurrent]);
    if (v.long_term_debt_current !== null) parts.push(["long_term_debt_current", v.long_term_debt_current]);
  }
  if (v.commercial_paper !== null) parts.push(["commercial_paper", v.commercial_paper]);
  if (v.short_term_borrowings !== null) parts.push(["short_term_borrowings", v.short_term_borrowings]);
  if (parts.length === 0) {
    v.total_debt = null;
    return;
  }
  v.total_debt = parts.reduce((a, [, x]) => a + x, 0);
  const accns = parts.flatMap(([l]) => {
    const p = f.provenance[l as FundamentalLine];
    return p?.method === "reported" ? [p.accession_number] : [];
  });
  f.provenance.total_debt = {
    method: "derived",
    formula: parts.map(([l]) => l).join(" + "),
    accession_numbers: [...new Set(accns)],
  };
}
