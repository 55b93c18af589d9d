/**
 * Foundry (spec 1.6, 1.9, 2.6, 3.2, 4.9): the tenant's tables and its datasets. Routes,
 * MCP and the dashboard call this; engines are reached through ./ports.ts.
 *
 * Datasets: a spec is compiled against the tenant's namespace when it is created (a spec
 * that cannot build is refused with 422 at once; nothing runs) and again when it is built.
 * A build is a durable job (pipelines/foundry/build/job.ts); the build call answers at
 * once with the generated SQL and status `building`, and the list shows the outcome.
 */
import { AppError, type ValidationIssue } from "../errors.ts";
import type { LakehouseColumn } from "../lakehouse/ports.ts";
import { lakehouseNamespace, type TenantRef } from "../tenants/namespaces.ts";
import type { FoundryAgents } from "./agents/service.ts";
import { compileFor, type GraphRules } from "./compile.ts";
import { type Dataset, type DatasetSpec, datasetView, lineageOf, outputTableFor } from "./dataset.ts";
import type { FoundryModels } from "./models/service.ts";
import type { BuildQueue, DatasetStore, FoundryLabPort } from "./ports.ts";
import type { FoundryQuery } from "./query/service.ts";
import type { FoundryReadModels } from "./readmodels/service.ts";
import type { FoundryServing } from "./serving/service.ts";
import type { FoundryTables } from "./tables/service.ts";

/** The queue and job name of builds (pipelines/foundry/build/job.ts consumes them). */
export const FOUNDRY_BUILD_QUEUE = "foundry-build";
export const BUILD_ATTEMPTS = 2;
/** Rows a preview shows (spec 8.2). */
export const PREVIEW_ROWS = 100;

export interface FoundryServiceDeps {
  tables: FoundryTables;
  readModels: FoundryReadModels;
  query: FoundryQuery;
  models: FoundryModels;
  datasets: DatasetStore;
  lab: FoundryLabPort | null;
  queue: BuildQueue;
  graphRules: GraphRules;
  /** Deployed models (domain/foundry/serving/); null when the area is not wired (unit tests). */
  serving?: FoundryServing | null;
}

export interface DatasetPreview {
  dataset: string;
  output_table: string;
  columns: LakehouseColumn[];
  /** One object per row, keyed by column name. */
  rows: Record<string, unknown>[];
  row_count: number;
}

export class FoundryService {
  /** The tenant's lakehouse tables: list and custom-table import (GET/POST /v1/foundry/tables). */
  readonly tables: FoundryTables;
  /** The relational read models ci.*, dm.*, pm.*, md.* and the portfolios behind pm.*. */
  readonly readModels: FoundryReadModels;
  /** Natural-language data access (POST /v1/foundry/query). */
  readonly query: FoundryQuery;
  /** Model training runs (/v1/foundry/models). */
  readonly models: FoundryModels;
  /** Deploy, predict, threshold, drift, explain (/v1/foundry/models/{id}/...); agents predict through it. */
  readonly serving: FoundryServing | null;
  /**
   * The agents (/v1/foundry/agents). Set once by the composition root after this service is
   * built, because the agents predict through `serving` (composition/foundry-agents.ts); null:
   * the agent routes answer 503.
   */
  agents: FoundryAgents | null = null;

  constructor(private readonly deps: FoundryServiceDeps) {
    this.tables = deps.tables;
    this.readModels = deps.readModels;
    this.query = deps.query;
    this.models = deps.models;
    this.serving = deps.serving ?? null;
  }

  /** POST /v1/foundry/datasets: checked against the namespace, stored as draft; nothing runs. */
  async createDataset(t: TenantRef, spec: DatasetSpec) {
    const name = spec.name.trim();
    const issues: ValidationIssue[] = [];
    if (!/[A-Za-z0-9]/.test(name)) {
      issues.push({
        loc: ["body", "name"],
        msg: "name needs at least one letter or digit",
        type: "value_error",
        input: spec.name,
        ctx: {},
      });
    }
    if (issues.length) throw AppError.validation(issues);
    const output_table = outputTableFor(name);
    await compileFor(this.deps, t, spec, output_table);
    const ds = await this.deps.datasets.createDataset({
      tenant_id: t.tenantId,
      name,
      description: spec.description ?? "",
      output_table,
      spec: { ...spec, name },
    });
    return { id: ds.id, output_table: ds.output_table, status: ds.status };
  }

  async listDatasets(t: TenantRef) {
    return (await this.deps.datasets.listDatasets(t.tenantId)).map(datasetView);
  }

  async getDataset(t: TenantRef, id: string): Promise<Dataset> {
    const ds = await this.deps.datasets.getDataset(t.tenantId, id);
    if (!ds) throw new AppError("not_found", `No dataset '${id}'`);
    return ds;
  }

  /**
   * POST .../build: compiles the spec as the namespace is now, marks the dataset building
   * and queues the job; returns at once. A second build supersedes a running one.
   */
  async buildDataset(t: TenantRef, id: string) {
    const ds = await this.getDataset(t, id);
    const plan = await compileFor(this.deps, t, ds.spec, ds.output_table);
    const buildId = crypto.randomUUID();
    await this.deps.datasets.updateDataset(t.tenantId, id, {
      status: "building",
      sql: plan.sql,
      error: null,
      progress: { stage: "queued", percent: 0 },
      build_id: buildId,
    });
    try {
      await this.deps.queue.enqueue(
        FOUNDRY_BUILD_QUEUE,
        "build",
        { tenant_id: t.tenantId, slug: t.slug, dataset_id: id, build_id: buildId },
        { jobId: buildId, attempts: BUILD_ATTEMPTS, backoffMs: 2_000 },
      );
    } catch (err) {
      await this.deps.datasets.updateDataset(
        t.tenantId,
        id,
        { status: "error", error: `The build could not be queued: ${(err as Error).message}`, progress: null },
        buildId,
      );
      throw err;
    }
    return { id, status: "building" as const, output_table: ds.output_table, sql: plan.sql };
  }

  /** GET .../preview: the first 100 rows of the built table (conflict before the first build). */
  async previewDataset(t: TenantRef, id: string): Promise<DatasetPreview> {
    const ds = await this.getDataset(t, id);
    if (!ds.last_built_at) {
      throw new AppError(
        "conflict",
        `Dataset '${ds.name}' has not been built yet (status ${ds.status}): build it first`,
      );
    }
    if (!this.deps.lab) throw new AppError("unavailable", "No lakehouse is configured (CAIRN_LAKEHOUSE_URL)");
    const { columns, rows } = await this.deps.lab.preview(lakehouseNamespace(t.slug), ds.output_table, PREVIEW_ROWS);
    return {
      dataset: ds.name,
      output_table: ds.output_table,
      columns,
      rows: rows.map((r) => Object.fromEntries(columns.map((c, i) => [c.name, r[i] ?? null]))),
      row_count: ds.row_count,
    };
  }

  /** GET .../lineage (4.9, exactly). */
  async datasetLineage(t: TenantRef, id: string) {
    return lineageOf(await this.getDataset(t, id));
  }
}
