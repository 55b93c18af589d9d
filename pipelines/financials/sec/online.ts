/**
 * Online refresh from data.sec.gov. Incremental: the submissions document (small) is
 * fetched first, and a company whose filing list is unchanged since the last ingest is
 * not fetched again (its companyfacts, several MB, can only change when it files).
 */
import type { Logger } from "pino";
import { normalizeCik } from "../../../domain/financials/fields.ts";
import type { FinancialsStore } from "../../../domain/financials/ports.ts";
import type { SecClient } from "./client.ts";
import type { IngestReport } from "./directory.ts";
import { type IngestContext, ingestCompanyFacts, ingestSubmissions, sha256, yieldToLoop } from "./ingest.ts";
import { EMPTY_PRICE_BOOK, type PriceBook } from "./market.ts";
import { parseTickers, type TickerMap } from "./sources.ts";

export interface OnlineIngestOptions {
  prices?: PriceBook;
  force?: boolean;
  logger?: Logger;
}

export async function ingestSecOnline(
  client: SecClient,
  store: FinancialsStore,
  ciks: readonly string[],
  opts: OnlineIngestOptions = {},
): Promise<IngestReport> {
  const report: IngestReport = { submissions: [], companyfacts: [], segments: [], errors: [] };
  const fail = (source: string, err: unknown) => {
    report.errors.push({ source, error: err instanceof Error ? err.message : String(err) });
    opts.logger?.error({ source, err }, "sec ingest (online): source failed");
  };
  let tickers: TickerMap = new Map();
  try {
    tickers = parseTickers((await client.tickers()).json);
  } catch (err) {
    fail("company_tickers.json", err);
  }
  const ctx: IngestContext = {
    store,
    tickers,
    prices: opts.prices ?? EMPTY_PRICE_BOOK,
    force: opts.force,
    logger: opts.logger,
  };
  for (const raw of ciks) {
    const cik = normalizeCik(raw);
    if (!cik) {
      fail(raw, new Error("not a CIK"));
      continue;
    }
    try {
      const sub = await client.submissions(cik);
      const s = await ingestSubmissions(ctx, sub.json);
      report.submissions.push(s);
      const seen = (await store.sourceFingerprint(cik, "companyfacts")) !== null;
      if (s.status === "unchanged" && seen && !opts.force) {
        report.companyfacts.push({ cik, status: "unchanged", income: 0, ratios: 0 });
        continue;
      }
      const facts = await client.companyFacts(cik);
      report.companyfacts.push(await ingestCompanyFacts(ctx, facts.json, sha256(facts.text)));
    } catch (err) {
      fail(`CIK${cik}`, err);
    }
    await yieldToLoop();
  }
  return report;
}
