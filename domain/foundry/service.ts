/**
 * Foundry (spec 1.6, 1.9, 2.6, 3.2, 4.9): the tenant's tables and its datasets. Routes,
 * MCP and the dashboard call this; engines are reached through ./ports.ts.
 */
import type { FoundryTables } from "./tables/service.ts";

export interface FoundryServiceDeps {
  tables: FoundryTables;
}

export class FoundryService {
  /** The tenant's lakehouse tables: list and custom-table import (GET/POST /v1/foundry/tables). */
  readonly tables: FoundryTables;

  constructor(deps: FoundryServiceDeps) {
    this.tables = deps.tables;
  }
}
