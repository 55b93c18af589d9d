/** `ingest-market`: market bars/ticks/quotes CSVs into a tenant's real-time tables. */
import { resolve } from "node:path";
import { openTimeSeries } from "../composition/cli.ts";
import { ingestMarketDirectory } from "../pipelines/rtdb/market-ingest.ts";
import type { Command } from "./context.ts";
import { fail, printJson } from "./context.ts";

export const ingestMarket: Command = async ({ flags, config, store }) => {
  if (!flags.tenant || !flags.dir) fail("ingest-market needs --tenant SLUG and --dir PATH");
  const tenant = await store.getTenantBySlug(flags.tenant);
  if (!tenant) fail(`no tenant '${flags.tenant}'`);
  // Embedded profile: the DuckDB file is locked while the service runs; stop it first.
  const ts = openTimeSeries(config);
  try {
    const ref = { tenantId: tenant.tenant_id, slug: tenant.slug };
    if (!(await ts.realtime.ready(ref))) fail(`tenant '${tenant.slug}' has no time-series namespace (provision it)`);
    printJson(await ingestMarketDirectory(ts.realtime, ref, resolve(flags.dir), { force: flags.force }));
  } finally {
    await ts.close();
  }
};
