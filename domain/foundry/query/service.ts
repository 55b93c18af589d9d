/**
 * Natural-language data access (POST /v1/foundry/query, docs/foundry-query.md): plans a
 * read-only query over the tenant's data and runs it.
 *
 * Who plans: the configured language model (./llm.ts, with the tenant's schema as context)
 * when there is one, else, or when the model's plan is refused or fails, the deterministic
 * rules planner (./plan.ts). Whoever plans, the statement passes ./validate.ts (read-only,
 * the tenant's namespace only, a row limit) before it runs. A question neither can plan is
 * answered with `answered: false` and a plain explanation (200: the request was fine).
 *
 * Sources: the lakehouse (SQL through the lab's gateway, confined to the tenant's
 * namespace), the graph (checked Cypher, scoped to the tenant by the adapter), and the
 * time-series (the tenant's real-time `market_bars_daily`, hot and tiered rows, read by
 * range and aggregated in ./market.ts). Answers and their limits: ./answer.ts.
 */
import { AppError } from "../../errors.ts";
import type { LakehousePort } from "../../lakehouse/ports.ts";
import type { ChatModel } from "../../llm.ts";
import { lakehouseNamespace, type TenantRef } from "../../tenants/namespaces.ts";
import type { GraphPort, GraphValue } from "../graph/ports.ts";
import type { ReadModelPort, ReadModelValue } from "../readmodels/ports.ts";
import { DEFAULT_MAX_ROWS, MARKET_TABLE, MAX_QUESTION_CHARS, type QueryAnswer, unanswered } from "./answer.ts";
import { type LlmPlan, planWithModel, type TableSchema } from "./llm.ts";
import { answerMarket, type MarketReader, marketSql } from "./market.ts";
import { planQuestion } from "./plan.ts";
import type { KnownCompany, MarketWindow, Plan, ReadModelAsk } from "./plan-types.ts";
import { checkCypher, checkSql } from "./validate.ts";

export { MAX_QUESTION_CHARS, type QueryAnswer, type QuerySource } from "./answer.ts";

export interface FoundryQueryDeps {
  lakehouse: Pick<LakehousePort, "listTables" | "tableSchema" | "sql"> | null;
  graph: Pick<GraphPort, "read"> | null;
  realtime: MarketReader | null;
  /** The relational read models (pm.*, md.*): structured, tenant-filtered reads, no SQL. */
  readModels?: Pick<ReadModelPort, "select"> | null;
  llm: ChatModel | null;
  maxRows?: number;
  /** Called when the model fails or its plan is refused (the rules planner takes over). */
  onModelFallback?: (reason: string) => void;
}

interface Context {
  namespace: string;
  tables: string[];
  companies: KnownCompany[];
  timeseries: boolean;
}

export class FoundryQuery {
  private readonly maxRows: number;

  constructor(private readonly deps: FoundryQueryDeps) {
    this.maxRows = deps.maxRows ?? DEFAULT_MAX_ROWS;
  }

  /** Answers the question, or says plainly why it cannot. */
  async ask(t: TenantRef, question: string, signal?: AbortSignal): Promise<QueryAnswer> {
    const q = question.trim();
    if (!q)
      throw AppError.validation([
        { loc: ["body", "question"], msg: "the question is empty", type: "value_error", input: question, ctx: {} },
      ]);
    if (q.length > MAX_QUESTION_CHARS) {
      throw AppError.validation([
        {
          loc: ["body", "question"],
          msg: `the question is longer than ${MAX_QUESTION_CHARS} characters`,
          type: "string_too_long",
          input: q.length,
          ctx: { max_length: MAX_QUESTION_CHARS },
        },
      ]);
    }
    const ctx = await this.context(t);
    let refusal: string | null = null;
    if (this.deps.llm) {
      try {
        const plan = await planWithModel(
          this.deps.llm,
          q,
          await this.schemas(ctx),
          this.deps.graph !== null,
          this.maxRows,
          signal,
        );
        if (plan && "unanswerable" in plan) return unanswered(q, plan.unanswerable, "llm");
        if (plan) return await this.runModelPlan(t, ctx, q, plan);
        refusal = "the model did not return a plan";
      } catch (e) {
        if (signal?.aborted) throw e;
        refusal =
          e instanceof AppError && e.code === "validation" ? (e.issues?.[0]?.msg ?? e.message) : "the model failed";
      }
      this.deps.onModelFallback?.(refusal);
    }
    const plan = planQuestion(q, {
      tables: new Set(ctx.tables),
      companies: ctx.companies,
      graph: this.deps.graph !== null,
      timeseries: ctx.timeseries,
      readModels: Boolean(this.deps.readModels),
    });
    if ("unanswerable" in plan) {
      const why = refusal ? `${plan.unanswerable} (The model's plan was not used: ${refusal}.)` : plan.unanswerable;
      return unanswered(q, why, "rules");
    }
    return this.run(t, ctx, q, plan, "rules");
  }

  /** Runs a plan after validating its statement (throws validation for a refused one). */
  async run(t: TenantRef, ctx: Context, question: string, plan: Plan, planner: "llm" | "rules"): Promise<QueryAnswer> {
    if (plan.source === "lakehouse") return this.runSql(ctx, question, plan.sql, plan.explanation, planner);
    if (plan.source === "graph")
      return this.runCypher(t, question, plan.cypher, plan.params, plan.explanation, planner);
    if (plan.source === "readmodel") return this.runReadModel(t, question, plan.readmodel, plan.explanation, planner);
    if (ctx.timeseries) return this.runMarket(t, question, plan.market, plan.explanation, planner);
    // No real-time table: the same window over the synced lakehouse copy (market_daily).
    return this.runSql(ctx, question, marketSql(plan.market), plan.explanation, planner);
  }

  /** Validates and runs a planned SQL statement in the tenant's namespace. */
  async runSql(
    ctx: Context,
    question: string,
    statement: string,
    explanation: string,
    planner: "llm" | "rules",
  ): Promise<QueryAnswer> {
    const lake = this.deps.lakehouse;
    if (!lake) throw new AppError("unavailable", "No lakehouse is configured");
    const checked = checkSql(statement, ctx.tables, this.maxRows);
    const out = await lake.sql(ctx.namespace, checked.sql);
    const truncated = out.rows.length > this.maxRows;
    return {
      question,
      answered: true,
      source: "lakehouse",
      sql: checked.sql,
      columns: out.columns.map((c) => c.name),
      rows: truncated ? out.rows.slice(0, this.maxRows) : out.rows,
      explanation,
      planner,
      truncated,
    };
  }

  async runCypher(
    t: TenantRef,
    question: string,
    cypher: string,
    params: Record<string, GraphValue>,
    explanation: string,
    planner: "llm" | "rules",
  ): Promise<QueryAnswer> {
    const graph = this.deps.graph;
    if (!graph) throw new AppError("unavailable", "No graph engine is configured");
    const checked = checkCypher(cypher);
    const out = await graph.read(t, checked, params, this.maxRows + 1);
    const truncated = out.rows.length > this.maxRows;
    return {
      question,
      answered: true,
      source: "graph",
      cypher,
      columns: out.columns,
      rows: truncated ? out.rows.slice(0, this.maxRows) : out.rows,
      explanation,
      planner,
      truncated,
    };
  }

  runMarket(
    t: TenantRef,
    question: string,
    m: MarketWindow,
    explanation: string,
    planner: "llm" | "rules",
  ): Promise<QueryAnswer> {
    const rt = this.deps.realtime;
    if (!rt) throw new AppError("unavailable", "No real-time tables are configured");
    return answerMarket(rt, this.maxRows, t, question, m, explanation, planner);
  }

  /**
   * Reads the tenant's read models through their structured port: tables and columns from
   * the fixed catalogue, values bound, the tenant's rows only, at most maxRows + 1 rows.
   * `sql` reports the equivalent statement.
   */
  async runReadModel(
    t: TenantRef,
    question: string,
    ask: ReadModelAsk,
    explanation: string,
    planner: "llm" | "rules",
  ): Promise<QueryAnswer> {
    const rm = this.deps.readModels;
    if (!rm) throw new AppError("unavailable", "No read models are configured");
    const limit = Math.min(this.maxRows + 1, 10_000);
    const done = (sql: string, columns: string[], rows: unknown[][]): QueryAnswer => {
      const truncated = rows.length > this.maxRows;
      return {
        question,
        answered: true,
        source: "readmodel",
        sql,
        columns,
        rows: truncated ? rows.slice(0, this.maxRows) : rows,
        explanation,
        planner,
        truncated,
      };
    };
    const lit = (v: string) => `'${v.replaceAll("'", "''")}'`;
    if (ask.kind === "quote") {
      const out = await rm.select(t, {
        schema: "md",
        table: "latest_quotes",
        columns: ["ticker", "bid", "ask", "mid", "quoted_at"],
        where: [{ column: "ticker", op: "=", value: ask.ticker }],
        limit,
      });
      const sql = `SELECT ticker, bid, ask, mid, quoted_at FROM md.latest_quotes WHERE ticker = ${lit(ask.ticker)}`;
      if (out.rows.length === 0) {
        return unanswered(question, `No quote of ${ask.ticker} in the tenant's market data.`, planner, {
          source: "readmodel",
          sql,
        });
      }
      return done(sql, out.columns, out.rows);
    }
    const portfolios = await rm.select(t, {
      schema: "pm",
      table: "portfolios",
      columns: ["portfolio_id", "name", "kind", "description", "created_at"],
      order_by: [{ column: "name" }],
      limit: 10_000,
    });
    const byId = new Map<ReadModelValue, ReadModelValue[]>(portfolios.rows.map((r) => [r[0] as ReadModelValue, r]));
    if (ask.kind === "portfolios") {
      const rows = portfolios.rows.filter((r) => ask.of === null || r[2] === ask.of).map((r) => r.slice(1));
      const where = ask.of ? ` WHERE kind = ${lit(ask.of)}` : "";
      return done(
        `SELECT name, kind, description, created_at FROM pm.portfolios${where} ORDER BY name`,
        ["name", "kind", "description", "created_at"],
        rows,
      );
    }
    if (ask.kind === "holders") {
      const out = await rm.select(t, {
        schema: "pm",
        table: "holdings",
        columns: ["portfolio_id", "ticker", "quantity", "weight", "cost_basis"],
        where: [{ column: "ticker", op: "=", value: ask.ticker }],
        limit,
      });
      const rows = out.rows
        .map((r) => {
          const p = byId.get(r[0] as ReadModelValue);
          return [p?.[1] ?? null, p?.[2] ?? null, ...r.slice(1)];
        })
        .sort((a, b) => String(a[0]).localeCompare(String(b[0])));
      return done(
        `SELECT p.name, p.kind, h.ticker, h.quantity, h.weight, h.cost_basis FROM pm.holdings h JOIN pm.portfolios p ON p.portfolio_id = h.portfolio_id WHERE h.ticker = ${lit(ask.ticker)} ORDER BY p.name`,
        ["portfolio", "kind", "ticker", "quantity", "weight", "cost_basis"],
        rows,
      );
    }
    const exact = portfolios.rows.filter((r) => String(r[1]).toLowerCase() === ask.name);
    const like = exact.length ? exact : portfolios.rows.filter((r) => String(r[1]).toLowerCase().includes(ask.name));
    if (like.length !== 1) {
      const why = like.length
        ? `More than one portfolio or watchlist matches "${ask.name}": ${like.map((r) => r[1]).join(", ")}. Name one exactly.`
        : `No portfolio or watchlist of the tenant is named like "${ask.name}".`;
      return unanswered(question, why, planner, { source: "readmodel" });
    }
    const p = like[0] as ReadModelValue[];
    const out = await rm.select(t, {
      schema: "pm",
      table: "holdings",
      columns: ["ticker", "quantity", "weight", "cost_basis"],
      where: [{ column: "portfolio_id", op: "=", value: p[0] as ReadModelValue }],
      order_by: [{ column: "position" }],
      limit,
    });
    return done(
      `SELECT ticker, quantity, weight, cost_basis FROM pm.holdings WHERE portfolio_id = ${lit(String(p[0]))} ORDER BY position`,
      out.columns,
      out.rows,
    );
  }

  private async runModelPlan(t: TenantRef, ctx: Context, q: string, plan: Exclude<LlmPlan, { unanswerable: string }>) {
    const why = plan.explanation || "Planned by the language model from the tenant's schema.";
    if (plan.source === "graph") return this.runCypher(t, q, plan.cypher, {}, why, "llm");
    return this.runSql(ctx, q, plan.sql, why, "llm");
  }

  /** The namespace's tables and companies, and whether the real-time bars are there. */
  async context(t: TenantRef): Promise<Context> {
    const namespace = lakehouseNamespace(t.slug);
    let tables: string[] = [];
    let companies: KnownCompany[] = [];
    const lake = this.deps.lakehouse;
    if (lake) {
      try {
        tables = (await lake.listTables(namespace)).map((x) => x.toLowerCase());
      } catch (e) {
        if (!(e instanceof AppError && e.code === "not_found")) throw e;
      }
      if (tables.includes("companies")) {
        const out = await lake.sql(namespace, "SELECT cik, ticker, name, sector, industry FROM companies LIMIT 10000");
        companies = out.rows.map((r) => ({
          cik: String(r[0]),
          ticker: r[1] === null ? null : String(r[1]),
          name: String(r[2] ?? ""),
          sector: r[3] === null ? null : String(r[3]),
          industry: r[4] === null ? null : String(r[4]),
        }));
      }
    }
    let timeseries = false;
    const rt = this.deps.realtime;
    if (rt) {
      try {
        timeseries = (await rt.tables.ready(t)) && (await rt.tables.get(t, MARKET_TABLE)) !== null;
      } catch {
        timeseries = false;
      }
    }
    return { namespace, tables, companies, timeseries };
  }

  private async schemas(ctx: Context): Promise<TableSchema[]> {
    const lake = this.deps.lakehouse;
    if (!lake) return [];
    const out: TableSchema[] = [];
    for (const name of ctx.tables) {
      const cols = await lake.tableSchema(ctx.namespace, name);
      out.push({ name, columns: cols.map((c) => ({ name: c.name, type: c.type })) });
    }
    return out;
  }
}
