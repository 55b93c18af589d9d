/** The Foundry tables part (domain/foundry/tables/) over the lakehouse gateway. */
import type { Config } from "../config.ts";
import { FoundryTables } from "../domain/foundry/tables/service.ts";
import type { LakehousePort } from "../domain/lakehouse/ports.ts";

export function openFoundryTables(d: { config: Config; lakehouse: LakehousePort | null }): FoundryTables {
  return new FoundryTables({ lakehouse: d.lakehouse });
}
