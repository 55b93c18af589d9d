/**
 * A spreadsheet described as data: sheets, typed cells and a format kind per cell.
 * Builders produce this from financial records (pure, testable without a file format);
 * the xlsx adapter turns it into bytes. Keeping the number formats as kinds rather than
 * Excel format strings lets the builders stay ignorant of the file format.
 */

/**
 * How a number is shown. money/count: thousands separators, no decimals; per_share and
 * ratio: two decimals; percent: the value is a fraction (0.441) shown as 44.1%;
 * date: an ISO date string written as a real date cell.
 */
export type CellFormat = "text" | "money" | "count" | "per_share" | "ratio" | "percent" | "date";

export interface Cell {
  /** null is written as an empty cell, never as 0. */
  value: string | number | null;
  format?: CellFormat;
  /** Makes the cell a hyperlink (provenance: the filing on EDGAR). */
  link?: string;
  bold?: boolean;
  italic?: boolean;
}

export interface SheetSpec {
  /** At most 31 characters, none of []:*?/\ (Excel's rules). */
  name: string;
  /** Header row (row 1, bold, frozen) and the column widths in characters. */
  columns: { header: string; width: number }[];
  rows: Cell[][];
  /** Frozen panes: header rows and leading label columns that stay visible on scroll. */
  freeze: { rows: number; columns: number };
  /** Free-text lines written below the table after a blank row (provenance, caveats). */
  notes: string[];
}

export interface WorkbookSpec {
  title: string;
  sheets: SheetSpec[];
}

export const text = (value: string | null, extra: Omit<Cell, "value" | "format"> = {}): Cell => ({
  value,
  format: "text",
  ...extra,
});

export const num = (value: number | null, format: CellFormat): Cell => ({
  // NaN/Infinity cannot be stored in a spreadsheet cell and mean "not computable" here.
  value: value !== null && Number.isFinite(value) ? value : null,
  format,
});
