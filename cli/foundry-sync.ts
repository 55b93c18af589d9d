/**
 * `foundry-sync`: writes the tenant's Foundry tables (companies, statements, ratios,
 * segments, filings, news, market daily bars) into its lakehouse namespace
 * (pipelines/foundry/sync/). Needs CAIRN_LAKEHOUSE_URL. Market bars come from the tenant's
 * real-time `market_bars_daily` table, else from `--market-dir` (daily-bar CSVs) when given.
 */
import { resolve } from "node:path";
import { openFoundrySyncStandalone } from "../composition/foundry-sync.ts";
import type { Command } from "./context.ts";
import { fail, printJson } from "./context.ts";

export const foundrySync: Command = async ({ flags, config, store }) => {
  if (!flags.tenant) fail("foundry-sync needs --tenant SLUG [--market-dir PATH]");
  const tenant = await store.getTenantBySlug(flags.tenant);
  if (!tenant) fail(`no tenant '${flags.tenant}'`);
  if (!tenant.is_active) fail(`tenant '${tenant.slug}' is not active`);
  if (!config.lakehouse) fail("foundry-sync needs a lakehouse gateway (CAIRN_LAKEHOUSE_URL)");
  // Embedded profile: the DuckDB file is locked while the service runs; stop it first.
  const sync = await openFoundrySyncStandalone(config, store);
  try {
    const marketDir = flags["market-dir"] ? resolve(flags["market-dir"]) : null;
    printJson(await sync.sync({ tenantId: tenant.tenant_id, slug: tenant.slug }, { marketDir }));
  } finally {
    await sync.close();
  }
};
