/**
 * A model run's serving panel (inside the Foundry page's run detail): its deployment
 * (deploy under a name; deploying, then active), predictions from JSON rows, the decision
 * threshold (binary models), drift (PSI per feature over the last predictions) and the
 * plain-English explanation of its feature importances.
 */
import { ApiError, call, showErrors } from "../lib/api.ts";
import { field, h, set, status, table } from "../lib/dom.ts";

interface Deployment {
  model_name: string;
  version: number;
  status: string;
  error: string | null;
  problem_type: string;
  threshold: number;
}
interface Drift {
  status: string;
  action: string;
  reason: string | null;
  predictions: number;
  features: { feature: string; psi: number; status: string }[];
}

export async function servingPanel(modelId: string, modelName: string): Promise<HTMLElement> {
  const sec = h("section", { "aria-labelledby": "serving-h", "data-testid": "serving" });
  await renderPanel(sec, modelId, modelName);
  return sec;
}

async function renderPanel(sec: HTMLElement, id: string, name: string): Promise<void> {
  const explain = h("div", { "data-testid": "explain" });
  const dep = await call<Deployment>(`/v1/foundry/models/${id}/deployment`).catch((err) => {
    if (err instanceof ApiError && (err.status === 404 || err.status === 409)) return null;
    throw err;
  });
  set(
    sec,
    h("h3", { id: "serving-h" }, "Serving"),
    dep
      ? h(
          "p",
          { "data-testid": "deployment" },
          `Deployed as ${dep.model_name} v${dep.version}: `,
          h("span", { class: dep.status }, dep.status),
          dep.error ? h("span", { class: "error" }, ` (${dep.error})`) : "",
          dep.problem_type === "classification" ? ` · threshold ${dep.threshold}` : "",
        )
      : deployForm(sec, id, name),
    dep?.status === "active" ? predictForm(id) : null,
    dep?.status === "active" && dep.problem_type === "classification" ? thresholdForm(sec, id, name, dep) : null,
    dep ? driftView(id) : null,
    explain,
  );
  try {
    const e = await call<{ text: string; source: string }>(`/v1/foundry/models/${id}/explain`);
    set(explain, h("h4", {}, "Explanation"), h("p", {}, e.text), h("small", {}, `source: ${e.source}`));
  } catch (err) {
    set(explain, h("p", { class: "status" }, (err as Error).message));
  }
}

/** A default deployment name the API accepts: 1-40 lowercase letters, digits or inner hyphens. */
const slugOf = (name: string) =>
  name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .slice(0, 40)
    .replace(/^-+|-+$/g, "") || "model";

function deployForm(sec: HTMLElement, id: string, name: string): HTMLElement {
  const n = field("Deployment name", h("input", { name: "model_name", required: true, value: slugOf(name) }));
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
      await call(`/v1/foundry/models/${id}/deploy`, { body: { model_name: (n.input as HTMLInputElement).value } });
      await renderPanel(sec, id, name);
    } catch (err) {
      showErrors(err, form, out);
    }
  });
  return form;
}

function predictForm(id: string): HTMLElement {
  const rows = field("Rows (JSON array of objects)", h("textarea", { name: "rows", rows: 3, value: "[{}]" }));
  const out = status();
  const result = h("pre", { "data-testid": "predictions" });
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
    let parsed: unknown;
    try {
      parsed = JSON.parse((rows.input as HTMLTextAreaElement).value);
    } catch (err) {
      rows.error.textContent = `Not JSON: ${(err as Error).message}`;
      return;
    }
    try {
      const r = await call<{ predictions: unknown[] }>(`/v1/foundry/models/${id}/predict`, { body: { rows: parsed } });
      result.textContent = JSON.stringify(r.predictions, null, 1);
      out.textContent = "";
    } catch (err) {
      showErrors(err, form, out);
    }
  });
  return form;
}

function thresholdForm(sec: HTMLElement, id: string, name: string, dep: Deployment): HTMLElement {
  const t = field(
    "Decision threshold",
    h("input", { name: "threshold", type: "number", min: 0, max: 1, step: 0.01, value: dep.threshold }),
  );
  const out = status();
  const form = h(
    "form",
    { class: "inline", "aria-label": "Threshold" },
    t.wrap,
    h("button", { type: "submit" }, "Set threshold"),
    out,
  );
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    try {
      await call(`/v1/foundry/models/${id}/threshold`, {
        body: { threshold: Number((t.input as HTMLInputElement).value) },
      });
      await renderPanel(sec, id, name);
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
          `Drift: ${d.status} (${d.predictions} predictions) · action: ${d.action}${d.reason ? ` · ${d.reason}` : ""}`,
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
