/**
 * The /v1/rtdb endpoints (spec 2.9, 4.8) through the whole service on both time-series
 * engines: the embedded DuckDB file, and QuestDB when CAIRN_QUESTDB_URL is set for the
 * service (the cluster wiring in main.ts). The bodies must be byte-for-byte the same.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ensureUser } from "../../cli/demo-seed.ts";
import { realtimeEngine } from "../../composition/engines.ts";
import { ConfigError, loadConfig } from "../../config.ts";
import type { RealtimeTablesPort } from "../../domain/rtdb/index.ts";
import type { TenantRef } from "../../domain/tenants/namespaces.ts";
import { signUserToken } from "../../http/auth/jwt.ts";
import { TIERING_NOTE } from "../../http/routes/rtdb/storage-routes.ts";
import { MAX_UNCOMMITTED_ROWS, O3_MAX_LAG_US } from "../../http/routes/rtdb/tables-routes.ts";
import { engineUrl } from "../engines.ts";
import { startTestService, type TestService } from "../harness.ts";
import { waitFor } from "../wait.ts";
import { TRADES, TRADES_DDL } from "./rtdb.contract.ts";

function runRoutes(engine: string, env: Record<string, string>): void {
  describe(`/v1/rtdb on ${engine}`, () => {
    let svc: TestService;
    let token: string;
    let otherToken: string;
    let me: TenantRef;
    let other: TenantRef;
    let port: RealtimeTablesPort;

    const auth = (t: string) => ({ authorization: `Bearer ${t}` });
    const post = (t: string, sql: string) =>
      svc.request("/v1/rtdb/tables", {
        method: "POST",
        headers: { ...auth(t), "content-type": "application/json" },
        body: JSON.stringify({ sql }),
      });
    const get = (t: string, path: string) => svc.request(path, { headers: auth(t) });

    beforeAll(async () => {
      svc = await startTestService(env);
      port = realtimeEngine(svc.service.engines.timeseries) as RealtimeTablesPort;
      const { store, secrets, config } = svc.service;
      const mine = await store.getTenant(svc.tenantId);
      me = { tenantId: svc.tenantId, slug: mine!.slug };
      await svc.service.engines.timeseries.ensureNamespace(me);
      token = await svc.token("rt@example.com", "enterprise");
      const o = await store.createTenant({
        slug: `rt-${crypto.randomUUID().slice(0, 8)}`,
        display_name: "Other",
        tier: "enterprise",
        region: "local",
        provisioning_state: "active",
        is_active: true,
      });
      other = { tenantId: o.tenant_id, slug: o.slug };
      await svc.service.engines.timeseries.ensureNamespace(other);
      const u = await ensureUser(store, o.tenant_id, "other@example.com", "enterprise");
      otherToken = await signUserToken(
        { secret: secrets.jwtSecret, issuer: config.jwt.issuer, audience: config.jwt.audience, ttlSeconds: 600 },
        { userId: u.id, email: u.email, tenantId: u.tenant_id },
      );
    });
    afterAll(async () => {
      for (const t of [me, other]) await svc.service.engines.timeseries.dropNamespace(t).catch(() => {});
      await svc.close();
    });

    test("the service runs the expected engine", () => {
      expect(svc.service.engines.timeseries.constructor.name).toBe(
        env.CAIRN_QUESTDB_URL ? "QuestDbTimeSeries" : "DuckDbTimeSeries",
      );
    });

    test("POST creates (exactly {ok, result: {ddl}}); a duplicate is 409; IF NOT EXISTS is 200", async () => {
      const res = await post(token, TRADES);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ ok: true, result: { ddl: TRADES_DDL } });
      const dup = await post(token, TRADES.replace("trades", "TRADES"));
      expect(dup.status).toBe(409);
      expect(await dup.json()).toEqual({ detail: "table 'trades' already exists" });
      const again = await post(
        token,
        "CREATE TABLE IF NOT EXISTS trades (ts TIMESTAMP) TIMESTAMP(ts) PARTITION BY HOUR WAL",
      );
      expect(again.status).toBe(200);
      expect(await again.json()).toEqual({ ok: true, result: { ddl: TRADES_DDL } });
      expect((await post(token, "CREATE TABLE t (ts TIMESTAMP) TIMESTAMP(ts) WAL")).status).toBe(422);
    });

    test("refused DDL is 422 with the section 7 body pointing at the token", async () => {
      const sql = "CREATE TABLE t (ts TIMESTAMP) TIMESTAMP(ts) WAL";
      const res = await post(token, sql);
      expect(res.status).toBe(422);
      expect(await res.json()).toEqual({
        detail: [
          {
            loc: ["body", "sql"],
            msg: "expected PARTITION BY at position 44, found 'WAL'",
            type: "ddl_invalid",
            input: sql,
            ctx: { position: 44, token: "WAL" },
          },
        ],
      });
      const drop = await post(token, "DROP TABLE trades");
      expect(drop.status).toBe(422);
      const missing = await svc.request("/v1/rtdb/tables", {
        method: "POST",
        headers: { ...auth(token), "content-type": "application/json" },
        body: "{}",
      });
      expect(missing.status).toBe(422);
      expect(((await missing.json()) as { detail: { loc: string[] }[] }).detail[0]?.loc).toEqual(["body", "sql"]);
    });

    test("reserved names are refused", async () => {
      const res = await post(token, "CREATE TABLE _rtdb_tables (ts TIMESTAMP) TIMESTAMP(ts) PARTITION BY DAY WAL");
      expect(res.status).toBe(422);
    });

    test("POST needs a JWT", async () => {
      const res = await svc.request("/v1/rtdb/tables", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ sql: TRADES }),
      });
      expect(res.status).toBe(401);
    });

    test("GET /v1/rtdb/tables: rows in 2.9 column order, the caller's tables only", async () => {
      expect(
        (await post(otherToken, "CREATE TABLE quotes (bid DOUBLE, ts TIMESTAMP) TIMESTAMP(ts) PARTITION BY HOUR WAL"))
          .status,
      ).toBe(200);
      expect(
        (await post(token, "CREATE TABLE bars (close DOUBLE, ts TIMESTAMP) TIMESTAMP(ts) PARTITION BY MONTH WAL"))
          .status,
      ).toBe(200);
      const res = await get(token, "/v1/rtdb/tables");
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({
        tables: [
          ["trades", 1, "DAY", MAX_UNCOMMITTED_ROWS, O3_MAX_LAG_US, true, "trades~1"],
          ["bars", 2, "MONTH", MAX_UNCOMMITTED_ROWS, O3_MAX_LAG_US, true, "bars~2"],
        ],
        columns: [
          { name: "tableName" },
          { name: "id" },
          { name: "partitionBy" },
          { name: "maxUncommittedRows" },
          { name: "o3MaxLag" },
          { name: "walEnabled" },
          { name: "directoryName" },
        ],
      });
      expect(((await (await get(otherToken, "/v1/rtdb/tables")).json()) as { tables: unknown[] }).tables).toEqual([
        ["quotes", 1, "HOUR", 500_000, 600_000_000, true, "quotes~1"],
      ]);
    });

    test("GET .../schema: table_columns() rows; another tenant's table is 404", async () => {
      const res = await get(token, "/v1/rtdb/tables/Trades/schema");
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({
        table: "trades",
        columns: [
          ["symbol", "SYMBOL", true, 256, false, 512, false],
          ["side", "SYMBOL", false, 0, true, 256, false],
          ["note", "STRING", false, 0, false, 0, false],
          ["price", "DOUBLE", false, 0, false, 0, false],
          ["amount", "LONG", false, 0, false, 0, false],
          ["ts", "TIMESTAMP", false, 0, false, 0, true],
        ],
        schema: [
          { name: "columnName" },
          { name: "type" },
          { name: "indexed" },
          { name: "indexBlockCapacity" },
          { name: "symbolCached" },
          { name: "symbolCapacity" },
          { name: "designated" },
        ],
      });
      expect((await get(token, "/v1/rtdb/tables/quotes/schema")).status).toBe(404);
      expect((await get(otherToken, "/v1/rtdb/tables/trades/schema")).status).toBe(404);
      expect((await get(token, "/v1/rtdb/tables/nope/schema")).status).toBe(404);
    });

    test("GET /v1/rtdb/storage after ingestion: [name, rows, estimated bytes, partitions]", async () => {
      await port.ingest(me, "trades", [
        { symbol: "AAPL", side: "buy", note: "ab", price: 1.5, amount: 10, ts: "2026-01-01T10:00:00Z" },
        { symbol: "AAPL", side: "sell", price: 1.6, amount: 11, ts: "2026-01-01T11:00:00Z" },
        { symbol: "MSFT", side: "buy", note: "cde", price: 2.5, amount: 12, ts: "2026-01-02T09:00:00Z" },
      ]);
      const res = await get(token, "/v1/rtdb/storage");
      expect(res.status).toBe(200);
      const body = (await res.json()) as Record<string, unknown>;
      expect(Object.keys(body)).toEqual(["allocated_gb", "used_bytes", "used_gb", "tables", "tiering_note"]);
      expect(body.tables).toEqual([
        ["trades", 3, 101, 2],
        ["bars", 0, 0, 0],
      ]);
      expect(body.used_bytes).toBe(101);
      // The metadata table is not a tenant record: 2 tables + 3 rows.
      const engine = svc.service.engines.timeseries as unknown as { countRecords(t: TenantRef): Promise<number> };
      expect(await engine.countRecords(me)).toBe(5);
      expect(body.used_gb).toBe(0);
      expect(typeof body.allocated_gb).toBe("number");
      expect(body.allocated_gb as number).toBeGreaterThanOrEqual(0);
      expect(String(body.tiering_note)).toStartWith(TIERING_NOTE);
      expect(body.tiering_note).toContain("Nothing is tiered yet");
      const theirs = (await (await get(otherToken, "/v1/rtdb/storage")).json()) as { tables: unknown[] };
      expect(theirs.tables).toEqual([["quotes", 0, 0, 0]]);
    });

    test("a tenant provisioned through the admin API gets its namespace on this engine and can create tables", async () => {
      const { store, secrets, config } = svc.service;
      const admin = { "x-api-key": secrets.adminApiKey, "content-type": "application/json" };
      const slug = `prov-${crypto.randomUUID().slice(0, 8)}`;
      const created = await svc.request("/v1/admin/tenants", {
        method: "POST",
        headers: admin,
        body: JSON.stringify({ slug, display_name: "Provisioned", tier: "enterprise", region: "local" }),
      });
      expect(created.status).toBe(202);
      const status = async () =>
        (await (await svc.request(`/v1/admin/tenants/${slug}/status`, { headers: admin })).json()) as {
          provisioning_state: string;
          tenant_id: string;
          last_error: string | null;
        };
      await waitFor("provisioning to settle", async () => (await status()).provisioning_state !== "provisioning", {
        timeoutMs: 60_000,
        everyMs: 50,
      });
      const s = await status();
      expect(s).toMatchObject({ provisioning_state: "active", last_error: null });
      const ref = { tenantId: s.tenant_id, slug };
      try {
        expect(await svc.service.engines.timeseries.namespaceExists(ref)).toBe(true);
        // The smoke test of step 9 left nothing behind.
        expect(await port.storage(ref)).toMatchObject({ tables: [] });
        const u = await ensureUser(store, s.tenant_id, "owner@prov.example", "enterprise");
        const jwt = await signUserToken(
          { secret: secrets.jwtSecret, issuer: config.jwt.issuer, audience: config.jwt.audience, ttlSeconds: 600 },
          { userId: u.id, email: u.email, tenantId: u.tenant_id },
        );
        expect((await post(jwt, TRADES)).status).toBe(200);
        expect(((await (await get(jwt, "/v1/rtdb/tables")).json()) as { tables: unknown[][] }).tables).toEqual([
          ["trades", 1, "DAY", 500_000, 600_000_000, true, "trades~1"],
        ]);
      } finally {
        await svc.service.engines.timeseries.dropNamespace(ref);
      }
    }, 90_000);

    test("a tenant whose namespace is gone gets 503", async () => {
      await svc.service.engines.timeseries.dropNamespace(other);
      expect((await get(otherToken, "/v1/rtdb/tables")).status).toBe(503);
      expect((await post(otherToken, TRADES)).status).toBe(503);
    });
  });
}

test("CAIRN_QUESTDB_URL: an http(s) URL selects QuestDB; anything else stops start-up", () => {
  expect(loadConfig({}).questdb).toBeNull();
  expect(loadConfig({ CAIRN_QUESTDB_URL: "http://qdb:9000" }).questdb).toEqual({ url: "http://qdb:9000" });
  expect(() => loadConfig({ CAIRN_QUESTDB_URL: "qdb:9000" })).toThrow(ConfigError);
});

runRoutes("the embedded engine (DuckDB)", {});
const questdb = engineUrl("questdb");
if (questdb) runRoutes("QuestDB", { CAIRN_QUESTDB_URL: questdb });
