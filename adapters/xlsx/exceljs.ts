/**
 * Renders a WorkbookSpec to an Office Open XML workbook with ExcelJS. Formats are
 * Excel number formats, so the values stay numbers (sortable, usable in formulas) and
 * only their display changes; nulls are left as truly empty cells.
 */
import ExcelJS from "exceljs";
import type { Cell, CellFormat, SheetSpec, WorkbookSpec } from "../../domain/financials/exports/index.ts";
import type { SpreadsheetRenderer } from "../../domain/financials/ports.ts";

export const XLSX_CONTENT_TYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet";

/** Excel number format per kind; `@` would make numbers text, so text cells get none. */
export const NUMBER_FORMATS: Record<Exclude<CellFormat, "text">, string> = {
  money: "#,##0",
  count: "#,##0",
  per_share: "#,##0.00",
  ratio: "#,##0.00",
  percent: "0.0%",
  date: "yyyy-mm-dd",
};

const HEADER_FILL: ExcelJS.Fill = { type: "pattern", pattern: "solid", fgColor: { argb: "FFE7EBF0" } };
const DATE_RE = /^\d{4}-\d{2}-\d{2}$/;

function writeCell(target: ExcelJS.Cell, cell: Cell): void {
  if (cell.value === null) return;
  if (cell.format === "date" && typeof cell.value === "string" && DATE_RE.test(cell.value)) {
    // A real date cell (UTC midnight), so it sorts and filters as a date.
    target.value = new Date(`${cell.value}T00:00:00Z`);
    target.numFmt = NUMBER_FORMATS.date;
  } else if (cell.link && typeof cell.value === "string") {
    target.value = { text: cell.value, hyperlink: cell.link };
    target.font = { color: { argb: "FF1F4E9A" }, underline: true };
  } else {
    target.value = cell.value;
    if (typeof cell.value === "number" && cell.format && cell.format !== "text") {
      target.numFmt = NUMBER_FORMATS[cell.format];
    }
  }
  if (cell.bold || cell.italic) target.font = { ...target.font, bold: !!cell.bold, italic: !!cell.italic };
}

function writeSheet(wb: ExcelJS.Workbook, spec: SheetSpec): void {
  const ws = wb.addWorksheet(spec.name, {
    views: [
      {
        state: "frozen",
        xSplit: spec.freeze.columns,
        ySplit: spec.freeze.rows,
        activeCell: "A1",
      },
    ],
  });
  ws.columns = spec.columns.map((c) => ({ header: c.header, width: c.width }));
  const header = ws.getRow(1);
  header.font = { bold: true };
  header.alignment = { vertical: "middle", wrapText: true };
  header.eachCell((cell) => {
    cell.fill = HEADER_FILL;
    cell.border = { bottom: { style: "thin" } };
  });

  spec.rows.forEach((cells, i) => {
    const row = ws.getRow(i + 2);
    cells.forEach((cell, j) => {
      writeCell(row.getCell(j + 1), cell);
    });
  });
  // Notes go below a blank row so a reader (or a CSV consumer) sees where the table ends.
  spec.notes.forEach((line, i) => {
    const cell = ws.getRow(spec.rows.length + 3 + i).getCell(1);
    cell.value = line;
    cell.font = { italic: true, color: { argb: "FF555555" } };
  });
}

export class ExcelJsRenderer implements SpreadsheetRenderer {
  readonly contentType = XLSX_CONTENT_TYPE;
  readonly extension = "xlsx";

  async render(spec: WorkbookSpec): Promise<Uint8Array<ArrayBuffer>> {
    const wb = new ExcelJS.Workbook();
    wb.creator = "Cairn";
    wb.title = spec.title;
    wb.created = new Date();
    for (const sheet of spec.sheets) writeSheet(wb, sheet);
    const out = await wb.xlsx.writeBuffer();
    return new Uint8Array(out as ArrayBuffer);
  }
}
