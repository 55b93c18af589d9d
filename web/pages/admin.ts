/**
 * Admin: the installation's admin key (memory only, gone on reload) for tenants, with live
 * provisioning progress (9 steps, failed step and error, resume = POST the same body
 * again), deactivation with confirmation; catalogs and sync targets (JWT of a tenant
 * admin); lakehouse health.
 */
import { call, showErrors } from "../lib/api.ts";
import { field, fmtDate, h, select, set, status, table } from "../lib/dom.ts";
import { onLeave } from "../lib/lifecycle.ts";
import { saveSession, session } from "../lib/session.ts";

interface Tenant {
  tenant_id: string;
  slug: string;
  display_name: string;
  tier: string;
  region: string;
  provisioning_state: string;
  is_active: boolean;
}
interface Status {
  provisioning_state: string;
  last_error: string | null;
  steps: { id: string; name: string; status: string }[];
}

/** Provisioning progress: outside the tenants table, which re-renders under it. */
let progress: HTMLElement = document.createElement("div");

export async function render(main: HTMLElement): Promise<void> {
  progress = h("div", { "aria-live": "polite" });
  const key = field("Admin key", h("input", { name: "admin_key", type: "password", autocomplete: "off" }));
  const keyForm = h("form", { class: "inline" }, key.wrap, h("button", { type: "submit" }, "Use key"));
  const tenants = h("section", { "aria-labelledby": "tenants-h" });
  keyForm.addEventListener("submit", (e) => {
    e.preventDefault();
    saveSession({ adminKey: (key.input as HTMLInputElement).value.trim() });
    void renderTenants(tenants);
  });
  const health = h("section", { "aria-labelledby": "health-h" }, h("h2", { id: "health-h" }, "Lakehouse health"));
  const lake = h("section", { "aria-labelledby": "lake-h" });
  set(main, h("h1", {}, "Admin"), keyForm, tenants, progress, health, lake);
  const hres = await call<Record<string, string>>("/v1/admin/lakehouse/health", { auth: "none" }).catch((err) => ({
    status: "unavailable",
    error: String(err),
  }));
  health.append(
    h(
      "p",
      { "data-testid": "lake-health", class: hres.status === "ok" ? "ok" : "failed" },
      Object.entries(hres)
        .map(([k, v]) => `${k}: ${v}`)
        .join(" · "),
    ),
  );
  if (session().adminKey) await renderTenants(tenants);
  if (session().jwt) await renderLakehouse(lake);
}

async function renderTenants(sec: HTMLElement): Promise<void> {
  const out = status();
  let list: Tenant[] = [];
  try {
    list = await call<Tenant[]>("/v1/admin/tenants", { auth: "admin" });
  } catch (err) {
    set(
      sec,
      h("h2", { id: "tenants-h" }, "Tenants"),
      h("p", { class: "error", role: "alert" }, String((err as Error).message)),
    );
    return;
  }
  const rows = list.map((t) => {
    const watch = h("button", { type: "button", class: "secondary" }, "Progress");
    watch.addEventListener("click", () => void watchTenant(t.slug, sec));
    const off = h(
      "button",
      { type: "button", disabled: !t.is_active, "aria-label": `Deactivate ${t.slug}` },
      "Deactivate",
    );
    off.addEventListener("click", async () => {
      if (!confirm(`Deactivate tenant ${t.slug}? Its users lose access at once (no data is deleted).`)) return;
      await call(`/v1/admin/tenants/${t.slug}`, { auth: "admin", method: "DELETE" }).catch(
        (err) => (out.textContent = String(err.message)),
      );
      await renderTenants(sec);
    });
    // Resume = POST the same tenant again (spec 4.1); only a failed pipeline offers it.
    const resume =
      t.provisioning_state === "failed"
        ? h("button", { type: "button", "aria-label": `Resume ${t.slug}` }, "Resume")
        : null;
    resume?.addEventListener("click", async () => {
      const body = { slug: t.slug, display_name: t.display_name, tier: t.tier, region: t.region };
      await call("/v1/admin/tenants", { auth: "admin", body }).catch((err) => (out.textContent = String(err.message)));
      void watchTenant(t.slug, sec);
    });
    return [
      t.slug,
      t.display_name,
      t.tier,
      h("span", { class: t.provisioning_state === "failed" ? "failed" : "" }, t.provisioning_state),
      t.is_active ? "yes" : "no",
      h("span", {}, watch, " ", resume, resume ? " " : "", off),
    ];
  });
  set(
    sec,
    h("h2", { id: "tenants-h" }, "Tenants"),
    createForm(sec),
    out,
    table(["Slug", "Name", "Tier", "State", "Active", ""], rows, "Tenants"),
  );
}

function createForm(sec: HTMLElement): HTMLElement {
  const f = {
    slug: field("Slug", h("input", { name: "slug", required: true })),
    display_name: field("Display name", h("input", { name: "display_name", required: true })),
    tier: field("Tier", select("tier", ["pilot", "enterprise", "enterprise_plus"], "pilot")),
    region: field("Region", h("input", { name: "region", value: "local" })),
    admin_email: field("Admin email (optional)", h("input", { name: "admin_email", type: "email" })),
  };
  const out = status();
  const form = h(
    "form",
    { class: "card", "aria-label": "Create or resume a tenant" },
    ...Object.values(f).map((x) => x.wrap),
    h("button", { type: "submit" }, "Create / resume"),
    out,
  );
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    // Empty optional fields are left out, not sent as "" (which the API would refuse).
    const body = Object.fromEntries(
      Object.entries(f)
        .map(([k, x]) => [k, (x.input as HTMLInputElement).value.trim()])
        .filter(([, v]) => v !== ""),
    );
    try {
      const t = await call<Tenant>("/v1/admin/tenants", { auth: "admin", body });
      await renderTenants(sec);
      void watchTenant(t.slug, sec);
    } catch (err) {
      showErrors(err, form, out);
    }
  });
  return form;
}

/** Polls the status every second until the pipeline is done or failed; then the list again. */
async function watchTenant(slug: string, sec: HTMLElement): Promise<void> {
  const el = progress;
  let stop = false;
  onLeave(() => (stop = true));
  while (!stop) {
    const s = await call<Status>(`/v1/admin/tenants/${slug}/status`, { auth: "admin" });
    set(
      el,
      h("h3", {}, `Provisioning ${slug}: ${s.provisioning_state}`),
      h(
        "ol",
        { "data-testid": "steps" },
        ...s.steps.map((x) => h("li", { class: x.status }, `${x.name}: ${x.status}`)),
      ),
      s.last_error
        ? h("p", { class: "error", role: "alert" }, `Failed: ${s.last_error}. Resume it from the list.`)
        : null,
    );
    if (
      s.provisioning_state === "active" ||
      s.provisioning_state === "failed" ||
      s.provisioning_state === "deprovisioned"
    )
      return renderTenants(sec);
    await new Promise((r) => setTimeout(r, 1000));
  }
}

async function renderLakehouse(sec: HTMLElement): Promise<void> {
  try {
    const [cats, targets] = await Promise.all([
      call<
        {
          catalog_name: string;
          tenant_slug: string;
          catalog_type: string;
          is_active: boolean;
          provisioned_at: string;
        }[]
      >("/v1/admin/lakehouse/catalogs"),
      call<
        {
          tenant_slug: string;
          source_schema: string;
          source_table: string;
          iceberg_table: string;
          sync_mode: string;
          created_at: string;
        }[]
      >("/v1/admin/lakehouse/sync-targets"),
    ]);
    set(
      sec,
      h("h2", { id: "lake-h" }, "Catalogs and sync targets"),
      table(
        ["Catalog", "Tenant", "Type", "Active", "Provisioned"],
        cats.map((c) => [
          c.catalog_name,
          c.tenant_slug,
          c.catalog_type,
          c.is_active ? "yes" : "no",
          fmtDate(c.provisioned_at),
        ]),
        "Catalogs",
      ),
      table(
        ["Tenant", "Source", "Iceberg table", "Mode", "Created"],
        targets.map((t) => [
          t.tenant_slug,
          `${t.source_schema}.${t.source_table}`,
          t.iceberg_table,
          t.sync_mode,
          fmtDate(t.created_at),
        ]),
        "Sync targets",
      ),
    );
  } catch (err) {
    set(
      sec,
      h("h2", { id: "lake-h" }, "Catalogs and sync targets"),
      h("p", { class: "error" }, (err as Error).message),
    );
  }
}
