/**
 * 8-K ingest: complete SGML submissions (.txt/.nc), stand-alone HTML documents and PDF
 * exhibits under a directory become FilingRecords with Markdown bodies. Files of one
 * filing are grouped by the accession number their name starts with; files that state
 * none ("Buckle_8-K_2024-11-22.html" + "..._EX-99.1.html") are grouped by name and kept
 * under "file:<name>" (fed to topics, but not addressable as a presentation). Only the
 * 8-K body and EX-99 exhibits are kept: other exhibits are contracts and XBRL.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { basename, extname, join } from "node:path";
import { normalizeCik } from "../../../domain/financials/fields.ts";
import type { FilingDocument, FilingRecord, FilingStore } from "../../../domain/financials/presentations.ts";
import { CompanyDirectory, findReferenceFile } from "../reference/index.ts";
import { htmlToMarkdown } from "./html-markdown.ts";
import { docTypeLabel, type HtmlCover, readHtmlCover, secUrl } from "./metadata.ts";
import { pdfToMarkdown } from "./pdf-markdown.ts";
import { isSgmlSubmission, parseSgmlHeader, type SgmlHeader, splitSgmlDocuments, uudecode } from "./sgml.ts";

const KEPT_TYPES = /^(8-K|EX-99)/i;
const ACCESSION_PREFIX = /^(\d{10}-\d{2}-\d{6})(.*)$/;

interface FileName {
  groupKey: string;
  accession: string | null;
  typeHint: string | null;
  filename: string | null;
}

/** "<accession>_<TYPE>_<original name>", "<accession>.html" or "<stem>[_EX-99.1].html". */
export function describeFileName(name: string): FileName {
  const stem = name.slice(0, name.length - extname(name).length);
  const acc = ACCESSION_PREFIX.exec(name);
  if (acc?.[1]) {
    const typed = /^_(8-K|EX-\d+(?:\.\d+)?)_(.+)$/i.exec(acc[2] ?? "");
    return {
      groupKey: acc[1],
      accession: acc[1],
      typeHint: typed?.[1]?.toUpperCase() ?? null,
      filename: typed?.[2] ?? null,
    };
  }
  const ex = /^(.*)_(EX-\d+(?:\.\d+)?)$/i.exec(stem);
  return {
    groupKey: `file:${ex?.[1] ?? stem}`,
    accession: null,
    typeHint: ex?.[2]?.toUpperCase() ?? null,
    filename: null,
  };
}

interface PendingDoc {
  type: string;
  sequence: number | null;
  filename: string | null;
  description: string | null;
  markdown: string;
  fromSubmission: boolean;
}

interface Group {
  key: string;
  accession: string | null;
  header: SgmlHeader | null;
  cover: HtmlCover | null;
  files: string[];
  docs: PendingDoc[];
}

async function documentMarkdown(text: string, filename: string | null): Promise<string> {
  if (filename?.toLowerCase().endsWith(".pdf")) {
    const bytes = uudecode(text);
    return bytes ? (await pdfToMarkdown(bytes)).markdown : "";
  }
  if (/<(html|body|div|p|table)[\s>]/i.test(text)) return htmlToMarkdown(text);
  return text.replace(/<\/?PRE>/gi, "").trim();
}

async function readInto(group: Group, path: string, name: FileName): Promise<void> {
  const ext = extname(path).toLowerCase();
  if (ext === ".pdf") {
    const { markdown } = await pdfToMarkdown(new Uint8Array(readFileSync(path)));
    const type = name.typeHint ?? "EX-99";
    group.docs.push({
      type,
      sequence: null,
      filename: name.filename,
      description: null,
      markdown,
      fromSubmission: false,
    });
    return;
  }
  const content = readFileSync(path, "utf8");
  if (isSgmlSubmission(content)) {
    group.header = parseSgmlHeader(content);
    for (const d of splitSgmlDocuments(content)) {
      if (!KEPT_TYPES.test(d.type)) continue;
      const markdown = await documentMarkdown(d.text, d.filename);
      group.docs.push({ ...d, markdown, fromSubmission: true });
    }
    return;
  }
  // A single document, possibly still in its SGML <DOCUMENT> wrapper (type, file name).
  const wrapped = splitSgmlDocuments(content)[0];
  const type = wrapped?.type ?? name.typeHint;
  const markdown = htmlToMarkdown(content);
  if (!type || /^8-K/i.test(type)) group.cover ??= readHtmlCover(content);
  group.docs.push({
    type: type ?? group.cover?.form_type ?? "8-K",
    sequence: wrapped?.sequence ?? null,
    filename: wrapped?.filename ?? name.filename,
    description: wrapped?.description ?? null,
    markdown,
    fromSubmission: false,
  });
}

function finish(g: Group, companies: CompanyDirectory): FilingRecord {
  const cik = normalizeCik(g.header?.cik ?? g.cover?.cik ?? "");
  const company = cik ? companies.byCik(cik) : null;
  // A stand-alone copy of a document the submission already holds adds nothing.
  const docs = [...g.docs.filter((d) => d.fromSubmission)];
  for (const d of g.docs) if (!d.fromSubmission && !docs.some((x) => x.type === d.type)) docs.push(d);
  let next = Math.max(0, ...docs.map((d) => d.sequence ?? 0)) + 1;
  const numbered = docs
    .filter((d) => KEPT_TYPES.test(d.type) && d.markdown.trim())
    .map((d) => ({ ...d, sequence: d.sequence ?? (/^8-K/i.test(d.type) ? 1 : next++) }))
    .sort((a, b) => a.sequence - b.sequence);
  const documents: FilingDocument[] = numbered.map((d) => ({
    doc_type: d.type,
    sequence: d.sequence,
    filename: d.filename,
    description: d.description,
    doc_type_label: docTypeLabel(d.type, d.description, d.markdown),
    sec_url: secUrl(cik, g.accession, d.filename),
    markdown: d.markdown,
  }));
  return {
    filing_key: g.key,
    accession_number: g.accession,
    cik,
    ticker: company?.ticker ?? g.cover?.ticker ?? null,
    company_name: company?.name ?? g.header?.company_name ?? g.cover?.company_name ?? null,
    form_type: g.header?.form_type ?? g.cover?.form_type ?? "8-K",
    filed_date: g.header?.filed_date ?? g.cover?.date_of_report ?? g.header?.period_of_report ?? null,
    source_file: g.files.join(", "),
    documents,
  };
}

export interface FilingIngestReport {
  files: number;
  filings: number;
  documents: number;
  with_accession: number;
  skipped: { file: string; reason: string }[];
}

export async function ingestFilingsDirectory(
  store: { filings: FilingStore },
  dir: string,
  opts: { companyTickersPath?: string } = {},
): Promise<FilingIngestReport> {
  const tickers = opts.companyTickersPath ?? findReferenceFile(dir, "sec/company_tickers.json");
  const companies = tickers ? CompanyDirectory.load(tickers) : CompanyDirectory.empty();
  const report: FilingIngestReport = { files: 0, filings: 0, documents: 0, with_accession: 0, skipped: [] };
  const groups = new Map<string, Group>();
  const files = readdirSync(dir)
    .filter((n) => /\.(txt|nc|html?|pdf)$/i.test(n) && statSync(join(dir, n)).isFile())
    .sort();
  for (const file of files) {
    report.files++;
    const name = describeFileName(file);
    const g = groups.get(name.groupKey) ?? {
      key: name.groupKey,
      accession: name.accession,
      header: null,
      cover: null,
      files: [],
      docs: [],
    };
    groups.set(name.groupKey, g);
    g.files.push(basename(file));
    try {
      await readInto(g, join(dir, file), name);
    } catch (err) {
      report.skipped.push({ file, reason: (err as Error).message });
    }
  }
  for (const g of groups.values()) {
    if (g.header?.accession_number && !g.accession) {
      g.accession = g.header.accession_number;
      g.key = g.accession;
    }
    const record = finish(g, companies);
    if (record.documents.length === 0) continue;
    await store.filings.upsertFiling(record);
    report.filings++;
    report.documents += record.documents.length;
    if (record.accession_number) report.with_accession++;
  }
  return report;
}
