/**
 * Concept chains: for each standardised line, the XBRL concepts that report it, in order
 * of preference. Within one filing the first concept present wins; across filings the
 * latest filing wins (a restatement replaces the original). US-GAAP and IFRS (ifrs-full)
 * filers share the chains, so 20-F filers are served by the same code.
 */
import type { ConceptKey } from "./facts.ts";

export type Chain = readonly ConceptKey[];

/** Income statement lines (durations). */
export const INCOME_CHAINS = {
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
  gross_profit: ["us-gaap:GrossProfit", "ifrs-full:GrossProfit"],
  operating_expense: ["us-gaap:OperatingExpenses", "ifrs-full:OperatingExpense"],
  research_and_development: [
    "us-gaap:ResearchAndDevelopmentExpense",
    "us-gaap:ResearchAndDevelopmentExpenseExcludingAcquiredInProcessCost",
    "ifrs-full:ResearchAndDevelopmentExpense",
  ],
  selling_general_and_administrative_expenses: [
    "us-gaap:SellingGeneralAndAdministrativeExpense",
    "ifrs-full:SellingGeneralAndAdministrativeExpense",
  ],
  selling_and_marketing: ["us-gaap:SellingAndMarketingExpense", "ifrs-full:SellingExpense"],
  general_and_administrative: [
    "us-gaap:GeneralAndAdministrativeExpense",
    "ifrs-full:AdministrativeExpense",
    "ifrs-full:GeneralAndAdministrativeExpense",
  ],
  operating_income: ["us-gaap:OperatingIncomeLoss", "ifrs-full:ProfitLossFromOperatingActivities"],
  pretax_income: [
    "us-gaap:IncomeLossFromContinuingOperationsBeforeIncomeTaxesExtraordinaryItemsNoncontrollingInterest",
    "us-gaap:IncomeLossFromContinuingOperationsBeforeIncomeTaxesMinorityInterestAndIncomeLossFromEquityMethodInvestments",
    "ifrs-full:ProfitLossBeforeTax",
  ],
  income_tax: ["us-gaap:IncomeTaxExpenseBenefit", "ifrs-full:IncomeTaxExpenseContinuingOperations"],
  interest_expense: [
    "us-gaap:InterestExpense",
    "us-gaap:InterestExpenseNonoperating",
    "us-gaap:InterestExpenseDebt",
    "ifrs-full:InterestExpense",
    "ifrs-full:FinanceCosts",
  ],
  net_income: [
    "us-gaap:NetIncomeLoss",
    "us-gaap:ProfitLoss",
    "us-gaap:NetIncomeLossAvailableToCommonStockholdersBasic",
    "ifrs-full:ProfitLossAttributableToOwnersOfParent",
    "ifrs-full:ProfitLoss",
  ],
  earnings_per_share: [
    "us-gaap:EarningsPerShareBasic",
    "us-gaap:EarningsPerShareBasicAndDiluted",
    "ifrs-full:BasicEarningsLossPerShare",
  ],
  earnings_per_share_diluted: [
    "us-gaap:EarningsPerShareDiluted",
    "us-gaap:EarningsPerShareBasicAndDiluted",
    "ifrs-full:DilutedEarningsLossPerShare",
  ],
  weighted_average_shares: [
    "us-gaap:WeightedAverageNumberOfSharesOutstandingBasic",
    "us-gaap:WeightedAverageNumberOfShareOutstandingBasicAndDiluted",
    "ifrs-full:WeightedAverageShares",
  ],
  weighted_average_shares_diluted: [
    "us-gaap:WeightedAverageNumberOfDilutedSharesOutstanding",
    "us-gaap:WeightedAverageNumberOfShareOutstandingBasicAndDiluted",
    "ifrs-full:AdjustedWeightedAverageShares",
  ],
} as const satisfies Record<string, Chain>;

export type IncomeLine = keyof typeof INCOME_CHAINS;

/** Cash-flow lines (durations; 10-Qs report them year-to-date). */
export const CASH_FLOW_CHAINS = {
  operating_cash_flow: [
    "us-gaap:NetCashProvidedByUsedInOperatingActivities",
    "us-gaap:NetCashProvidedByUsedInOperatingActivitiesContinuingOperations",
    "ifrs-full:CashFlowsFromUsedInOperatingActivities",
    "ifrs-full:CashFlowsFromUsedInOperations",
  ],
  capital_expenditure: [
    "us-gaap:PaymentsToAcquirePropertyPlantAndEquipment",
    "us-gaap:PaymentsToAcquireProductiveAssets",
    "ifrs-full:PurchaseOfPropertyPlantAndEquipmentClassifiedAsInvestingActivities",
  ],
  depreciation_and_amortization: [
    "us-gaap:DepreciationDepletionAndAmortization",
    "us-gaap:DepreciationAndAmortization",
    "us-gaap:DepreciationAmortizationAndAccretionNet",
    "ifrs-full:AdjustmentsForDepreciationAndAmortisationExpense",
    "ifrs-full:DepreciationAndAmortisationExpense",
  ],
  dividends_paid: [
    "us-gaap:PaymentsOfDividends",
    "us-gaap:PaymentsOfDividendsCommonStock",
    "ifrs-full:DividendsPaidClassifiedAsFinancingActivities",
  ],
} as const satisfies Record<string, Chain>;

export type CashFlowLine = keyof typeof CASH_FLOW_CHAINS;

/** Balance-sheet lines (instants at the period end). */
export const BALANCE_CHAINS = {
  total_assets: ["us-gaap:Assets", "ifrs-full:Assets"],
  current_assets: ["us-gaap:AssetsCurrent", "ifrs-full:CurrentAssets"],
  current_liabilities: ["us-gaap:LiabilitiesCurrent", "ifrs-full:CurrentLiabilities"],
  equity: [
    "us-gaap:StockholdersEquity",
    "us-gaap:StockholdersEquityIncludingPortionAttributableToNoncontrollingInterest",
    "ifrs-full:EquityAttributableToOwnersOfParent",
    "ifrs-full:Equity",
  ],
  cash: [
    "us-gaap:CashAndCashEquivalentsAtCarryingValue",
    "us-gaap:CashCashEquivalentsRestrictedCashAndRestrictedCashEquivalents",
    "ifrs-full:CashAndCashEquivalents",
  ],
  short_term_investments: [
    "us-gaap:MarketableSecuritiesCurrent",
    "us-gaap:ShortTermInvestments",
    "us-gaap:AvailableForSaleSecuritiesDebtSecuritiesCurrent",
    "ifrs-full:CurrentInvestments",
  ],
  receivables: [
    "us-gaap:AccountsReceivableNetCurrent",
    "us-gaap:ReceivablesNetCurrent",
    "ifrs-full:TradeAndOtherCurrentReceivables",
  ],
  inventory: ["us-gaap:InventoryNet", "ifrs-full:Inventories"],
  long_term_debt_total: ["us-gaap:LongTermDebt", "ifrs-full:Borrowings"],
  long_term_debt_noncurrent: ["us-gaap:LongTermDebtNoncurrent", "ifrs-full:LongtermBorrowings"],
  long_term_debt_current: ["us-gaap:LongTermDebtCurrent", "ifrs-full:CurrentPortionOfLongtermBorrowings"],
  commercial_paper: ["us-gaap:CommercialPaper"],
  short_term_borrowings: ["us-gaap:ShortTermBorrowings", "ifrs-full:ShorttermBorrowings"],
  shares_outstanding: ["us-gaap:CommonStockSharesOutstanding", "ifrs-full:NumberOfSharesOutstanding"],
} as const satisfies Record<string, Chain>;

export type BalanceLine = keyof typeof BALANCE_CHAINS;

/** Cover-page shares outstanding (dei), dated a few weeks after the period end. */
export const COVER_SHARES: ConceptKey = "dei:EntityCommonStockSharesOutstanding";

/** Lines whose values are counts of shares or amounts per share (restated for splits). */
export const SHARE_LINES = new Set<string>([
  "weighted_average_shares",
  "weighted_average_shares_diluted",
  "shares_outstanding",
]);
export const PER_SHARE_LINES = new Set<string>(["earnings_per_share", "earnings_per_share_diluted"]);
