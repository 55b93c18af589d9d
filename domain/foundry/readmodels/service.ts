/**
 * The relational read models ci.*, dm.*, pm.*, md.* (spec 1.9) and the portfolios behind
 * pm.*: what the routes and the natural-language query helper call. Every call takes the
 * caller's tenant; the store filters every tenant table on it.
 */
import { AppError, type ValidationIssue } from "../../errors.ts";
import { normalizeCik } from "../../financials/fields.ts";
import type { JobQueue } from "../../ports.ts";
import type { TenantRef } from "../../tenants/namespaces.ts";
import { type ReadModelColumn, readModelName } from "./catalogue.ts";
import {
  type Holding,
  PORTFOLIO_KINDS,
  type Portfolio,
  type PortfolioKind,
  READ_MODEL_REFRESH_QUEUE,
  type ReadModelPort,
  type ReadModelResult,
  type ReadModelSelect,
  type ReadModelStore,
} from "./ports.ts";

export const MAX_HOLDINGS = 1_000;
const TICKER_RE = /^[A-Z0-9][A-Z0-9.\-^=/]{0,19}$/;

export interface PortfolioInput {
  name: string;
  kind: PortfolioKind;
  description?: string;
  holdings?: HoldingInput[];
}

export interface HoldingInput {
  ticker: string;
  cik?: string | null;
  quantity?: number | null;
  weight?: number | null;
  cost_basis?: number | null;
}

export interface ReadModelInfo {
  schema: string;
  table: string;
  name: string;
  description: string;
  scope: "public" | "tenant";
  source: "refresh" | "model";
  columns: ReadModelColumn[];
  row_count: number;
  refreshed_at: string | null;
}

export interface FoundryReadModelsDeps {
  store: ReadModelStore;
  /** Null: refresh is not offered (no job queue wired). */
  queue: JobQueue | null;
  now?: () => Date;
  newId?: () => string;
}

export class FoundryReadModels {
  /** The structured read port (tenant-filtered). */
  readonly port: ReadModelPort;
  private readonly now: () => Date;
  private readonly newId: () => string;

  constructor(private readonly deps: FoundryReadModelsDeps) {
    this.port = deps.store;
    this.now = deps.now ?? (() => new Date());
    this.newId = deps.newId ?? (() => crypto.randomUUID());
  }

  select(t: TenantRef, q: ReadModelSelect): Promise<ReadModelResult> {
    return this.deps.store.select(t, q);
  }

  /** Every read model with its columns (tenant_id left out) and the tenant's row counts. */
  async list(t: TenantRef): Promise<ReadModelInfo[]> {
    const counts = await this.deps.store.counts(t);
    const out: ReadModelInfo[] = [];
    for (const tb of this.deps.store.catalogue()) {
      const name = readModelName(tb);
      const refreshed =
        tb.source === "refresh"
          ? await this.deps.store.refreshedAt(name, tb.scope === "tenant" ? t.tenantId : null)
          : null;
      out.push({
        schema: tb.schema,
        table: tb.table,
        name,
        description: tb.description,
        scope: tb.scope,
        source: tb.source,
        columns: tb.columns.filter((c) => c.name !== "tenant_id"),
        row_count: counts[name] ?? 0,
        refreshed_at: refreshed?.at ?? null,
      });
    }
    return out;
  }

  /** Queues a refresh of the tenant's dm.* and md.* and of the public ci.*; returns the job ids. */
  async refresh(t: TenantRef): Promise<{ jobs: string[] }> {
    if (!this.deps.queue) throw new AppError("unavailable", "Read-model refresh is not available");
    const pub = await this.deps.queue.enqueue(READ_MODEL_REFRESH_QUEUE, "refresh-public", { scope: "public" });
    const own = await this.deps.queue.enqueue(READ_MODEL_REFRESH_QUEUE, "refresh-tenant", {
      tenant_id: t.tenantId,
      slug: t.slug,
    });
    return { jobs: [pub.id, own.id] };
  }

  // -- pm.* ------------------------------------------------------------------------

  listPortfolios(t: TenantRef): Promise<Portfolio[]> {
    return this.deps.store.listPortfolios(t.tenantId);
  }

  async createPortfolio(t: TenantRef, createdBy: string, input: PortfolioInput): Promise<Portfolio> {
    const issues: ValidationIssue[] = [];
    const name = input.name.trim();
    if (name === "" || name.length > 200) issues.push(issue(["name"], "name must be 1..200 characters", input.name));
    if (!(PORTFOLIO_KINDS as readonly string[]).includes(input.kind)) {
      issues.push(issue(["kind"], `kind must be one of ${PORTFOLIO_KINDS.join(", ")}`, input.kind));
    }
    const holdings = checkHoldings(input.holdings ?? [], ["holdings"], issues);
    if (issues.length > 0) throw AppError.validation(issues);
    return this.deps.store.createPortfolio({
      id: this.newId(),
      tenantId: t.tenantId,
      name,
      kind: input.kind,
      description: input.description ?? "",
      createdBy,
      at: this.now().toISOString(),
      holdings,
    });
  }

  async getPortfolio(t: TenantRef, id: string): Promise<Portfolio> {
    const p = await this.deps.store.getPortfolio(t.tenantId, id);
    if (!p) throw new AppError("not_found", "No such portfolio in the tenant");
    return p;
  }

  async deletePortfolio(t: TenantRef, id: string): Promise<void> {
    if (!(await this.deps.store.deletePortfolio(t.tenantId, id))) {
      throw new AppError("not_found", "No such portfolio in the tenant");
    }
  }

  async replaceHoldings(t: TenantRef, id: string, input: HoldingInput[]): Promise<Portfolio> {
    const issues: ValidationIssue[] = [];
    const holdings = checkHoldings(input, ["holdings"], issues);
    if (issues.length > 0) throw AppError.validation(issues);
    const p = await this.deps.store.replaceHoldings(t.tenantId, id, holdings, this.now().toISOString());
    if (!p) throw new AppError("not_found", "No such portfolio in the tenant");
    return p;
  }
}

const issue = (loc: string[], msg: string, input: unknown): ValidationIssue => ({
  loc: ["body", ...loc],
  msg,
  type: "value_error",
  input,
  ctx: {},
});

/** Tickers upper-cased and unique, CIKs zero-padded, numbers finite. */
export function checkHoldings(input: HoldingInput[], loc: string[], issues: ValidationIssue[]): Holding[] {
  if (input.length > MAX_HOLDINGS) {
    issues.push(issue(loc, `at most ${MAX_HOLDINGS} holdings`, input.length));
    return [];
  }
  const seen = new Set<string>();
  const out: Holding[] = [];
  input.forEach((h, i) => {
    const at = [...loc, String(i)];
    const ticker = String(h.ticker ?? "")
      .trim()
      .toUpperCase();
    if (!TICKER_RE.test(ticker)) issues.push(issue([...at, "ticker"], "not a ticker", h.ticker));
    else if (seen.has(ticker)) issues.push(issue([...at, "ticker"], "ticker listed twice", h.ticker));
    seen.add(ticker);
    let cik: string | null = null;
    if (h.cik !== undefined && h.cik !== null) {
      cik = normalizeCik(String(h.cik));
      if (!cik) issues.push(issue([...at, "cik"], "a CIK is 1..10 digits", h.cik));
    }
    const n = (k: "quantity" | "weight" | "cost_basis"): number | null => {
      const v = h[k];
      if (v === undefined || v === null) return null;
      if (typeof v !== "number" || !Number.isFinite(v)) {
        issues.push(issue([...at, k], "a finite number is required", v));
        return null;
      }
      return v;
    };
    out.push({ ticker, cik, quantity: n("quantity"), weight: n("weight"), cost_basis: n("cost_basis") });
  });
  return out;
}
