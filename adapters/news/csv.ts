/**
 * RFC 4180 reader: quoted fields may hold delimiters, doubled quotes and line breaks
 * (Reddit post bodies do). GDELT exports use the same reader with a tab delimiter.
 */
export function parseDelimited(text: string, delimiter = ","): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = "";
  let quoted = false;
  let i = 0;
  const n = text.length;
  // A BOM would otherwise become part of the first header name.
  if (text.charCodeAt(0) === 0xfeff) i = 1;
  while (i < n) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i += 2;
          continue;
        }
        quoted = false;
      } else {
        field += ch;
      }
      i++;
      continue;
    }
    if (ch === '"' && field === "") {
      quoted = true;
    } else if (ch === delimiter) {
      row.push(field);
      field = "";
    } else if (ch === "\n" || ch === "\r") {
      if (ch === "\r" && text[i + 1] === "\n") i++;
      row.push(field);
      rows.push(row);
      row = [];
      field = "";
    } else {
      field += ch;
    }
    i++;
  }
  if (field !== "" || row.length > 0) {
    row.push(field);
    rows.push(row);
  }
  return rows;
}

/** Rows as objects keyed by the header row (lower-cased); short rows get "" for missing cells. */
export function parseCsvObjects(text: string, delimiter = ","): Record<string, string>[] {
  const [header, ...rows] = parseDelimited(text, delimiter);
  if (!header) return [];
  const keys = header.map((h) => h.trim().toLowerCase());
  return rows
    .filter((r) => r.length > 1 || (r[0] ?? "") !== "")
    .map((r) => Object.fromEntries(keys.map((k, idx) => [k, r[idx] ?? ""])));
}
