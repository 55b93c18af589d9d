/**
 * The Foundry area's service (domain/foundry/service.ts): tables over the lakehouse
 * gateway, datasets in the control plane built by the lab.
 */
import type { Config } from "../config.ts";
import { FoundryService } from "../domain/foundry/service.ts";
import type { LakehousePort } from "../domain/lakehouse/ports.ts";
import { openFoundryTables } from "./foundry-tables.ts";

export function openFoundryService(d: { config: Config; lakehouse: LakehousePort | null }): FoundryService {
  return new FoundryService({ tables: openFoundryTables(d) });
}
