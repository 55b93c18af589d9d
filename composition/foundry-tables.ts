/** The Foundry tables part (domain/foundry/tables/) over the lakehouse gateway. */

import { GatewayLakehouse } from "../adapters/lakehouse/gateway-client.ts";
import { GatewayTableImport } from "../adapters/lakehouse/table-import.ts";
import type { Config } from "../config.ts";
import { FoundryTables } from "../domain/foundry/tables/service.ts";
import type { LakehousePort } from "../domain/lakehouse/ports.ts";

export function openFoundryTables(d: { config: Config; lakehouse: LakehousePort | null }): FoundryTables {
  const gw = d.config.lakehouse;
  return new FoundryTables({
    lakehouse: d.lakehouse,
    imports: gw && d.lakehouse ? new GatewayTableImport({ url: gw.url, token: gw.token }) : null,
    uploadMaxBytes: d.config.foundry.uploadMaxBytes,
  });
}

/** What operator commands (cli/foundry-demo.ts) use: the tables over the configured gateway, or null. */
export function openCliFoundryTables(config: Config): FoundryTables | null {
  if (!config.lakehouse) return null;
  const lakehouse = new GatewayLakehouse({ url: config.lakehouse.url, token: config.lakehouse.token });
  return openFoundryTables({ config, lakehouse });
}
