/**
 * Financial ratios (spec 2.13), materialised per statement period. Definitions, and the
 * reasons for them, are in docs/ratios.md; in short:
 *
 *  - margins, growth, per-share values, DSO/DIO and coverage use the period's own flows;
 *  - returns and turnovers divide a year of flows by period-end balances: the fiscal
 *    year's flows for FY rows, the trailing four quarters (TTM) for quarter rows;
 *  - growth compares with the prior comparable period (same quarter a year earlier, or
 *    the prior fiscal year) as (current - prior) / |prior|;
 *  - valuation uses the close on or just before the period end, restated to the latest
 *    split basis, times period-end shares outstanding (also on the latest basis);
 *  - a ratio whose inputs are missing, or whose denominator is zero, is null.
 */
import type { RatioField, RatioRecord } from "../fields.ts";
import type { Fundamentals } from "./fundamentals.ts";
import { type Period, periodKey, quarterSeq } from "./periods.ts";
import { type PriceAt, type PriceSeries, priceAt } from "./prices.ts";
import { type Split, splitFactor } from "./splits.ts";
import type { Statement } from "./statements.ts";

type N = number | null;

const div = (a: N, b: N): N => (a === null || b === null || b === 0 ? null : a / b);
const add = (...xs: N[]): N => (xs.some((x) => x === null) ? null : (xs as number[]).reduce((s, x) => s + x, 0));
const sub = (a: N, b: N): N => (a === null || b === null ? null : a - b);
const mul = (a: N, b: N): N => (a === null || b === null ? null : a * b);
const growth = (cur: N, prior: N): N =>
  cur === null || prior === null || prior === 0 ? null : (cur - prior) / Math.abs(prior);
/** Sum of the components that are present, or null when the required ones are missing. */
const sumPresent = (required: N[], optional: N[]): N =>
  required.some((x) => x === null) ? null : [...required, ...optional].reduce<number>((s, x) => s + (x ?? 0), 0);

export interface RatioProvenance {
  /** Quarters summed for the annualised (TTM) flows of a quarter row. */
  ttm_periods?: string[];
  /** The period growth compares with. */
  prior_period?: string;
  price?: {
    ticker: string;
    date: string;
    close: number;
    source: string;
    /** Divisor that restated the close to the latest split basis. */
    split_divisor: number;
  };
  market_cap?: number;
  shares_outstanding?: number;
}

export interface RatioRow {
  period: Period;
  accession_number: string;
  currency: string;
  market_cap_is_trailing: boolean | null;
  values: Record<RatioField, number | null>;
  provenance: RatioProvenance;
}

export interface RatioInputs {
  statements: readonly Statement[];
  fundamentals: ReadonlyMap<string, Fundamentals>;
  currency: string;
  splits: readonly Split[];
  /** Series for the company's tickers (any order); empty when no market data is at hand. */
  prices: readonly PriceSeries[];
}

interface Flows {
  revenue: N;
  cost_of_revenue: N;
  gross_profit: N;
  operating_income: N;
  net_income: N;
  ebit: N;
  ebitda: N;
  pretax_income: N;
  income_tax: N;
  interest_expense: N;
  operating_cash_flow: N;
  free_cash_flow: N;
  dividends_paid: N;
}

function flowsOf(st: Statement, f: Fundamentals | undefined): Flows {
  const v = st.values;
  const ocf = f?.values.operating_cash_flow ?? null;
  const capex = f?.values.capital_expenditure ?? null;
  return {
    revenue: v.revenue,
    cost_of_revenue: v.cost_of_revenue,
    gross_profit: v.gross_profit,
    operating_income: v.operating_income,
    net_income: v.net_income,
    ebit: v.ebit,
    ebitda: add(v.ebit, f?.values.depreciation_and_amortization ?? null),
    pretax_income: v.pretax_income,
    income_tax: v.income_tax,
    interest_expense: v.interest_expense,
    operating_cash_flow: ocf,
    free_cash_flow: sub(ocf, capex),
    dividends_paid: f?.values.dividends_paid ?? null,
  };
}

function sumFlows(list: Flows[]): Flows {
  const out = {} as Flows;
  for (const k of Object.keys(list[0] ?? {}) as (keyof Flows)[]) out[k] = add(...list.map((f) => f[k]));
  return out;
}

/** The close for a period end on the latest split basis, from the first series that has one. */
function marketPrice(prices: readonly PriceSeries[], end: string, splits: readonly Split[]) {
  const ordered = [...prices].sort((a, b) => (a.interval === b.interval ? 0 : a.interval === "daily" ? -1 : 1));
  for (const s of ordered) {
    const p: PriceAt | null = priceAt(s, end);
    if (!p) continue;
    const divisor = splitFactor(splits, s.basisDate);
    if (divisor === null) continue;
    return { at: p, close: p.close / divisor, divisor };
  }
  return null;
}

export function computeRatios(inputs: RatioInputs): RatioRow[] {
  const { statements, fundamentals, currency, splits } = inputs;
  const byKey = new Map(statements.map((s) => [s.period.key, s]));
  const bySeq = new Map<number, Statement>();
  for (const s of statements) {
    const q = quarterSeq(s.period);
    if (q !== null) bySeq.set(q, s);
  }
  const flows = new Map(statements.map((s) => [s.period.key, flowsOf(s, fundamentals.get(s.period.key))]));
  // Market data is quoted in US dollars; a filer reporting in another currency gets none.
  const prices = currency === "USD" ? inputs.prices : [];

  return statements.map((st) => {
    const p = st.period;
    const f = fundamentals.get(p.key);
    const b = f?.values;
    const own = flows.get(p.key) as Flows;
    const prov: RatioProvenance = {};

    // A year of flows: the fiscal year itself, or the trailing four quarters.
    let year: Flows | null = own;
    if (p.kind === "quarter") {
      const seq = quarterSeq(p) as number;
      const quarters = [seq - 3, seq - 2, seq - 1, seq].map((q) => bySeq.get(q));
      if (quarters.every((q) => q !== undefined)) {
        const qs = quarters as Statement[];
        year = sumFlows(qs.map((q) => flows.get(q.period.key) as Flows));
        prov.ttm_periods = qs.map((q) => q.period.key);
      } else year = null;
    }
    const y = (k: keyof Flows): N => (year ? year[k] : null);

    const priorKey = periodKey(p.fiscal_year - 1, p.code);
    const prior = byKey.get(priorKey);
    const priorFlows = prior ? flows.get(priorKey) : undefined;
    const priorBal = fundamentals.get(priorKey)?.values;
    if (prior) prov.prior_period = priorKey;

    const bal = (k: keyof Fundamentals["values"]): N => b?.[k] ?? null;
    const cashLike = sumPresent([bal("cash")], [bal("short_term_investments")]);
    const days = f?.days ?? null;

    const taxRate = (() => {
      const pre = y("pretax_income");
      const tax = y("income_tax");
      if (pre === null || tax === null) return null;
      // No tax shield is assumed on a pre-tax loss; otherwise the effective rate, kept in [0, 1].
      return pre <= 0 ? 0 : Math.min(1, Math.max(0, tax / pre));
    })();
    const nopat = taxRate === null ? null : mul(y("operating_income"), 1 - taxRate);
    const investedCapital = sumPresent([bal("equity"), bal("total_debt"), cashLike === null ? null : -cashLike], []);

    const shares = bal("shares_outstanding");
    const mp = prices.length > 0 && shares !== null ? marketPrice(prices, p.end, splits) : null;
    const marketCap = mp && shares !== null ? mp.close * shares : null;
    if (mp && marketCap !== null) {
      prov.price = {
        ticker: mp.at.series.ticker,
        date: mp.at.date,
        close: mp.at.close,
        source: mp.at.series.source,
        split_divisor: mp.divisor,
      };
      prov.market_cap = marketCap;
      prov.shares_outstanding = shares ?? undefined;
    }
    const ev = marketCap === null || cashLike === null ? null : add(marketCap, bal("total_debt"), -cashLike);
    const pe = div(marketCap, y("net_income"));
    const epsGrowth = growth(st.values.earnings_per_share, prior?.values.earnings_per_share ?? null);
    const dso = mul(div(bal("receivables"), own.revenue), days);
    const dio = mul(div(bal("inventory"), own.cost_of_revenue), days);

    const values: Record<RatioField, number | null> = {
      gross_margin: div(own.gross_profit, own.revenue),
      operating_margin: div(own.operating_income, own.revenue),
      net_margin: div(own.net_income, own.revenue),
      return_on_equity: div(y("net_income"), bal("equity")),
      return_on_assets: div(y("net_income"), bal("total_assets")),
      return_on_invested_capital: div(nopat, investedCapital),
      asset_turnover: div(y("revenue"), bal("total_assets")),
      inventory_turnover: div(y("cost_of_revenue"), bal("inventory")),
      receivables_turnover: div(y("revenue"), bal("receivables")),
      days_sales_outstanding: dso,
      operating_cycle: add(dio, dso),
      working_capital_turnover: div(y("revenue"), sub(bal("current_assets"), bal("current_liabilities"))),
      current_ratio: div(bal("current_assets"), bal("current_liabilities")),
      quick_ratio: div(
        sumPresent([bal("cash"), bal("receivables")], [bal("short_term_investments")]),
        bal("current_liabilities"),
      ),
      cash_ratio: div(cashLike, bal("current_liabilities")),
      operating_cash_flow_ratio: div(y("operating_cash_flow"), bal("current_liabilities")),
      debt_to_equity: div(bal("total_debt"), bal("equity")),
      debt_to_assets: div(bal("total_debt"), bal("total_assets")),
      interest_coverage: div(own.ebit, own.interest_expense),
      revenue_growth: growth(own.revenue, priorFlows?.revenue ?? null),
      earnings_growth: growth(own.net_income, priorFlows?.net_income ?? null),
      book_value_growth: growth(bal("equity"), priorBal?.equity ?? null),
      earnings_per_share_growth: epsGrowth,
      free_cash_flow_growth: growth(own.free_cash_flow, priorFlows?.free_cash_flow ?? null),
      operating_income_growth: growth(own.operating_income, priorFlows?.operating_income ?? null),
      ebitda_growth: growth(own.ebitda, priorFlows?.ebitda ?? null),
      payout_ratio: div(own.dividends_paid, own.net_income),
      earnings_per_share: st.values.earnings_per_share,
      book_value_per_share: div(bal("equity"), shares),
      free_cash_flow_per_share: div(own.free_cash_flow, shares),
      enterprise_value: ev,
      price_to_earnings_ratio: pe,
      price_to_book_ratio: div(marketCap, bal("equity")),
      price_to_sales_ratio: div(marketCap, y("revenue")),
      enterprise_value_to_ebitda_ratio: div(ev, y("ebitda")),
      enterprise_value_to_revenue_ratio: div(ev, y("revenue")),
      free_cash_flow_yield: div(y("free_cash_flow"), marketCap),
      peg_ratio: epsGrowth === null ? null : div(pe, epsGrowth * 100),
    };
    for (const k of Object.keys(values) as RatioField[]) {
      const v = values[k];
      if (v !== null && !Number.isFinite(v)) values[k] = null;
    }
    return {
      period: p,
      accession_number: st.accession_number,
      currency,
      market_cap_is_trailing: mp && marketCap !== null ? mp.at.onOrBefore : null,
      values,
      provenance: prov,
    };
  });
}

/** The served record (spec 2.13) of a computed row. */
export function toRatioRecord(row: RatioRow, cik: string, ticker: string | null): RatioRecord {
  return {
    cik,
    ticker,
    fiscal_period: row.period.code,
    period: row.period.kind === "annual" ? "annual" : "quarterly",
    currency: row.currency,
    report_period: row.period.end,
    fiscal_year: row.period.fiscal_year,
    market_cap_is_trailing: row.market_cap_is_trailing,
    accession_number: row.accession_number,
    ...row.values,
  };
}
