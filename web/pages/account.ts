/** Account: profile, tier limits, usage chart, API keys (create once-shown, revoke). */
import { ApiError, call } from "../lib/api.ts";
import { field, fmtDate, h, set, status, table } from "../lib/dom.ts";
import { session } from "../lib/session.ts";

interface Profile {
  id: number;
  email: string;
  name: string;
  tier: string;
  limits: Record<string, number | null>;
  current_usage: { today: number; this_month: number };
}
interface Key {
  id: string;
  prefix: string;
  label: string;
  created_at: string;
  last_used_at: string | null;
}

export async function render(main: HTMLElement): Promise<void> {
  const me = await call<Profile>("/v1/user/me");
  const chart = h("div", {
    class: "chart",
    role: "img",
    "aria-label": `Requests today ${me.current_usage.today}, this month ${me.current_usage.this_month}`,
  });
  const keys = h("section", { "aria-labelledby": "keys-h" });
  set(
    main,
    h("h1", {}, "Account"),
    h(
      "section",
      { "aria-labelledby": "profile-h" },
      h("h2", { id: "profile-h" }, "Profile"),
      h(
        "dl",
        {},
        h("dt", {}, "Email"),
        h("dd", { "data-testid": "email" }, me.email),
        h("dt", {}, "Name"),
        h("dd", {}, me.name || "—"),
        h("dt", {}, "Tier"),
        h("dd", {}, me.tier),
      ),
    ),
    h(
      "section",
      { "aria-labelledby": "limits-h" },
      h("h2", { id: "limits-h" }, "Tier limits"),
      table(
        ["Limit", "Value"],
        Object.entries(me.limits).map(([k, v]) => [k.replaceAll("_", " "), v === null ? "unlimited" : String(v)]),
      ),
    ),
    h("section", { "aria-labelledby": "usage-h" }, h("h2", { id: "usage-h" }, "Usage"), chart),
    keys,
  );
  await drawUsage(chart, me);
  await renderKeys(keys);
}

async function drawUsage(el: HTMLElement, me: Profile): Promise<void> {
  // uPlot is loaded on demand: only this page and Data draw charts.
  const { default: uPlot } = await import("uplot");
  const used = [me.current_usage.today, me.current_usage.this_month];
  const limit = [me.limits.req_per_day ?? 0, (me.limits.req_per_day ?? 0) * 30];
  new uPlot(
    {
      width: Math.min(560, el.clientWidth || 560),
      height: 220,
      title: "Requests: used vs. limit (today, this month)",
      scales: { x: { time: false, range: [-0.5, 1.5] }, y: { range: (_u, _min, max) => [0, Math.max(1, max) * 1.1] } },
      axes: [
        { values: (_u, ticks) => ticks.map((t) => (t === 0 ? "today" : t === 1 ? "this month" : "")) },
        { size: 70 },
      ],
      series: [
        {},
        { label: "used", stroke: "#1d4ed8", fill: "#1d4ed866", paths: uPlot.paths.bars?.({ size: [0.4] }) },
        // The limits are marks, not a trend: points only.
        { label: "limit", stroke: "#b45309", paths: () => null, points: { show: true, size: 10 } },
      ],
    },
    [[0, 1], used, limit],
    el,
  );
}

async function renderKeys(sec: HTMLElement): Promise<void> {
  const { api_keys } = await call<{ api_keys: Key[] }>("/v1/user/api-keys");
  const label = field("Label", h("input", { name: "label", required: true, maxlength: 100 }));
  const out = status();
  const shown = h("div", { class: "once", "aria-live": "polite" });
  const form = h("form", { class: "inline" }, label.wrap, h("button", { type: "submit" }, "Create key"), out);
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    label.error.textContent = "";
    try {
      const k = await call<Key & { key: string }>("/v1/user/api-keys", {
        body: { label: (label.input as HTMLInputElement).value },
      });
      await renderKeys(sec);
      const box = sec.querySelector(".once") as HTMLElement;
      const copy = h("button", { type: "button" }, "Copy");
      copy.addEventListener(
        "click",
        () => void navigator.clipboard?.writeText(k.key).then(() => (copy.textContent = "Copied")),
      );
      set(
        box,
        h("p", {}, "Your new key (shown once; copy it now): "),
        h("code", { "data-testid": "new-key" }, k.key),
        " ",
        copy,
      );
    } catch (err) {
      // The tier cap (409) and validation errors sit next to the label field.
      label.error.textContent = err instanceof ApiError ? (err.forField("label") ?? err.message) : String(err);
    }
  });
  const own = session().apiKeyId;
  const rows = api_keys.map((k) => {
    const btn = h("button", { type: "button", "aria-label": `Revoke ${k.label}` }, "Revoke");
    btn.addEventListener("click", async () => {
      if (!confirm(`Revoke "${k.label}"? Clients using it stop working.`)) return;
      await call(`/v1/user/api-keys/${k.id}`, { method: "DELETE" });
      await renderKeys(sec);
    });
    return [
      k.label + (k.id === own ? " (this session)" : ""),
      h("code", {}, `${k.prefix}…`),
      fmtDate(k.created_at),
      fmtDate(k.last_used_at),
      btn,
    ];
  });
  set(
    sec,
    h("h2", { id: "keys-h" }, "API keys"),
    form,
    shown,
    table(["Label", "Prefix", "Created", "Last used", ""], rows, "Your API keys"),
  );
}
