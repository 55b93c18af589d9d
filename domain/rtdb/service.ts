/**
 * Real-time tables as the API offers them (spec 2.9, 4.8): create from the QuestDB CREATE
 * TABLE subset, list, describe, measure, and read across hot and tiered rows. Every call
 * is scoped to one tenant's namespace; a namespace that is not provisioned is
 * `unavailable` (503), as for documents. No I/O here: the engine and the tiered read
 * path are ports (ports.ts) that composition wires.
 */
import { AppError } from "../errors.ts";
import type { TenantRef } from "../tenants/namespaces.ts";
import { normaliseDdl, parseCreateTableRequest } from "./ddl.ts";
import type { RealtimeTablesPort, RealtimeTieringView } from "./ports.ts";
import type { RealtimeStorage, RealtimeTable, TableSpec } from "./table-spec.ts";
import type { RangeRows, TieringSummary, TimeRange } from "./tiering.ts";

export interface RtdbServiceDeps {
  tables: RealtimeTablesPort;
  /** What is tiered to the lakehouse, and reads across hot and tiered rows (docs/tiering.md); absent: nothing tiers. */
  tiering?: RealtimeTieringView;
}

export class RtdbService {
  constructor(private readonly deps: RtdbServiceDeps) {}

  /**
   * Creates the table and returns its normalised DDL (the existing table's with IF NOT
   * EXISTS). The DDL is checked before the namespace, so a bad statement is 422 even
   * where the namespace is missing; conflict when the table exists without IF NOT EXISTS.
   */
  async createTable(tenant: TenantRef, sql: string): Promise<{ ddl: string }> {
    const spec = parseCreateTableRequest(sql);
    await this.ready(tenant);
    const { table } = await this.deps.tables.create(tenant, spec, normaliseDdl(spec));
    return { ddl: table.ddl };
  }

  async listTables(tenant: TenantRef): Promise<RealtimeTable[]> {
    await this.ready(tenant);
    return this.deps.tables.list(tenant);
  }

  /** The table's spec (name matched case-insensitively, as QuestDB); not_found when the tenant has none. */
  async tableSpec(tenant: TenantRef, name: string): Promise<TableSpec> {
    await this.ready(tenant);
    const found = await this.deps.tables.get(tenant, name);
    if (!found) throw new AppError("not_found", `Table '${name}' does not exist`);
    return found.spec;
  }

  /** Hot storage per table, and what is tiered (null when tiering is not wired). */
  async storage(tenant: TenantRef): Promise<{ usage: RealtimeStorage; tiered: TieringSummary | null }> {
    await this.ready(tenant);
    const usage = await this.deps.tables.storage(tenant);
    return { usage, tiered: (await this.deps.tiering?.summary(tenant)) ?? null };
  }

  /** Hot rows UNION ALL tiered files for [from, to) (unavailable when tiering is not wired). */
  async read(tenant: TenantRef, table: string, range: TimeRange, limit?: number): Promise<RangeRows> {
    if (!this.deps.tiering) throw new AppError("unavailable", "Reads across tiered data are not available");
    return this.deps.tiering.read(tenant, table, range, limit);
  }

  private async ready(tenant: TenantRef): Promise<void> {
    if (!(await this.deps.tables.ready(tenant))) {
      throw new AppError("unavailable", "Real-time tables are not provisioned for this tenant");
    }
  }
}
