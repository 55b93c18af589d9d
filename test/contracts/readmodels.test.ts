/**
 * The read-model store (adapters/controlplane/readmodel-store.ts) on SQLite (ci/dm/pm/md as
 * attached files, as composition/engines.ts opens the control plane) and on Postgres
 * (schemas): migrations, tenant-filtered structured reads, whole-table replacement, the
 * pm.* portfolios, and the lakehouse sync's view of the tables.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sourceSchemaAttachments } from "../../adapters/controlplane/lakehouse-migrations.ts";
import { READMODEL_MIGRATIONS } from "../../adapters/controlplane/readmodel-migrations.ts";
import { SqlReadModelStore } from "../../adapters/controlplane/readmodel-store.ts";
import { migrate, PostgresClient, SqliteClient } from "../../adapters/sql/index.ts";
import { AppError } from "../../domain/errors.ts";
import { READ_MODEL_TABLES } from "../../domain/foundry/readmodels/catalogue.ts";
import type { SqlClient } from "../../domain/ports.ts";
import { describeSourceTable } from "../../pipelines/lakehouse/sync/source.ts";
import { engineUrl, freshPostgresDatabase } from "../engines.ts";

const A = { tenantId: "tenant-a", slug: "a" };
const B = { tenantId: "tenant-b", slug: "b" };

async function validation(p: Promise<unknown>): Promise<{ loc: string[] }[]> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe("validation");
    return (err as AppError).issues ?? [];
  }
  throw new Error("expected a validation error");
}

function runReadModelContract(name: string, open: () => Promise<{ sql: SqlClient; cleanup: () => Promise<void> }>) {
  describe(`read models: ${name}`, () => {
    let sql: SqlClient;
    let cleanup: () => Promise<void>;
    let store: SqlReadModelStore;

    beforeAll(async () => {
      ({ sql, cleanup } = await open());
      await migrate(sql, READMODEL_MIGRATIONS);
      expect(await migrate(sql, READMODEL_MIGRATIONS)).toEqual([]);
      store = new SqlReadModelStore(sql);
    });
    afterAll(async () => {
      await sql.close();
      await cleanup();
    });

    test("every catalogue table exists with its columns, as the lakehouse sync describes it", async () => {
      for (const t of READ_MODEL_TABLES) {
        const cols = await describeSourceTable(sql, t.schema, t.table);
        expect(cols?.map((c) => c.name)).toEqual(t.columns.map((c) => c.name));
        if (t.scope === "tenant") expect(cols?.[0]).toEqual({ name: "tenant_id", type: "string", nullable: false });
        else expect(cols?.some((c) => c.name === "tenant_id")).toBe(false);
      }
      const bars = await describeSourceTable(sql, "md", "daily_bars");
      expect(bars?.find((c) => c.name === "volume")?.type).toBe("long");
      expect(bars?.find((c) => c.name === "close")?.type).toBe("double");
      expect(bars?.find((c) => c.name === "date")?.type).toBe("string");
    });

    test("tenant rows are replaced per tenant and read only by their tenant", async () => {
      const bar = (ticker: string, date: string, close: number) => [
        ticker,
        null,
        date,
        1,
        2,
        0.5,
        close,
        close,
        9_007_199_254_740_993n,
      ];
      expect(
        await store.replace("md", "daily_bars", A.tenantId, [
          bar("NVDA", "2020-01-02", 10),
          bar("NVDA", "2020-01-03", 11),
        ]),
      ).toBe(2);
      await store.replace("md", "daily_bars", B.tenantId, [bar("ORCL", "2020-01-02", 50)]);
      const a = await store.select(A, { schema: "md", table: "daily_bars", order_by: [{ column: "date" }] });
      expect(a.columns).toEqual(["ticker", "cik", "date", "open", "high", "low", "close", "adj_close", "volume"]);
      expect(a.rows.map((r) => [r[0], r[2], r[6]])).toEqual([
        ["NVDA", "2020-01-02", 10],
        ["NVDA", "2020-01-03", 11],
      ]);
      // Past 2^53 the volume stays exact, as text.
      expect(a.rows[0]?.[8]).toBe("9007199254740993");
      const b = await store.select(B, { schema: "md", table: "daily_bars" });
      expect(b.rows.map((r) => r[0])).toEqual(["ORCL"]);
      // B asking for A's ticker gets nothing.
      const probe = await store.select(B, {
        schema: "md",
        table: "daily_bars",
        where: [{ column: "ticker", op: "=", value: "NVDA" }],
      });
      expect(probe.rows).toEqual([]);
      // A second refresh replaces A's rows whole and leaves B's alone.
      await store.replace("md", "daily_bars", A.tenantId, [bar("NVDA", "2020-01-06", 12)]);
      expect((await store.select(A, { schema: "md", table: "daily_bars" })).rows.map((r) => r[2])).toEqual([
        "2020-01-06",
      ]);
      expect((await store.counts(B))["md.daily_bars"]).toBe(1);
      expect((await store.counts(A))["md.daily_bars"]).toBe(1);
    });

    test("public tables are read whole by every tenant; booleans and numbers come back typed", async () => {
      const cols = READ_MODEL_TABLES.find((t) => t.table === "ratios")?.columns ?? [];
      const row = (cik: string, year: number, trailing: boolean) =>
        cols.map((c) =>
          c.name === "cik"
            ? cik
            : c.name === "fiscal_year"
              ? year
              : c.name === "fiscal_period"
                ? "FY"
                : c.name === "market_cap_is_trailing"
                  ? trailing
                  : c.name === "gross_margin"
                    ? 0.25
                    : null,
        );
      await store.replace("ci", "ratios", null, [row("0000320193", 2023, true), row("0001045810", 2024, false)]);
      for (const t of [A, B]) {
        const r = await store.select(t, {
          schema: "ci",
          table: "ratios",
          columns: ["cik", "fiscal_year", "market_cap_is_trailing", "gross_margin"],
          where: [{ column: "fiscal_year", op: ">=", value: 2023 }],
          order_by: [{ column: "cik", direction: "desc" }],
          limit: 5,
        });
        expect(r.rows).toEqual([
          ["0001045810", 2024, false, 0.25],
          ["0000320193", 2023, true, 0.25],
        ]);
      }
      const inList = await store.select(A, {
        schema: "ci",
        table: "ratios",
        columns: ["cik"],
        where: [{ column: "cik", op: "in", value: ["0000320193", "x"] }],
      });
      expect(inList.rows).toEqual([["0000320193"]]);
      await expect(store.replace("ci", "ratios", A.tenantId, [])).rejects.toThrow("scope");
    });

    test("identifiers come only from the catalogue; tenant_id cannot be chosen", async () => {
      let issues = await validation(
        store.select(A, { schema: "md", table: "daily_bars", columns: ['ticker" FROM x --'] }),
      );
      expect(issues[0]?.loc).toEqual(["body", "columns", "0"]);
      issues = await validation(
        store.select(A, {
          schema: "md",
          table: "daily_bars",
          where: [{ column: "tenant_id", op: "=", value: B.tenantId }],
        }),
      );
      expect(issues[0]?.loc).toEqual(["body", "where", "0", "column"]);
      await validation(store.select(A, { schema: "md", table: "sqlite_master" }));
      await validation(store.select(A, { schema: "public" as "ci", table: "tenants" }));
      await validation(store.select(A, { schema: "md", table: "daily_bars", limit: 0 }));
      await validation(
        store.select(A, {
          schema: "md",
          table: "daily_bars",
          where: [{ column: "ticker", op: "; DROP" as "=", value: 1 }],
        }),
      );
      const star = await store.select(A, { schema: "pm", table: "holdings" });
      expect(star.columns).not.toContain("tenant_id");
    });

    test("portfolios: create, read, replace holdings, delete, per tenant", async () => {
      const at = "2026-01-01T00:00:00.000Z";
      const p = await store.createPortfolio({
        id: crypto.randomUUID(),
        tenantId: A.tenantId,
        name: "Core",
        kind: "portfolio",
        description: "d",
        createdBy: "7",
        at,
        holdings: [
          { ticker: "NVDA", cik: "0001045810", quantity: 10, weight: 0.6, cost_basis: 120.5 },
          { ticker: "AAPL", cik: null, quantity: null, weight: 0.4, cost_basis: null },
        ],
      });
      expect(p.holdings.map((h) => h.ticker)).toEqual(["NVDA", "AAPL"]);
      expect(p.holdings[0]).toEqual({
        ticker: "NVDA",
        cik: "0001045810",
        quantity: 10,
        weight: 0.6,
        cost_basis: 120.5,
      });
      await expect(
        store.createPortfolio({
          id: crypto.randomUUID(),
          tenantId: A.tenantId,
          name: "Core",
          kind: "watchlist",
          description: "",
          createdBy: "7",
          at,
          holdings: [],
        }),
      ).rejects.toMatchObject({ code: "conflict" });
      // Another tenant may use the same name, and sees none of A's.
      await store.createPortfolio({
        id: crypto.randomUUID(),
        tenantId: B.tenantId,
        name: "Core",
        kind: "watchlist",
        description: "",
        createdBy: "9",
        at,
        holdings: [],
      });
      expect(await store.getPortfolio(B.tenantId, p.id)).toBeNull();
      expect(await store.replaceHoldings(B.tenantId, p.id, [], at)).toBeNull();
      expect(await store.deletePortfolio(B.tenantId, p.id)).toBe(false);
      expect((await store.listPortfolios(B.tenantId)).map((x) => x.kind)).toEqual(["watchlist"]);
      const holdings = await store.select(B, { schema: "pm", table: "holdings" });
      expect(holdings.rows).toEqual([]);

      const later = "2026-01-02T00:00:00.000Z";
      const q = await store.replaceHoldings(
        A.tenantId,
        p.id,
        [{ ticker: "MSFT", cik: null, quantity: 3, weight: null, cost_basis: null }],
        later,
      );
      expect(q?.holdings.map((h) => h.ticker)).toEqual(["MSFT"]);
      expect(q?.updated_at).toBe(later);
      const viaPort = await store.select(A, { schema: "pm", table: "holdings", columns: ["ticker", "quantity"] });
      expect(viaPort.rows).toEqual([["MSFT", 3]]);
      expect(await store.deletePortfolio(A.tenantId, p.id)).toBe(true);
      expect(await store.getPortfolio(A.tenantId, p.id)).toBeNull();
      expect((await store.counts(A))["pm.holdings"]).toBe(0);
    });

    test("the refresh log keeps one entry per table and tenant", async () => {
      await store.markRefreshed("md.daily_bars", A.tenantId, 3, "2026-01-01T00:00:00.000Z");
      await store.markRefreshed("md.daily_bars", A.tenantId, 4, "2026-01-02T00:00:00.000Z");
      await store.markRefreshed("ci.companies", null, 7, "2026-01-03T00:00:00.000Z");
      expect(await store.refreshedAt("md.daily_bars", A.tenantId)).toEqual({ at: "2026-01-02T00:00:00.000Z", rows: 4 });
      expect(await store.refreshedAt("md.daily_bars", B.tenantId)).toBeNull();
      expect(await store.refreshedAt("ci.companies", null)).toEqual({ at: "2026-01-03T00:00:00.000Z", rows: 7 });
    });
  });
}

runReadModelContract("sqlite (attached schema files)", async () => {
  const dir = mkdtempSync(join(tmpdir(), "cairn-rm-"));
  const sql = new SqliteClient(join(dir, "cp.sqlite"), { attach: sourceSchemaAttachments(dir) });
  return { sql, cleanup: async () => rmSync(dir, { recursive: true, force: true }) };
});

const pg = engineUrl("postgres");
if (pg) {
  runReadModelContract("postgres (schemas)", async () => {
    const db = await freshPostgresDatabase(pg);
    return { sql: new PostgresClient(db.url), cleanup: db.drop };
  });
}
