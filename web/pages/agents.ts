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
    return [
      a.name,
      a.agent_type,
      a.status,
      a.schedule_cron ?? "—",
      String(a.call_count),
      fmtDate(a.next_fire_at),
      h("span", {}, a.status === "paused" ? act(a, "resume") : act(a, "pause"), " ", history, " ", del),
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
    alert_channel: field("Alert channel", select("alert_channel", ["", "slack", "email"])),
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
