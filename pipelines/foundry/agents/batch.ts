/**
 * A batch agent's run: every row of `entity.table`, scored in bounded batches (a fixed
 * order over all columns, LIMIT/OFFSET pages of `batchRows`), each batch's rows written to
 * the output table (the first batch replaces it, later ones append) with the prediction
 * columns added, progress stored on the run after each batch. The workflow is named by the
 * agent's batch_dag_id. Pausing the agent stops the run at the next batch boundary.
 */
import { AppError } from "../../../domain/errors.ts";
import type { AgentExecutor } from "../../../domain/foundry/agents/execute.ts";
import type { AgentRecord } from "../../../domain/foundry/agents/model.ts";
import type { AgentLakehouse, AgentStore } from "../../../domain/foundry/agents/ports.ts";
import type { LakehouseColumn } from "../../../domain/lakehouse/ports.ts";
import type { JsonValue } from "../../../domain/ports.ts";
import { lakehouseNamespace, type TenantRef } from "../../../domain/tenants/namespaces.ts";

const BARE = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The columns a batch adds to each row of its source table. */
export const PREDICTION_COLUMNS: LakehouseColumn[] = [
  { name: "prediction_score", type: "double", nullable: true },
  { name: "prediction_label", type: "string", nullable: true },
  { name: "prediction_value", type: "double", nullable: true },
  { name: "agent_run_id", type: "string", nullable: true },
];

export interface BatchRun {
  store: AgentStore;
  executor: AgentExecutor;
  lakehouse: AgentLakehouse | null;
  batchRows: number;
  t: TenantRef;
  agent: AgentRecord;
  runId: string;
}

export async function runBatch(b: BatchRun): Promise<JsonValue> {
  const { t, agent, runId } = b;
  if (!b.lakehouse) throw new AppError("unavailable", "No lakehouse is configured: batch agents need one");
  const lake = b.lakehouse;
  const table = agent.entity?.table as string;
  const output = agent.entity?.output_table ?? `${table}_scores`;
  const ns = lakehouseNamespace(t.slug);
  const columns = await lake.tableSchema(ns, table);
  if (columns.some((c) => PREDICTION_COLUMNS.some((p) => p.name === c.name))) {
    throw new AppError("conflict", `Table '${table}' already has a prediction_* column`);
  }
  const total = Number((await lake.sql(ns, `SELECT COUNT(*) AS n FROM ${table}`)).rows[0]?.[0] ?? 0);
  // A total order over every (bare-named) column keeps pages disjoint between queries.
  const order = columns.filter((c) => BARE.test(c.name)).map((c) => c.name);
  const orderBy = order.length ? ` ORDER BY ${order.join(", ")}` : "";
  const outColumns = [...columns.map((c) => ({ ...c, nullable: true })), ...PREDICTION_COLUMNS];
  const batches = Math.ceil(total / b.batchRows);
  let done = 0;
  let snapshot: number | null = null;
  for (let i = 0; i < batches; i++) {
    const current = await b.store.getAgent(t.tenantId, agent.id);
    if (current?.status !== "active") {
      throw new AppError("conflict", `The agent was ${current?.status ?? "deleted"} after ${done} of ${total} rows`);
    }
    const page = await lake.sql(ns, `SELECT * FROM ${table}${orderBy} LIMIT ${b.batchRows} OFFSET ${i * b.batchRows}`);
    const names = page.columns.map((c) => c.name);
    const rows = page.rows.map((r) => Object.fromEntries(names.map((n, j) => [n, toJson(r[j])])));
    const predictions = await b.executor.predict(t, agent, rows);
    const byName = columns.map((c) => names.indexOf(c.name));
    const out = page.rows.map((r, k) => {
      const p = predictions[k] ?? {};
      return [
        ...byName.map((j) => (j < 0 ? null : toJson(r[j]))),
        typeof p.score === "number" ? p.score : null,
        p.label === undefined || p.label === null ? null : String(p.label),
        typeof p.value === "number" ? p.value : null,
        runId,
      ];
    });
    const res = await lake.write(ns, output, {
      mode: i === 0 ? "overwrite" : "append",
      columns: outColumns,
      rows: out,
      snapshot_properties: { "cairn.agent_id": agent.id, "cairn.agent_run_id": runId, "cairn.batch": String(i) },
    });
    snapshot = res.snapshot_id;
    done += rows.length;
    await b.store.updateRun(t.tenantId, runId, {
      progress: { rows_done: done, rows_total: total, batches_done: i + 1, batches_total: batches },
    });
  }
  // One call per run, however many batches it took.
  await b.store.countCall(t.tenantId, agent.id);
  return {
    workflow: agent.batch_dag_id,
    table,
    output_table: output,
    rows: done,
    batches,
    snapshot_id: snapshot,
  };
}

function toJson(v: unknown): JsonValue {
  if (v === undefined) return null;
  if (typeof v === "bigint") return Number(v);
  if (v instanceof Date) return v.toISOString();
  return v as JsonValue;
}
