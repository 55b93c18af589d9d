/**
 * The tenant's lakehouse tables as Foundry lists them (GET /v1/foundry/tables): name,
 * columns with types, row count and source.
 */
import { AppError } from "../../errors.ts";
import type { LakehouseColumn, LakehousePort } from "../../lakehouse/ports.ts";
import { lakehouseNamespace, type TenantRef } from "../../tenants/namespaces.ts";

export interface FoundryTable {
  name: string;
  columns: LakehouseColumn[];
  row_count: number | null;
  /** Where the rows came from: `custom` (uploaded), `foundry` (a dataset), `sync` (financial data), ... */
  source: string;
}

export interface FoundryTablesDeps {
  lakehouse: LakehousePort | null;
}

export class FoundryTables {
  constructor(private readonly deps: FoundryTablesDeps) {}

  /** The lakehouse, or unavailable (503) when none is configured. */
  lake(): LakehousePort {
    if (!this.deps.lakehouse) throw new AppError("unavailable", "No lakehouse is configured (CAIRN_LAKEHOUSE_URL)");
    return this.deps.lakehouse;
  }

  /** The tenant's tables with their columns; one schema call per table. */
  async list(t: TenantRef): Promise<FoundryTable[]> {
    const lake = this.lake();
    const ns = lakehouseNamespace(t.slug);
    const names = await lake.listTables(ns);
    const out: FoundryTable[] = [];
    for (const name of names) {
      const columns = await lake.tableSchema(ns, name);
      out.push({ name, columns, row_count: null, source: name.startsWith("foundry_") ? "foundry" : "custom" });
    }
    return out;
  }
}
