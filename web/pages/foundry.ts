/**
 * Foundry: tables, datasets (builder form, status, build, preview, lineage), model runs
 * (leaderboard, per-algorithm status, SHAP bar chart) and tuning. JWT routes.
 */
import { call, showErrors } from "../lib/api.ts";
import { barChart } from "../lib/chart.ts";
import { field, fmtDate, h, select, set, status, table } from "../lib/dom.ts";
import { agentsSection } from "./agents.ts";
import { servingPanel } from "./serving.ts";

interface Table {
  name: string;
  columns: { name: string; type: string }[];
  row_count: number | null;
  source: string;
}
interface Dataset {
  id: string;
  name: string;
  output_table: string;
  row_count: number;
  status: string;
  error: string | null;
}
interface Model {
  id: string;
  error?: string | null;
  name: string;
  target_column: string;
  problem_type: string | null;
  status: string;
  winner: Record<string, unknown> | null;
  created_at: string;
}

export async function render(main: HTMLElement): Promise<void> {
  const [{ tables }, { datasets }, { models }] = await Promise.all([
    call<{ tables: Table[] }>("/v1/foundry/tables"),
    call<{ datasets: Dataset[] }>("/v1/foundry/datasets"),
    call<{ models: Model[] }>("/v1/foundry/models"),
  ]);
  const detail = h("section", { "aria-live": "polite", "data-testid": "detail" });
  set(
    main,
    h("h1", {}, "Foundry"),
    h(
      "section",
      {},
      h("h2", {}, "Tables"),
      table(
        ["Name", "Source", "Rows", "Columns"],
        tables.map((t) => [
          t.name,
          t.source,
          String(t.row_count ?? "—"),
          t.columns
            .map((c) => c.name)
            .join(", ")
            .slice(0, 120),
        ]),
      ),
    ),
    h(
      "section",
      {},
      h("h2", {}, "Datasets"),
      builder(tables, main),
      table(
        ["Name", "Status", "Rows", ""],
        datasets.map((d) => [
          d.name,
          h("span", { class: d.status }, d.status + (d.error ? `: ${d.error}` : "")),
          String(d.row_count ?? ""),
          datasetActions(d, detail, main),
        ]),
      ),
    ),
    h(
      "section",
      {},
      h("h2", {}, "Model runs"),
      tuneForm(datasets),
      table(
        ["Name", "Target", "Type", "Status", "Winner", "Created"],
        models.map((m) => [
          modelLink(m, detail),
          m.target_column,
          m.problem_type ?? "—",
          m.status,
          String(m.winner?.algorithm ?? "—"),
          fmtDate(m.created_at),
        ]),
        "Leaderboard of runs",
      ),
    ),
    detail,
  );
  main.append(await agentsSection());
}

function builder(tables: Table[], main: HTMLElement): HTMLElement {
  const name = field("Dataset name", h("input", { name: "name", required: true }));
  const src = field(
    "Source table",
    select(
      "table",
      tables.map((t) => t.name),
    ),
  );
  const col = field("Filter column (optional)", h("input", { name: "column" }));
  const op = field("Operator", select("op", ["=", "!=", ">", ">=", "<", "<="]));
  const val = field("Value", h("input", { name: "value" }));
  const out = status();
  const form = h(
    "form",
    { class: "card", "aria-label": "Dataset builder" },
    name.wrap,
    src.wrap,
    col.wrap,
    op.wrap,
    val.wrap,
    h("button", { type: "submit" }, "Create dataset"),
    out,
  );
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const v = (x: { input: HTMLElement }) => (x.input as HTMLInputElement).value.trim();
    const filters = v(col) ? [{ column: `s.${v(col)}`, op: v(op), value: v(val) }] : [];
    try {
      await call("/v1/foundry/datasets", {
        body: { name: v(name), source_tables: [{ table: v(src), alias: "s" }], filters },
      });
      await render(main);
    } catch (err) {
      showErrors(err, form, out);
    }
  });
  return form;
}

function datasetActions(d: Dataset, detail: HTMLElement, main: HTMLElement): HTMLElement {
  const build = h("button", { type: "button", "aria-label": `Build ${d.name}` }, "Build");
  build.addEventListener("click", async () => {
    await call(`/v1/foundry/datasets/${d.id}/build`, { method: "POST" }).catch((err) =>
      set(detail, h("p", { class: "error" }, err.message)),
    );
    await render(main);
  });
  const preview = h("button", { type: "button", class: "secondary", "aria-label": `Preview ${d.name}` }, "Preview");
  preview.addEventListener("click", async () => {
    try {
      const [p, l] = await Promise.all([
        call<{ columns: { name: string }[]; rows: Record<string, unknown>[]; row_count: number }>(
          `/v1/foundry/datasets/${d.id}/preview`,
        ),
        call<{
          sources: { lakehouse_tables: { table: string; alias: string }[] };
          transforms: { filters: { column: string; op: string; value: string }[] };
        }>(`/v1/foundry/datasets/${d.id}/lineage`),
      ]);
      const cols = p.columns.map((c) => c.name);
      set(
        detail,
        h("h2", {}, `Dataset ${d.name}`),
        h(
          "p",
          {},
          "Lineage: ",
          l.sources.lakehouse_tables.map((t) => `${t.table} as ${t.alias}`).join(", "),
          " → ",
          l.transforms.filters.map((f) => `${f.column} ${f.op} ${f.value}`).join(" and ") || "no filters",
          ` → ${d.output_table}`,
        ),
        table(
          cols,
          p.rows.slice(0, 20).map((r) => cols.map((c) => String(r[c] ?? ""))),
          `First rows of ${p.row_count}`,
        ),
      );
    } catch (err) {
      set(detail, h("p", { class: "error", role: "alert" }, (err as Error).message));
    }
  });
  return h("span", {}, build, " ", preview);
}

interface AlgorithmRecord {
  algorithm: string;
  status: string;
  reason?: string | null;
  metrics?: Record<string, number> | null;
}

/** A run's detail: the per-algorithm leaderboard (by the winner's metric) and its SHAP chart. */
function modelLink(m: Model, detail: HTMLElement): HTMLElement {
  const b = h("button", { type: "button", class: "secondary" }, m.name);
  b.addEventListener("click", async () => {
    const full = await call<Model & { algorithms: AlgorithmRecord[]; result?: { features?: unknown } | null }>(
      `/v1/foundry/models/${m.id}`,
    );
    const metric = String(m.winner?.metric ?? "");
    const score = (a: AlgorithmRecord) => a.metrics?.[metric];
    // Lower is better for error metrics (mae, rmse, ...), higher for the rest.
    const lowerWins = /mae|mse|rmse|mase|loss|error/i.test(metric);
    const ranked = [...(full.algorithms ?? [])].sort((x, y) => {
      const a = score(x);
      const c = score(y);
      if (a === undefined) return 1;
      if (c === undefined) return -1;
      return lowerWins ? a - c : c - a;
    });
    const chart = h("div", { class: "chart", role: "img", "aria-label": "SHAP feature importance" });
    set(
      detail,
      h("h2", {}, `Model ${m.name}: ${full.status}`),
      full.error ? h("p", { class: "error", role: "alert" }, full.error) : null,
      table(
        ["Algorithm", "Status", metric || "Metric", "Reason"],
        ranked.map((a) => [
          a.algorithm,
          h("span", { class: a.status }, a.status),
          String(score(a) ?? "—"),
          a.reason ?? "",
        ]),
        "Leaderboard",
      ),
      chart,
    );
    const shap = await call<{ values: { feature: string; mean_abs_shap: number }[]; reason: string | null }>(
      `/v1/foundry/models/${m.id}/shap`,
    ).catch(() => null);
    const top = (shap?.values ?? []).slice(0, 12);
    if (top.length)
      await barChart(
        chart,
        "mean |SHAP|",
        top.map((v) => v.feature),
        top.map((v) => v.mean_abs_shap),
      );
    else chart.textContent = shap?.reason ?? "No SHAP values yet";
    // Deploy, predict, threshold, drift, explain (routes of docs/foundry-serving.md).
    const features = full.result?.features;
    detail.append(
      await servingPanel({
        id: m.id,
        name: m.name,
        features: Array.isArray(features) ? features.map(String) : [],
      }),
    );
  });
  return b;
}

function tuneForm(datasets: Dataset[]): HTMLElement {
  const ds = field(
    "Dataset",
    h(
      "select",
      { name: "dataset_id" },
      ...datasets.filter((d) => d.status === "ready").map((d) => h("option", { value: d.id }, d.name)),
    ),
  );
  const name = field("Run name", h("input", { name: "name", required: true }));
  const target = field("Target column", h("input", { name: "target_column", required: true }));
  const out = status();
  const form = h(
    "form",
    { class: "card", "aria-label": "Train or tune" },
    ds.wrap,
    name.wrap,
    target.wrap,
    h("button", { type: "submit", value: "train" }, "Train"),
    " ",
    h("button", { type: "submit", value: "tune", class: "secondary" }, "Tune"),
    out,
  );
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const kind = ((e as SubmitEvent).submitter as HTMLButtonElement | null)?.value === "tune" ? "tune" : "train";
    const body = {
      dataset_id: (ds.input as HTMLSelectElement).value,
      name: (name.input as HTMLInputElement).value,
      target_column: (target.input as HTMLInputElement).value,
    };
    try {
      const r = await call<{ id: string; status: string }>(`/v1/foundry/models/${kind}`, { body });
      out.textContent = `${kind === "tune" ? "Tuning" : "Training"} started: ${r.id} (${r.status})`;
    } catch (err) {
      showErrors(err, form, out);
    }
  });
  return form;
}
