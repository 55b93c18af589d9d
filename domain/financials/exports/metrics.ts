/**
 * The metrics an export can show: every numeric field of the income statement (spec 2.14)
 * and of the ratio record (spec 2.13), each with a label and a display format. Comps
 * requests name metrics by these field names.
 */
import { INCOME_FIELDS, type IncomeField, RATIO_FIELDS, type RatioField } from "../fields.ts";
import type { CellFormat } from "./workbook.ts";

export { INCOME_FIELDS, type IncomeField };

export interface MetricDef {
  label: string;
  format: CellFormat;
}

export const INCOME_METRICS: Record<IncomeField, MetricDef> = {
  revenue: { label: "Revenue", format: "money" },
  cost_of_revenue: { label: "Cost of revenue", format: "money" },
  gross_profit: { label: "Gross profit", format: "money" },
  operating_expense: { label: "Operating expenses", format: "money" },
  research_and_development: { label: "Research and development", format: "money" },
  selling_general_and_administrative_expenses: { label: "Selling, general and administrative", format: "money" },
  operating_income: { label: "Operating income", format: "money" },
  ebit: { label: "EBIT", format: "money" },
  net_income: { label: "Net income", format: "money" },
  earnings_per_share: { label: "EPS (basic)", format: "per_share" },
  earnings_per_share_diluted: { label: "EPS (diluted)", format: "per_share" },
  weighted_average_shares: { label: "Weighted average shares (basic)", format: "count" },
  weighted_average_shares_diluted: { label: "Weighted average shares (diluted)", format: "count" },
};

const pct = (label: string): MetricDef => ({ label, format: "percent" });
const ratio = (label: string): MetricDef => ({ label, format: "ratio" });

export const RATIO_METRICS: Record<RatioField, MetricDef> = {
  gross_margin: pct("Gross margin"),
  operating_margin: pct("Operating margin"),
  net_margin: pct("Net margin"),
  return_on_equity: pct("Return on equity"),
  return_on_assets: pct("Return on assets"),
  return_on_invested_capital: pct("Return on invested capital"),
  asset_turnover: ratio("Asset turnover"),
  inventory_turnover: ratio("Inventory turnover"),
  receivables_turnover: ratio("Receivables turnover"),
  days_sales_outstanding: ratio("Days sales outstanding"),
  operating_cycle: ratio("Operating cycle (days)"),
  working_capital_turnover: ratio("Working capital turnover"),
  current_ratio: ratio("Current ratio"),
  quick_ratio: ratio("Quick ratio"),
  cash_ratio: ratio("Cash ratio"),
  operating_cash_flow_ratio: ratio("Operating cash flow ratio"),
  debt_to_equity: ratio("Debt to equity"),
  debt_to_assets: ratio("Debt to assets"),
  interest_coverage: ratio("Interest coverage"),
  revenue_growth: pct("Revenue growth"),
  earnings_growth: pct("Earnings growth"),
  book_value_growth: pct("Book value growth"),
  earnings_per_share_growth: pct("EPS growth"),
  free_cash_flow_growth: pct("Free cash flow growth"),
  operating_income_growth: pct("Operating income growth"),
  ebitda_growth: pct("EBITDA growth"),
  payout_ratio: pct("Payout ratio"),
  earnings_per_share: { label: "EPS", format: "per_share" },
  book_value_per_share: { label: "Book value per share", format: "per_share" },
  free_cash_flow_per_share: { label: "Free cash flow per share", format: "per_share" },
  enterprise_value: { label: "Enterprise value", format: "money" },
  price_to_earnings_ratio: ratio("P/E"),
  price_to_book_ratio: ratio("P/B"),
  price_to_sales_ratio: ratio("P/S"),
  enterprise_value_to_ebitda_ratio: ratio("EV / EBITDA"),
  enterprise_value_to_revenue_ratio: ratio("EV / Revenue"),
  free_cash_flow_yield: pct("Free cash flow yield"),
  peg_ratio: ratio("PEG"),
};

/**
 * Names a comps request may ask for. earnings_per_share exists in both records; the name
 * resolves to the income statement's as-reported value (listed once, income first).
 */
export const COMPS_METRICS: readonly string[] = [
  ...INCOME_FIELDS,
  ...RATIO_FIELDS.filter((f) => !(INCOME_FIELDS as readonly string[]).includes(f)),
];

export const DEFAULT_COMPS_METRICS = [
  "revenue",
  "net_income",
  "gross_margin",
  "operating_margin",
  "net_margin",
  "return_on_equity",
  "revenue_growth",
  "earnings_per_share_diluted",
  "current_ratio",
  "debt_to_equity",
  "price_to_earnings_ratio",
] as const;

export type MetricSource = { from: "income"; field: IncomeField } | { from: "ratios"; field: RatioField };

/** Where a comps metric name comes from, or null when it is not a metric. */
export function resolveMetric(name: string): (MetricSource & MetricDef) | null {
  if ((INCOME_FIELDS as readonly string[]).includes(name)) {
    const field = name as IncomeField;
    return { from: "income", field, ...INCOME_METRICS[field] };
  }
  if ((RATIO_FIELDS as readonly string[]).includes(name)) {
    const field = name as RatioField;
    return { from: "ratios", field, ...RATIO_METRICS[field] };
  }
  return null;
}
