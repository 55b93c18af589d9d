/**
 * Everything derived from one company's facts, in one pure function: its fiscal calendar,
 * splits, reporting currency, standardised statements and the inputs ratios need.
 */
import type { IncomeStatementRecord } from "../fields.ts";
import { classifyDuration, FiscalCalendar, learnYearOffset, parseMonthDay } from "./calendar.ts";
import { INCOME_CHAINS } from "./concepts.ts";
import { type Fact, FactIndex } from "./facts.ts";
import { buildFundamentals } from "./fundamentals.ts";
import { PeriodResolver } from "./periods.ts";
import type { PriceSeries } from "./prices.ts";
import { computeRatios, type RatioRow } from "./ratios.ts";
import { detectSplits, type Split } from "./splits.ts";
import { buildStatements, reportingCurrency, type Statement } from "./statements.ts";

export interface CompanyModel {
  resolver: PeriodResolver;
  calendar: FiscalCalendar;
  splits: Split[];
  currency: string;
  statements: Statement[];
}

const ANNUAL_FORMS = /^(10-K|20-F|40-F|10-KT)/;

/**
 * The fiscal calendar from the company's annual income-statement periods. The naming
 * offset comes from each annual report's own (latest) period and the fiscal year the
 * filing states for it; comparative columns never vote.
 */
export function companyCalendar(index: FactIndex, fiscalYearEnd: string | null): FiscalCalendar {
  const ends: string[] = [];
  const ownByFiling = new Map<string, { fyEnd: string; fy: number }>();
  for (const chain of Object.values(INCOME_CHAINS)) {
    for (const concept of chain) {
      for (const f of index.of(concept)) {
        if (f.start === null || classifyDuration(f.start, f.end) !== "annual") continue;
        ends.push(f.end);
        if (f.fy === null || f.fp !== "FY" || !ANNUAL_FORMS.test(f.form)) continue;
        const cur = ownByFiling.get(f.accn);
        if (!cur || f.end > cur.fyEnd) ownByFiling.set(f.accn, { fyEnd: f.end, fy: f.fy });
      }
    }
  }
  const provisional = new FiscalCalendar(ends, 0, parseMonthDay(fiscalYearEnd));
  const own = [...ownByFiling.values()].flatMap((o) => {
    const fyEnd = provisional.fiscalYearEndFor(o.fyEnd);
    return fyEnd ? [{ fyEnd, fy: o.fy }] : [];
  });
  return new FiscalCalendar(ends, learnYearOffset(own), parseMonthDay(fiscalYearEnd));
}

/**
 * Forms whose facts are financial statements. Proxy statements (DEF 14A) tag the year's net
 * income for pay-versus-performance tables and are filed after the 10-K; letting them win
 * "latest filing" would make a proxy the reference filing of a fiscal year.
 */
export const STATEMENT_FORMS = /^(10-K|10-Q|10-KT|10-QT|20-F|40-F|6-K|S-1|S-4|F-1|F-4|8-K)(\/A)?$/;

export function buildCompanyModel(allFacts: readonly Fact[], fiscalYearEnd: string | null = null): CompanyModel {
  const facts = allFacts.filter((f) => STATEMENT_FORMS.test(f.form));
  const index = new FactIndex(facts);
  const calendar = companyCalendar(index, fiscalYearEnd);
  const resolver = new PeriodResolver(index, calendar);
  const splits = detectSplits(facts);
  const currency = reportingCurrency(resolver);
  return { resolver, calendar, splits, currency, statements: buildStatements(resolver, currency, splits) };
}

export interface DerivedCompany {
  model: CompanyModel;
  income: { record: IncomeStatementRecord; period_start: string; provenance: Statement["provenance"] }[];
  ratios: RatioRow[];
}

/** Statements and ratios of one company, ready to store. */
export function deriveCompany(input: {
  cik: string;
  ticker: string | null;
  facts: readonly Fact[];
  fiscalYearEnd?: string | null;
  prices?: readonly PriceSeries[];
}): DerivedCompany {
  const model = buildCompanyModel(input.facts, input.fiscalYearEnd ?? null);
  const fundamentals = buildFundamentals(model.resolver, model.statements, model.currency, model.splits);
  const ratios = computeRatios({
    statements: model.statements,
    fundamentals,
    currency: model.currency,
    splits: model.splits,
    prices: input.prices ?? [],
  });
  const income = model.statements.map((st) => ({
    record: toIncomeRecord(st, input.cik, input.ticker),
    period_start: st.period.start,
    provenance: st.provenance,
  }));
  return { model, income, ratios };
}

export function toIncomeRecord(st: Statement, cik: string, ticker: string | null): IncomeStatementRecord {
  const v = st.values;
  return {
    cik,
    ticker,
    fiscal_period_code: st.period.code,
    period_type: st.period.kind === "annual" ? "annual" : "quarterly",
    report_period: st.period.end,
    fiscal_year: st.period.fiscal_year,
    accession_number: st.accession_number,
    revenue: v.revenue,
    cost_of_revenue: v.cost_of_revenue,
    gross_profit: v.gross_profit,
    operating_expense: v.operating_expense,
    research_and_development: v.research_and_development,
    selling_general_and_administrative_expenses: v.selling_general_and_administrative_expenses,
    operating_income: v.operating_income,
    ebit: v.ebit,
    net_income: v.net_income,
    earnings_per_share: v.earnings_per_share,
    earnings_per_share_diluted: v.earnings_per_share_diluted,
    weighted_average_shares: v.weighted_average_shares,
    weighted_average_shares_diluted: v.weighted_average_shares_diluted,
  };
}
