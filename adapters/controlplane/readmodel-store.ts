/**
 * The read models in the control-plane database (SQLite with attached ci/dm/pm/md files, or
 * Postgres schemas): structured tenant-filtered reads (domain/foundry/readmodels/select.ts
 * compiles them), the refresh job's whole-table replacement, and the pm.* portfolios.
 */

import { AppError } from "../../domain/errors.ts";
import { READ_MODEL_TABLES, type ReadModelSchema, readModelTable } from "../../domain/foundry/readmodels/catalogue.ts";
import type {
  Holding,
  NewPortfolio,
  Portfolio,
  PortfolioKind,
  ReadModelResult,
  ReadModelSelect,
  ReadModelStore,
  ReadModelValue,
} from "../../domain/foundry/readmodels/ports.ts";
import { compileSelect } from "../../domain/foundry/readmodels/select.ts";
import type { SqlClient, SqlParam } from "../../domain/ports.ts";
import type { TenantRef } from "../../domain/tenants/namespaces.ts";

/** Rows per INSERT statement (SQLite allows 32 766 parameters; the widest table has ~50 columns). */
const BATCH_PARAMS = 30_000;
/** tenant_id of the refresh log's rows for public tables. */
const PUBLIC = "";

type PortfolioRow = Omit<Portfolio, "holdings" | "kind"> & { kind: string };
type HoldingRow = Holding & { portfolio_id: string };

export class SqlReadModelStore implements ReadModelStore {
  constructor(private readonly sql: SqlClient) {}

  catalogue() {
    return READ_MODEL_TABLES;
  }

  async select(t: TenantRef, q: ReadModelSelect): Promise<ReadModelResult> {
    const c = compileSelect(t.tenantId, q, this.sql.dialect);
    const raw = await this.sql.all<Record<string, unknown>>(c.sql, c.params as SqlParam[]);
    const types = new Map(c.table.columns.map((col) => [col.name, col.type]));
    return {
      columns: c.columns,
      rows: raw.map((r) => c.columns.map((name) => wire(r[name], types.get(name)))),
    };
  }

  async counts(t: TenantRef): Promise<Record<string, number>> {
    const out: Record<string, number> = {};
    for (const tb of READ_MODEL_TABLES) {
      const where = tb.scope === "tenant" ? " WHERE tenant_id = ?" : "";
      const r = await this.sql.get<{ n: number | string }>(
        `SELECT count(*) AS n FROM ${tb.schema}.${tb.table}${where}`,
        tb.scope === "tenant" ? [t.tenantId] : [],
      );
      out[`${tb.schema}.${tb.table}`] = Number(r?.n ?? 0);
    }
    return out;
  }

  async replace(schema: ReadModelSchema, table: string, tenantId: string | null, rows: unknown[][]): Promise<number> {
    const tb = readModelTable(schema, table);
    if (!tb) throw new AppError("internal", `${schema}.${table} is not a read model`);
    if ((tb.scope === "tenant") !== (tenantId !== null)) {
      throw new AppError("internal", `${schema}.${table}: tenant scope mismatch`);
    }
    const cols = tb.columns.map((c) => c.name);
    const width = cols.length;
    const own = tb.scope === "tenant" ? cols.slice(1) : cols;
    const bools = new Set(tb.columns.filter((c) => c.type === "boolean").map((c) => c.name));
    const perStmt = Math.max(1, Math.floor(BATCH_PARAMS / width));
    const name = `${schema}.${table}`;
    await this.sql.transaction(async (tx) => {
      if (tenantId === null) await tx.run(`DELETE FROM ${name}`);
      else await tx.run(`DELETE FROM ${name} WHERE tenant_id = ?`, [tenantId]);
      for (let i = 0; i < rows.length; i += perStmt) {
        const chunk = rows.slice(i, i + perStmt);
        const params: SqlParam[] = [];
        for (const r of chunk) {
          if (r.length !== own.length)
            throw new AppError("internal", `${name}: a row has ${r.length} values, not ${own.length}`);
          if (tenantId !== null) params.push(tenantId);
          for (const [j, v] of r.entries()) params.push(param(v, bools.has(own[j] as string), this.sql.dialect));
        }
        const one = `(${cols.map(() => "?").join(", ")})`;
        await tx.run(`INSERT INTO ${name} (${cols.join(", ")}) VALUES ${chunk.map(() => one).join(", ")}`, params);
      }
    });
    return rows.length;
  }

  async markRefreshed(name: string, tenantId: string | null, rows: number, at: string): Promise<void> {
    await this.sql.run(
      `INSERT INTO readmodel_refreshes (table_name, tenant_id, row_count, refreshed_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (table_name, tenant_id) DO UPDATE SET row_count = excluded.row_count, refreshed_at = excluded.refreshed_at`,
      [name, tenantId ?? PUBLIC, rows, at],
    );
  }

  async refreshedAt(name: string, tenantId: string | null): Promise<{ at: string; rows: number } | null> {
    const r = await this.sql.get<{ refreshed_at: string; row_count: number | string }>(
      "SELECT refreshed_at, row_count FROM readmodel_refreshes WHERE table_name = ? AND tenant_id = ?",
      [name, tenantId ?? PUBLIC],
    );
    return r ? { at: r.refreshed_at, rows: Number(r.row_count) } : null;
  }

  // -- pm.* ------------------------------------------------------------------------

  async createPortfolio(p: NewPortfolio): Promise<Portfolio> {
    try {
      await this.insertPortfolio(p);
    } catch (err) {
      // A concurrent create of the same name loses on the unique index: the same conflict.
      if (!(err instanceof AppError) && (await this.nameTaken(p.tenantId, p.name))) {
        throw new AppError("conflict", "A portfolio of that name exists");
      }
      throw err;
    }
    return (await this.getPortfolio(p.tenantId, p.id)) as Portfolio;
  }

  private async nameTaken(tenantId: string, name: string): Promise<boolean> {
    return Boolean(
      await this.sql.get("SELECT 1 AS x FROM pm.portfolios WHERE tenant_id = ? AND name = ?", [tenantId, name]),
    );
  }

  private async insertPortfolio(p: NewPortfolio): Promise<void> {
    await this.sql.transaction(async (tx) => {
      const dup = await tx.get("SELECT 1 AS x FROM pm.portfolios WHERE tenant_id = ? AND name = ?", [
        p.tenantId,
        p.name,
      ]);
      if (dup) throw new AppError("conflict", "A portfolio of that name exists");
      await tx.run(
        `INSERT INTO pm.portfolios (tenant_id, portfolio_id, name, kind, description, created_by, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
        [p.tenantId, p.id, p.name, p.kind, p.description, p.createdBy, p.at, p.at],
      );
      await insertHoldings(tx, p.tenantId, p.id, p.holdings);
    });
  }

  async getPortfolio(tenantId: string, id: string): Promise<Portfolio | null> {
    const r = await this.sql.get<PortfolioRow>(
      `SELECT ${PORTFOLIO_COLS} FROM pm.portfolios WHERE tenant_id = ? AND portfolio_id = ?`,
      [tenantId, id],
    );
    if (!r) return null;
    const hs = await this.sql.all<HoldingRow>(
      `SELECT ${HOLDING_COLS} FROM pm.holdings WHERE tenant_id = ? AND portfolio_id = ? ORDER BY position`,
      [tenantId, id],
    );
    return toPortfolio(r, hs);
  }

  async listPortfolios(tenantId: string): Promise<Portfolio[]> {
    const ps = await this.sql.all<PortfolioRow>(
      `SELECT ${PORTFOLIO_COLS} FROM pm.portfolios WHERE tenant_id = ? ORDER BY created_at DESC, portfolio_id`,
      [tenantId],
    );
    const hs = await this.sql.all<HoldingRow>(
      `SELECT ${HOLDING_COLS} FROM pm.holdings WHERE tenant_id = ? ORDER BY portfolio_id, position`,
      [tenantId],
    );
    const by = new Map<string, HoldingRow[]>();
    for (const h of hs) by.set(h.portfolio_id, [...(by.get(h.portfolio_id) ?? []), h]);
    return ps.map((p) => toPortfolio(p, by.get(p.id) ?? []));
  }

  async deletePortfolio(tenantId: string, id: string): Promise<boolean> {
    return this.sql.transaction(async (tx) => {
      await tx.run("DELETE FROM pm.holdings WHERE tenant_id = ? AND portfolio_id = ?", [tenantId, id]);
      const r = await tx.run("DELETE FROM pm.portfolios WHERE tenant_id = ? AND portfolio_id = ?", [tenantId, id]);
      return r.changes > 0;
    });
  }

  async replaceHoldings(tenantId: string, id: string, holdings: Holding[], at: string): Promise<Portfolio | null> {
    const found = await this.sql.transaction(async (tx) => {
      const r = await tx.run("UPDATE pm.portfolios SET updated_at = ? WHERE tenant_id = ? AND portfolio_id = ?", [
        at,
        tenantId,
        id,
      ]);
      if (r.changes === 0) return false;
      await tx.run("DELETE FROM pm.holdings WHERE tenant_id = ? AND portfolio_id = ?", [tenantId, id]);
      await insertHoldings(tx, tenantId, id, holdings);
      return true;
    });
    return found ? this.getPortfolio(tenantId, id) : null;
  }
}

const PORTFOLIO_COLS = "portfolio_id AS id, name, kind, description, created_by, created_at, updated_at";
const HOLDING_COLS = "portfolio_id, ticker, cik, quantity, weight, cost_basis";

async function insertHoldings(tx: SqlClient, tenantId: string, id: string, holdings: Holding[]): Promise<void> {
  for (const [i, h] of holdings.entries()) {
    await tx.run(
      `INSERT INTO pm.holdings (tenant_id, portfolio_id, ticker, cik, quantity, weight, cost_basis, position)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      [tenantId, id, h.ticker, h.cik, h.quantity, h.weight, h.cost_basis, i],
    );
  }
}

const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

function toPortfolio(r: PortfolioRow, hs: HoldingRow[]): Portfolio {
  return {
    ...r,
    kind: r.kind as PortfolioKind,
    holdings: hs.map((h) => ({
      ticker: h.ticker,
      cik: h.cik,
      quantity: num(h.quantity),
      weight: num(h.weight),
      cost_basis: num(h.cost_basis),
    })),
  };
}

function param(v: unknown, bool: boolean, dialect: SqlClient["dialect"]): SqlParam {
  if (v === undefined || v === null) return null;
  if (bool) return dialect === "sqlite" ? (v ? 1 : 0) : Boolean(v);
  if (typeof v === "bigint") return v.toString();
  return v as SqlParam;
}

/** A stored value as JSON: booleans from SQLite's 0/1, BIGINT text as a number while exact. */
function wire(v: unknown, type: string | undefined): ReadModelValue {
  if (v === null || v === undefined) return null;
  switch (type) {
    case "boolean":
      return typeof v === "string" ? v === "t" || v === "true" || v === "1" : Boolean(v);
    case "integer":
    case "bigint":
    case "double": {
      if (typeof v === "number") return v;
      const n = Number(v);
      return Number.isSafeInteger(n) || type === "double" ? n : String(v);
    }
    default:
      return v instanceof Date ? v.toISOString() : String(v);
  }
}
