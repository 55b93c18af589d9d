/**
 * Ingest from a local directory laid out like the shared data's `sec/` folder:
 *
 *   company_tickers.json            ticker <-> CIK map (optional)
 *   submissions/CIK##########.json  company profiles and filing lists
 *   companyfacts/CIK##########.json XBRL facts
 *   xbrl/<filing>/*_htm.xml         XBRL instances (+ metadata.json naming the accession)
 *   xbrl/extracted/*.csv            flattened facts with a dimensions column
 *
 * Prices for market ratios come from a sibling `market/` directory unless another is named.
 */
import { existsSync, readdirSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import type { Logger } from "pino";
import type { FinancialsStore } from "../../../domain/financials/ports.ts";
import { parseFlatFacts, parseInstance } from "../../../domain/financials/sec/index.ts";
import {
  type IngestContext,
  ingestCompanyFacts,
  ingestSegments,
  ingestSubmissions,
  type SegmentSource,
  type StepStatus,
  sha256,
  yieldToLoop,
} from "./ingest.ts";
import { loadPriceBook } from "./market.ts";
import { parseTickers, type TickerMap } from "./sources.ts";

export interface DirectoryIngestOptions {
  /** Market-data directory; default `<dir>/../market` when it exists; null for none. */
  marketDir?: string | null;
  force?: boolean;
  logger?: Logger;
}

export interface IngestReport {
  submissions: { cik: string; status: StepStatus }[];
  companyfacts: { cik: string; status: StepStatus; income: number; ratios: number }[];
  segments: { source: string; cik: string | null; status: StepStatus; rows: number }[];
  errors: { source: string; error: string }[];
}

const list = (d: string, re: RegExp) =>
  existsSync(d) && statSync(d).isDirectory()
    ? readdirSync(d)
        .filter((f) => re.test(f))
        .sort()
        .map((f) => join(d, f))
    : [];

async function readJson(path: string): Promise<{ json: unknown; hash: string }> {
  const text = await Bun.file(path).text();
  return { json: JSON.parse(text) as unknown, hash: sha256(text) };
}

/** XBRL instances and flattened fact tables with dimensions under `xbrl/`. */
function segmentFiles(dir: string): string[] {
  const root = join(dir, "xbrl");
  const out: string[] = [];
  for (const sub of list(root, /^[^.]/)) {
    if (!statSync(sub).isDirectory()) continue;
    out.push(...list(sub, /_htm\.xml$/), ...list(sub, /\.csv$/));
  }
  return out;
}

async function readSegmentSource(dir: string, file: string): Promise<SegmentSource | null> {
  const text = await Bun.file(file).text();
  const source = relative(dir, file);
  if (file.endsWith(".csv")) {
    // Only flattened fact tables that kept the dimensions column carry segments.
    if (!/^namespace,fact,value,units,start_date,end_date,dimensions/.test(text.slice(0, 200))) return null;
    const parsed = parseFlatFacts(text);
    return { source, contentHash: sha256(text), ...parsed };
  }
  const parsed = parseInstance(text);
  const metaFile = join(dirname(file), "metadata.json");
  let accession: string | null = null;
  let cik: string | null = null;
  if (existsSync(metaFile)) {
    const m = (await Bun.file(metaFile).json()) as { accession_no?: unknown; cik?: unknown };
    accession = typeof m.accession_no === "string" ? m.accession_no : null;
    cik = typeof m.cik === "number" || typeof m.cik === "string" ? String(m.cik) : null;
  }
  return { source, contentHash: sha256(text), ...parsed, accession, cik };
}

export async function ingestSecDirectory(
  dir: string,
  store: FinancialsStore,
  opts: DirectoryIngestOptions = {},
): Promise<IngestReport> {
  const report: IngestReport = { submissions: [], companyfacts: [], segments: [], errors: [] };
  const fail = (source: string, err: unknown) => {
    const error = err instanceof Error ? err.message : String(err);
    report.errors.push({ source, error });
    opts.logger?.error({ source, err }, "sec ingest: source failed");
  };
  const tickersFile = join(dir, "company_tickers.json");
  let tickers: TickerMap = new Map();
  if (existsSync(tickersFile)) {
    try {
      tickers = parseTickers((await readJson(tickersFile)).json);
    } catch (err) {
      fail("company_tickers.json", err);
    }
  }
  const defaultMarket = join(dir, "..", "market");
  const marketDir = opts.marketDir === undefined ? (existsSync(defaultMarket) ? defaultMarket : null) : opts.marketDir;
  const ctx: IngestContext = {
    store,
    tickers,
    prices: loadPriceBook(marketDir),
    force: opts.force,
    logger: opts.logger,
  };

  for (const file of list(join(dir, "submissions"), /^CIK\d{10}\.json$/)) {
    try {
      report.submissions.push(await ingestSubmissions(ctx, (await readJson(file)).json));
    } catch (err) {
      fail(relative(dir, file), err);
    }
    await yieldToLoop();
  }
  for (const file of list(join(dir, "companyfacts"), /^CIK\d{10}\.json$/)) {
    try {
      const { json, hash } = await readJson(file);
      report.companyfacts.push(await ingestCompanyFacts(ctx, json, hash));
    } catch (err) {
      fail(relative(dir, file), err);
    }
    await yieldToLoop();
  }
  for (const file of segmentFiles(dir)) {
    try {
      const src = await readSegmentSource(dir, file);
      if (src) report.segments.push({ source: src.source, ...(await ingestSegments(ctx, src)) });
    } catch (err) {
      fail(relative(dir, file), err);
    }
    await yieldToLoop();
  }
  return report;
}
