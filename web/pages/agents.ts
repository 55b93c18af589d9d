/**
 * Foundry agents (docs/foundry-agents.md): the tenant's agents with their status and
 * schedule, pause/resume/delete, their last runs and alerts, and a creation form over a
 * deployed model (registry id). Shown as a section of the Foundry page.
 */
import { call, showErrors } from "../lib/api.ts";
import { field, fmtDate, h, select, set, status, table } from "../lib/dom.ts";

interface Agent {
  id: string;
  name: string;
  agent_type: string;
  status: string;
  schedule_cron: string | null;
  call_count: number;
  last_fire_at: string | null;
  next_fire_at: string | null;
}

export async function agentsSection(): Promise<HTMLElement> {
  const sec = h("section", { "aria-labelledby": "agents-h", "data-testid": "agents" });
  await renderAgents(sec);
  return sec;
}

async function renderAgents(sec: HTMLElement): Promise<void> {
  const { agents } = await call<{ agents: Agent[] }>("/v1/foundry/agents");
  const detail = h("div", { "aria-live": "polite" });
  const act = (a: Agent, op: "pause" | "resume") => {
    const b = h("button", { type: "button", class: "secondary", "aria-label": `${op} ${a.name}` }, op);
    b.addEventListener("click", async () => {
      await call(`/v1/foundry/agents/${a.id}/${op}`, { method: "POST" }).catch((err) =>
        set(detail, h("p", { class: "error" }, err.message)),
      );
      await renderAgents(sec);
    });
    return b;
  };
  const rows = agents.map((a) => {
    const del = h("button", { type: "button", "aria-label": `Delete ${a.name}` }, "Delete");
    del.addEventListener("click", async () => {
      if (!confirm(`Delete agent ${a.name}?`)) return;
      await call(`/v1/foundry/agents/${a.id}`, { method: "DELETE" });
      await renderAgents(sec);
    });
    const history = h(
      "button",
      { type: "button", class: "secondary", "aria-label": `History of ${a.name}` },
      "Runs & alerts",
    );
    history.addEventListener("click", async () => {
      const [{ runs }, { alerts }] = await Promise.all([
        call<{ runs: Record<string, unknown>[] }>(`/v1/foundry/agents/${a.id}/runs`),
        call<{ alerts: Record<string, unknown>[] }>(`/v1/foundry/agents/${a.id}/alerts`),
      ]);
      const brief = (r: Record<string, unknown>) => [
        String(r.status ?? ""),
        fmtDate(r.created_at as string),
        String(r.error ?? ""),
      ];
      set(
        detail,
        h("h4", {}, `Agent ${a.name}`),
        table(["Status", "When", "Error"], runs.map(brief), "Runs"),
        table(["Status", "When", "Error"], alerts.map(brief), "Alerts"),
      );
    });
    const run = h("button", { type: "button", "aria-label": `Run ${a.name}` }, "Run");
    // The list's call count follows the runs made from the form (one model call each).
    const calls = h("span", { "data-testid": "agent-calls" }, String(a.call_count));
    run.addEventListener("click", () =>
      set(
        detail,
        runForm(a, (n) => {
          calls.textContent = String(n);
        }),
      ),
    );
    return [
      a.name,
      a.agent_type,
      a.status,
      a.schedule_cron ?? "—",
      calls,
      fmtDate(a.next_fire_at),
      h("span", {}, run, " ", a.status === "paused" ? act(a, "resume") : act(a, "pause"), " ", history, " ", del),
    ];
  });
  set(
    sec,
    h("h2", { id: "agents-h" }, "Agents"),
    createForm(sec),
    table(["Name", "Type", "Status", "Schedule", "Calls", "Next run", ""], rows, "Agents"),
    detail,
  );
}

/**
 * Runs an agent now (POST /agents/{id}/run): predict and alert agents take rows and answer at
 * once (the predictions, the alerts claimed); score and batch agents are queued (`{}`).
 */
function runForm(a: Agent, onCalls: (n: number) => void): HTMLElement {
  const takesRows = a.agent_type === "predict" || a.agent_type === "alert";
  const rows = field("Rows to score (JSON array of objects)", h("textarea", { name: "rows", rows: 3, value: "[{}]" }));
  const out = status();
  const result = h("div", { "data-testid": "agent-result" });
  const form = h(
    "form",
    { class: "card", "aria-label": `Run agent ${a.name}` },
    h("h4", {}, `Run ${a.name} (${a.agent_type})`),
    takesRows ? rows.wrap : h("p", {}, "Runs on the agent's own entity; queued."),
    h("button", { type: "submit" }, "Run now"),
    out,
    result,
  );
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    rows.error.textContent = "";
    let body: Record<string, unknown> = {};
    if (takesRows) {
      try {
        body = { rows: JSON.parse((rows.input as HTMLTextAreaElement).value) };
      } catch (err) {
        rows.error.textContent = `Not JSON: ${(err as Error).message}`;
        return;
      }
    }
    try {
      const r = await call<{
        predictions?: Record<string, unknown>[];
        call_count?: number;
        alerts?: unknown;
        run_id?: string;
        status?: string;
      }>(`/v1/foundry/agents/${a.id}/run`, { body });
      if (r.predictions) {
        const cols = [...new Set(r.predictions.flatMap((p) => Object.keys(p)))];
        const cell = (v: unknown) => (typeof v === "object" && v !== null ? JSON.stringify(v) : String(v ?? ""));
        set(
          result,
          table(
            ["Row", ...cols],
            r.predictions.map((p, i) => [String(i), ...cols.map((c) => cell(p[c]))]),
            `Agent ${a.name}: ${r.predictions.length} predictions (call count ${r.call_count})`,
          ),
          r.alerts === undefined ? null : h("pre", {}, JSON.stringify(r.alerts, null, 1)),
        );
      } else set(result, h("p", {}, `Run ${r.run_id}: ${r.status}`));
      if (typeof r.call_count === "number") onCalls(r.call_count);
      out.textContent = "Done.";
    } catch (err) {
      set(result);
      showErrors(err, form, out);
    }
  });
  return form;
}

function createForm(sec: HTMLElement): HTMLElement {
  const f = {
    name: field("Agent name", h("input", { name: "name", required: true })),
    agent_type: field("Type", select("agent_type", ["predict", "score", "alert", "batch"])),
    registry_id: field("Deployed model (registry id)", h("input", { name: "registry_id" })),
    schedule_cron: field("Schedule (cron, optional)", h("input", { name: "schedule_cron" })),
    alert_threshold: field(
      "Alert threshold (alert)",
      h("input", { name: "alert_threshold", type: "number", step: 0.01 }),
    ),
    alert_channel: field(
      "Alert channel",
      h(
        "select",
        { name: "alert_channel" },
        // Only alert agents have a channel: the empty choice means none, not "any".
        h("option", { value: "" }, "(none)"),
        h("option", { value: "slack" }, "slack"),
        h("option", { value: "email" }, "email"),
      ),
    ),
    alert_webhook: field("Alert webhook / address", h("input", { name: "alert_webhook" })),
  };
  const out = status();
  const form = h(
    "form",
    { class: "card", "aria-label": "Create an agent" },
    ...Object.values(f).map((x) => x.wrap),
    h("button", { type: "submit" }, "Create agent"),
    out,
  );
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const body: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(f)) {
      const v = (x.input as HTMLInputElement).value.trim();
      if (v !== "") body[k] = k === "alert_threshold" ? Number(v) : v;
    }
    try {
      await call("/v1/foundry/agents", { body });
      await renderAgents(sec);
    } catch (err) {
      showErrors(err, form, out);
    }
  });
  return form;
}
