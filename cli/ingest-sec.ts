/** `ingest-sec`: SEC fundamentals from a local folder (shared data's sec/) or data.sec.gov. */
import { resolve } from "node:path";
import { openFinancials } from "../composition/cli.ts";
import {
  type IngestReport,
  ingestSecDirectory,
  ingestSecOnline,
  loadPriceBook,
  SecClient,
} from "../pipelines/financials/sec/index.ts";
import type { Command } from "./context.ts";
import { fail, printJson } from "./context.ts";

export const ingestSec: Command = async ({ flags, config, store }) => {
  if (!flags.online && !flags.dir) fail("ingest-sec needs --dir PATH or --online --cik CIK[,CIK...]");
  const fin = await openFinancials(config, store);
  try {
    const marketDir = flags["market-dir"] ? resolve(flags["market-dir"]) : config.sec.marketDataDir;
    let report: IngestReport;
    if (flags.online) {
      if (!config.sec.online || !config.sec.userAgent)
        fail("online ingest needs CAIRN_SEC_ONLINE=1 and CAIRN_SEC_USER_AGENT");
      const ciks = (flags.cik ?? "").split(",").filter(Boolean);
      if (ciks.length === 0) fail("--online needs --cik CIK[,CIK...]");
      const client = new SecClient({
        userAgent: config.sec.userAgent,
        baseUrl: config.sec.baseUrl,
        tickersUrl: config.sec.tickersUrl,
        maxRequestsPerSecond: config.sec.maxRequestsPerSecond,
      });
      report = await ingestSecOnline(client, fin.store, ciks, { prices: loadPriceBook(marketDir), force: flags.force });
    } else {
      report = await ingestSecDirectory(resolve(flags.dir ?? "."), fin.store, {
        marketDir: flags["market-dir"] ? marketDir : undefined,
        force: flags.force,
      });
    }
    printJson(report);
    if (report.errors.length > 0) process.exitCode = 1;
  } finally {
    await fin.close();
  }
};
