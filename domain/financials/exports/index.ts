export {
  buildCompsWorkbook,
  COMPS_PERIODS,
  COMPS_SHEET,
  type CompsCompany,
  type CompsPeriod,
  compsFileName,
} from "./comps-workbook.ts";
export {
  buildFinancialsWorkbook,
  FINANCIALS_SHEETS,
  type FinancialsExportData,
  financialsFileName,
} from "./financials-workbook.ts";
export { type FinancialsSelection, loadComps, loadFinancialsExport } from "./load.ts";
export {
  COMPS_METRICS,
  DEFAULT_COMPS_METRICS,
  INCOME_FIELDS,
  INCOME_METRICS,
  type MetricDef,
  RATIO_METRICS,
  resolveMetric,
} from "./metrics.ts";
export type { Cell, CellFormat, SheetSpec, WorkbookSpec } from "./workbook.ts";
