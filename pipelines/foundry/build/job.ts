/**
 * The dataset build job (spec 3.2: building -> ready | error), on the "foundry-build" queue.
 *
 * 1. Re-compiles the spec against the namespace as it is now (tables may have changed since
 *    the build was asked for); a spec that no longer fits ends the build in `error`.
 * 2. Computes the feature relations: graph features through the graph port, time-series
 *    features through the real-time tables, for the distinct keys of their join columns.
 * 3. Has the lab run the SELECT and replace the output table in one commit.
 * 4. Marks the dataset ready with the row count.
 *
 * Each write to the dataset is guarded by the build id, so a superseded build (the user
 * asked for another) changes nothing. A failure the caller can fix (validation, a missing
 * table) ends in `error` at once; anything else is retried once (a lab or service restart
 * resumes the build) and then ends in `error`. The output table is never half-written: the
 * lab commits it in one step or not at all.
 */
import { AppError } from "../../../domain/errors.ts";
import { compileFor, type GraphRules } from "../../../domain/foundry/compile.ts";
import type { Dataset } from "../../../domain/foundry/dataset.ts";
import type {
  DatasetBuildRequest,
  DatasetStore,
  FoundryLabPort,
  GraphPort,
  RealtimeFeaturePort,
} from "../../../domain/foundry/ports.ts";
import { BUILD_ATTEMPTS } from "../../../domain/foundry/service.ts";
import type { CompiledDataset } from "../../../domain/foundry/sql.ts";
import type { LakehouseColumn, LakehousePort } from "../../../domain/lakehouse/ports.ts";
import type { JobContext, JobHandler, JsonValue } from "../../../domain/ports.ts";
import { lakehouseNamespace, type TenantRef } from "../../../domain/tenants/namespaces.ts";

export type { GraphRules };

export interface BuildJobData {
  tenant_id: string;
  slug: string;
  dataset_id: string;
  build_id: string;
}

export interface BuildDeps {
  datasets: DatasetStore;
  lab: FoundryLabPort | null;
  lakehouse: LakehousePort | null;
  graph: GraphPort | null;
  graphRules: GraphRules;
  realtime: RealtimeFeaturePort | null;
}

/** Most distinct keys one feature may be computed for. */
export const MAX_FEATURE_KEYS = 100_000;

function permanent(err: unknown): boolean {
  return err instanceof AppError && ["validation", "bad_request", "not_found", "forbidden"].includes(err.code);
}

export function makeBuildHandler(deps: BuildDeps): JobHandler {
  return async (job: JobContext): Promise<JsonValue> => {
    const data = job.data as unknown as BuildJobData;
    const t: TenantRef = { tenantId: data.tenant_id, slug: data.slug };
    const { datasets } = deps;
    const mark = (patch: Parameters<DatasetStore["updateDataset"]>[2]) =>
      datasets.updateDataset(data.tenant_id, data.dataset_id, patch, data.build_id);
    const stage = async (name: string, percent: number) => {
      await job.progress({ stage: name, percent });
      if (!(await mark({ progress: { stage: name, percent } }))) throw new Superseded();
    };
    try {
      const ds = await datasets.getDataset(data.tenant_id, data.dataset_id);
      if (!ds || ds.build_id !== data.build_id) return { superseded: true };
      await stage("compiling", 5);
      const plan = await compileFor(deps, t, ds.spec, ds.output_table);
      const relations = await featureRelations(deps, t, ds, plan, stage);
      await stage("executing", 60);
      const lab = deps.lab as FoundryLabPort;
      const req: DatasetBuildRequest = {
        namespace: lakehouseNamespace(t.slug),
        output_table: ds.output_table,
        select: plan.select,
        tables: plan.tables,
        relations,
        snapshot_properties: { "cairn.dataset_id": ds.id, "cairn.build_id": data.build_id },
      };
      const result = await lab.build(req);
      const done = await mark({
        status: "ready",
        row_count: result.rows,
        last_built_at: new Date().toISOString(),
        sql: plan.sql,
        error: null,
        progress: null,
      });
      return done ? { rows: result.rows, engine: result.engine } : { superseded: true };
    } catch (err) {
      if (err instanceof Superseded) return { superseded: true };
      const last = permanent(err) || job.attempt >= BUILD_ATTEMPTS;
      const message = err instanceof AppError && err.issues ? issuesText(err) : (err as Error).message;
      if (last) {
        await mark({ status: "error", error: message.slice(0, 4000), progress: null });
        if (permanent(err)) return { error: message.slice(0, 4000) };
      } else {
        await mark({ progress: { stage: "retrying", percent: 0 } });
      }
      throw err;
    }
  };
}

class Superseded extends Error {}

function issuesText(err: AppError): string {
  return (err.issues ?? []).map((i) => `${i.loc.join(".")}: ${i.msg}`).join("; ");
}

async function featureRelations(
  deps: BuildDeps,
  t: TenantRef,
  ds: Dataset,
  plan: CompiledDataset,
  stage: (name: string, percent: number) => Promise<void>,
): Promise<DatasetBuildRequest["relations"]> {
  const out: DatasetBuildRequest["relations"] = [];
  const aliasTable = new Map(ds.spec.source_tables.map((s) => [s.alias ?? s.table, s.table]));
  for (const [n, rel] of plan.relations.entries()) {
    await stage(
      rel.kind === "graph" ? "graph features" : "time-series features",
      10 + Math.round((45 * n) / plan.relations.length),
    );
    const table = aliasTable.get(rel.key.alias) ?? rel.key.alias;
    const keys = await distinctKeys(deps, t, table, rel.key.column);
    let values: Map<string, unknown>;
    let type: LakehouseColumn["type"] = "double";
    if (rel.kind === "graph") {
      if (!deps.graph) throw new AppError("unavailable", "No graph is configured for graph features");
      const g = ds.spec.graph_features?.[rel.index];
      if (!g || !deps.graphRules.graphKey) throw new AppError("internal", "graph feature vanished from the spec");
      const keyProperty = deps.graphRules.graphKey(g.label, ["body", "graph_features", rel.index, "label"]);
      values = await deps.graph.featureValues(
        t,
        { label: g.label, keyProperty, fragment: g.cypher_fragment, output_column: g.output_column },
        keys,
      );
      type = valueType([...values.values()]);
    } else {
      if (!deps.realtime)
        throw new AppError("unavailable", "Real-time tables are not available for time-series features");
      const r = plan.realtime.find((x) => x.index === rel.index);
      if (!r) throw new AppError("internal", "time-series feature vanished from the plan");
      values = await deps.realtime.aggregate(
        t,
        { table: r.table, column: r.column, agg: r.agg, windowMs: r.windowMs },
        keys,
      );
      type = r.agg === "count" ? "long" : "double";
    }
    out.push({
      name: rel.name,
      columns: [
        { name: "key", type: "string", nullable: false },
        { name: "value", type, nullable: true },
      ],
      rows: [...values].map(([k, v]) => [k, v === undefined ? null : coerce(v, type)]),
    });
  }
  return out;
}

async function distinctKeys(deps: BuildDeps, t: TenantRef, table: string, column: string): Promise<string[]> {
  if (!deps.lakehouse) throw new AppError("unavailable", "No lakehouse is configured (CAIRN_LAKEHOUSE_URL)");
  // Both names were checked against the catalog by the compiler; neither needs quoting.
  const res = await deps.lakehouse.sql(
    lakehouseNamespace(t.slug),
    `SELECT DISTINCT ${column} AS k FROM ${table} WHERE ${column} IS NOT NULL LIMIT ${MAX_FEATURE_KEYS + 1}`,
  );
  if (res.rows.length > MAX_FEATURE_KEYS) {
    throw new AppError(
      "bad_request",
      `More than ${MAX_FEATURE_KEYS} distinct values of ${table}.${column} to compute features for`,
    );
  }
  return res.rows.map((r) => String(r[0]));
}

function valueType(values: unknown[]): string {
  const present = values.filter((v) => v !== null && v !== undefined);
  if (present.length === 0) return "double";
  if (present.every((v) => typeof v === "boolean")) return "boolean";
  if (present.every((v) => typeof v === "number" || typeof v === "bigint")) return "double";
  return "string";
}

function coerce(v: unknown, type: string): unknown {
  if (v === null) return null;
  if (type === "string") return typeof v === "string" ? v : JSON.stringify(v);
  if (type === "double" || type === "long") return typeof v === "bigint" ? Number(v) : v;
  return v;
}
