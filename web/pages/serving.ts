/**
 * A model run's serving panel (inside the Foundry page's run detail): its deployment
 * (deploy under a name; deploying, polled until active or failed), predictions from JSON rows,
 * the decision threshold (binary models: a slider, with the best value on validation data for a
 * chosen metric as a suggestion), drift (PSI per feature over the last predictions) and the
 * plain-English explanation of its feature importances.
 */
import { ApiError, call, showErrors } from "../lib/api.ts";
import { field, h, select, set, status, table } from "../lib/dom.ts";

interface Deployment {
  registry_id: string;
  model_name: string;
  version: number;
  status: string;
  error: string | null;
  problem_type: string;
  threshold: number;
  threshold_metric: string | null;
}
interface Drift {
  status: string;
  action: string;
  reason: string | null;
  predictions: number;
  features: { feature: string; psi: number; status: string }[];
}
interface BestThreshold {
  metric: string;
  threshold: number | null;
  value: number | null;
  validation_rows: number;
  reason?: string;
}

/** How often a deploying model's status is read again (the load takes seconds). */
const POLL_MS = 1_000;

/** The run the panel serves: its id, name and feature columns (the predict form's template). */
export interface ServedRun {
  id: string;
  name: string;
  features: string[];
}

export async function servingPanel(run: ServedRun): Promise<HTMLElement> {
  const sec = h("section", { "aria-labelledby": "serving-h", "data-testid": "serving" });
  await renderPanel(sec, run);
  return sec;
}

const deploymentOf = (id: string) =>
  call<Deployment>(`/v1/foundry/models/${id}/deployment`).catch((err) => {
    if (err instanceof ApiError && (err.status === 404 || err.status === 409)) return null;
    throw err;
  });

/** `known`: a deployment just answered by the server (deploy), shown as is instead of read again. */
async function renderPanel(sec: HTMLElement, run: ServedRun, known?: Deployment): Promise<void> {
  const { id } = run;
  const explain = h("div", { "data-testid": "explain" });
  const dep = known ?? (await deploymentOf(id));
  const active = dep?.status === "active";
  set(
    sec,
    h("h3", { id: "serving-h" }, "Serving"),
    dep
      ? h(
          "p",
          { "data-testid": "deployment", role: "status", "aria-live": "polite" },
          `Deployed as ${dep.model_name} v${dep.version}: `,
          h("span", { class: dep.status, "data-testid": "deployment-status" }, dep.status),
          dep.error ? h("span", { class: "error" }, ` (${dep.error})`) : "",
          dep.problem_type === "classification" ? ` · threshold ${dep.threshold}` : "",
          " · registry id ",
          h("code", { "data-testid": "registry-id" }, dep.registry_id),
        )
      : deployForm(sec, run),
    active ? predictForm(run) : null,
    active && dep.problem_type === "classification" ? thresholdForm(sec, run, dep) : null,
    dep ? driftView(id) : null,
    explain,
  );
  if (dep?.status === "deploying") pollUntilSettled(sec, run);
  try {
    const e = await call<{ text: string; source: string }>(`/v1/foundry/models/${id}/explain`);
    set(explain, h("h4", {}, "Explanation"), h("p", {}, e.text), h("small", {}, `source: ${e.source}`));
  } catch (err) {
    set(explain, h("p", { class: "status" }, (err as Error).message));
  }
}

/**
 * While the deployment loads in the background, reads its status each second and re-renders the
 * panel once it is active or failed; stops when the panel leaves the page (another run opened).
 */
function pollUntilSettled(sec: HTMLElement, run: ServedRun): void {
  const tick = async () => {
    if (!sec.isConnected) return;
    const dep = await deploymentOf(run.id).catch(() => undefined);
    if (!sec.isConnected) return;
    if (dep === undefined || dep?.status === "deploying") setTimeout(tick, POLL_MS);
    else await renderPanel(sec, run);
  };
  setTimeout(tick, POLL_MS);
}

/** A default deployment name the API accepts: 1-40 lowercase letters, digits or inner hyphens. */
const slugOf = (name: string) =>
  name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .slice(0, 40)
    .replace(/^-+|-+$/g, "") || "model";

function deployForm(sec: HTMLElement, run: ServedRun): HTMLElement {
  const n = field("Deployment name", h("input", { name: "model_name", required: true, value: slugOf(run.name) }));
  const out = status("Not deployed.");
  const form = h(
    "form",
    { class: "inline", "aria-label": "Deploy" },
    n.wrap,
    h("button", { type: "submit" }, "Deploy"),
    out,
  );
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    try {
      // The answer is the row, `deploying`: shown at once, then polled (a fast load could
      // otherwise be active before a second read and the page would skip the state).
      const dep = await call<Deployment>(`/v1/foundry/models/${run.id}/deploy`, {
        body: { model_name: (n.input as HTMLInputElement).value },
      });
      await renderPanel(sec, run, dep);
    } catch (err) {
      showErrors(err, form, out);
    }
  });
  return form;
}

function predictForm(run: ServedRun): HTMLElement {
  // A template row with the model's feature columns (each row must have exactly those).
  const template = JSON.stringify([Object.fromEntries(run.features.map((f) => [f, null]))]);
  const rows = field("Rows (JSON array of objects)", h("textarea", { name: "rows", rows: 3, value: template }));
  const out = status();
  const result = h("div", { "data-testid": "predictions" });
  const form = h(
    "form",
    { "aria-label": "Predict" },
    rows.wrap,
    h("button", { type: "submit" }, "Predict"),
    out,
    result,
  );
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    rows.error.textContent = "";
    let parsed: unknown;
    try {
      parsed = JSON.parse((rows.input as HTMLTextAreaElement).value);
    } catch (err) {
      rows.error.textContent = `Not JSON: ${(err as Error).message}`;
      return;
    }
    try {
      const r = await call<{
        version: number;
        threshold: number | null;
        served_by: string;
        predictions: Record<string, unknown>[];
      }>(`/v1/foundry/models/${run.id}/predict`, { body: { rows: parsed } });
      // One column per field of the answer (label/score/class, value, probabilities, ...).
      const cols = [...new Set(r.predictions.flatMap((p) => Object.keys(p)))];
      const cell = (v: unknown) => (typeof v === "object" && v !== null ? JSON.stringify(v) : String(v ?? ""));
      set(
        result,
        table(
          ["Row", ...cols],
          r.predictions.map((p, i) => [String(i), ...cols.map((c) => cell(p[c]))]),
          `Predictions (v${r.version}, served by ${r.served_by}${r.threshold === null ? "" : `, threshold ${r.threshold}`})`,
        ),
      );
      out.textContent = `${r.predictions.length} predictions`;
    } catch (err) {
      set(result);
      showErrors(err, form, out);
    }
  });
  return form;
}

/**
 * The threshold of a binary classifier: a slider (any value strictly between 0 and 1, step
 * "any" so a suggested value is not rounded) and "Suggest", which asks the server for the
 * threshold that maximises a metric on the run's validation scores and moves the slider there.
 * Nothing changes until "Set threshold".
 */
function thresholdForm(sec: HTMLElement, run: ServedRun, dep: Deployment): HTMLElement {
  const t = field(
    "Decision threshold",
    h("input", { name: "threshold", type: "range", min: 0.001, max: 0.999, step: "any", value: dep.threshold }),
  );
  const shown = h("output", { for: t.input.id, "data-testid": "threshold-value" }, String(dep.threshold));
  t.input.addEventListener("input", () => {
    shown.textContent = (t.input as HTMLInputElement).value;
  });
  t.wrap.append(shown);
  const metric = field(
    "Suggest by metric",
    select("threshold_metric", ["f1", "precision", "recall", "balanced_accuracy"], dep.threshold_metric ?? "f1"),
  );
  const suggestion = h("p", { "data-testid": "threshold-suggestion" });
  const suggest = h("button", { type: "button", class: "secondary" }, "Suggest");
  const out = status();
  const form = h(
    "form",
    { class: "inline", "aria-label": "Threshold" },
    t.wrap,
    metric.wrap,
    suggest,
    h("button", { type: "submit" }, "Set threshold"),
    suggestion,
    out,
  );
  const post = (threshold: number, threshold_metric?: string) =>
    call<{ threshold: number; best_threshold: BestThreshold | null }>(`/v1/foundry/models/${run.id}/threshold`, {
      body: threshold_metric ? { threshold, threshold_metric } : { threshold },
    });
  suggest.addEventListener("click", async () => {
    try {
      // The server computes the best value while storing a threshold: keep the stored one.
      const m = (metric.input as HTMLSelectElement).value;
      const best = (await post(dep.threshold, m)).best_threshold;
      if (!best || best.threshold === null) {
        suggestion.textContent = `No suggestion: ${best?.reason ?? "no validation scores"}`;
        return;
      }
      (t.input as HTMLInputElement).value = String(best.threshold);
      shown.textContent = String(best.threshold);
      suggestion.textContent = `Suggested for ${best.metric}: ${best.threshold} (${best.metric} ${best.value} on ${best.validation_rows} validation rows)`;
    } catch (err) {
      showErrors(err, form, out);
    }
  });
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    try {
      await post(Number((t.input as HTMLInputElement).value));
      await renderPanel(sec, run);
    } catch (err) {
      showErrors(err, form, out);
    }
  });
  return form;
}

function driftView(id: string): HTMLElement {
  const box = h("div", { "data-testid": "drift" });
  const btn = h("button", { type: "button", class: "secondary" }, "Check drift");
  btn.addEventListener("click", async () => {
    try {
      const d = await call<Drift>(`/v1/foundry/models/${id}/drift`);
      set(
        box,
        btn,
        h(
          "p",
          {},
          `Drift: ${d.status.replaceAll("_", " ")} (${d.predictions} predictions) · action: ${d.action}${d.reason ? ` · ${d.reason}` : ""}`,
        ),
        d.features.length
          ? table(
              ["Feature", "PSI", "Status"],
              d.features.map((f) => [f.feature, f.psi.toFixed(3), f.status]),
            )
          : null,
      );
    } catch (err) {
      set(box, btn, h("p", { class: "error" }, (err as Error).message));
    }
  });
  set(box, btn);
  return box;
}
