export {
  addDays,
  classifyDuration,
  dayNumber,
  durationDays,
  FiscalCalendar,
  type FiscalLabel,
  type FiscalPeriodCode,
  fiscalYearName,
  parseMonthDay,
} from "./calendar.ts";
export { type CompanyModel, type DerivedCompany, deriveCompany, STATEMENT_FORMS, toIncomeRecord } from "./company.ts";
export { BALANCE_CHAINS, CASH_FLOW_CHAINS, INCOME_CHAINS } from "./concepts.ts";
export { type Fact, FactIndex, latestPerConcept } from "./facts.ts";
export { type PricePoint, type PriceSeries, parseDailyCsv, parseMonthlyLongCsv, priceAt } from "./prices.ts";
export { computeRatios, type RatioProvenance, type RatioRow, toRatioRecord } from "./ratios.ts";
export {
  BREAKDOWN_AXES,
  type InstanceMeta,
  memberLabel,
  parseFlatFacts,
  parseInstance,
  type SegmentFact,
} from "./segments.ts";
export { detectSplits, filingSplitFactor, type Split, splitFactor } from "./splits.ts";
export type { Provenance, Statement } from "./statements.ts";
