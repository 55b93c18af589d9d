/**
 * Opens a workbook the way a user's spreadsheet program would: LibreOffice converts it
 * headless to one CSV per sheet with every cell "as shown" (number formats applied), so
 * tests can assert what a reader sees. Under CI a missing LibreOffice fails the suite
 * (scripts/engines.sh installs it); locally the suite is skipped with a note.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export function sofficePath(): string | undefined {
  const found = Bun.which("soffice") ?? Bun.which("libreoffice") ?? undefined;
  if (found) return found;
  if (process.env.CI) throw new Error("LibreOffice (soffice) is not installed: run scripts/engines.sh start under CI");
  process.stderr.write(
    "[skip] xlsx-in-LibreOffice checks: soffice not found (apt-get install libreoffice-calc-nogui)\n",
  );
  return undefined;
}

/**
 * CSV filter options: comma, double quote, UTF-8, from line 1, then token 9 "save cell
 * contents as shown" = true and token 12 = -1 (every sheet to its own file, LibreOffice 7.2+).
 */
const CSV_FILTER = "csv:Text - txt - csv (StarCalc):44,34,76,1,,0,false,true,true,false,false,-1";

/** Sheet name -> rows of displayed cell text. */
export async function xlsxAsShown(soffice: string, xlsx: Uint8Array): Promise<Map<string, string[][]>> {
  const dir = mkdtempSync(join(tmpdir(), "cairn-lo-"));
  try {
    writeFileSync(join(dir, "book.xlsx"), xlsx);
    const proc = Bun.spawn(
      [
        soffice,
        // A private profile: parallel runs must not fight over the user's profile lock.
        `-env:UserInstallation=file://${join(dir, "profile")}`,
        "--headless",
        "--norestore",
        "--convert-to",
        CSV_FILTER,
        "--outdir",
        join(dir, "out"),
        join(dir, "book.xlsx"),
      ],
      // en-US display rules (thousands comma, decimal point) whatever the machine's locale.
      { env: { ...process.env, LC_ALL: "en_US.UTF-8", LANG: "en_US.UTF-8" }, stdout: "pipe", stderr: "pipe" },
    );
    const timer = setTimeout(() => proc.kill(), 120_000);
    const code = await proc.exited;
    clearTimeout(timer);
    if (code !== 0) throw new Error(`soffice exited ${code}: ${await new Response(proc.stderr).text()}`);
    const sheets = new Map<string, string[][]>();
    for (const f of readdirSync(join(dir, "out"))) {
      const m = /^book-(.+)\.csv$/.exec(f);
      if (m?.[1]) sheets.set(m[1], parseCsv(readFileSync(join(dir, "out", f), "utf8")));
    }
    return sheets;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** RFC 4180: quoted fields may hold commas, doubled quotes and line breaks. */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else field += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ",") {
      row.push(field);
      field = "";
    } else if (ch === "\n" || ch === "\r") {
      if (ch === "\r" && text[i + 1] === "\n") i++;
      row.push(field);
      rows.push(row);
      row = [];
      field = "";
    } else field += ch;
  }
  if (field !== "" || row.length > 0) {
    row.push(field);
    rows.push(row);
  }
  return rows;
}
