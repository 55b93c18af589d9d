export { ExcelJsRenderer, NUMBER_FORMATS, XLSX_CONTENT_TYPE } from "./exceljs.ts";
