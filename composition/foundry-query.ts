/** Natural-language data access (domain/foundry/query/) over the tenant's data sources. */
import { FoundryQuery } from "../domain/foundry/query/service.ts";
import type { FoundryWiring } from "./foundry.ts";

export function openFoundryQuery(_d: FoundryWiring & { readModels: unknown }): FoundryQuery {
  return new FoundryQuery();
}
