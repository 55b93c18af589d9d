import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { DuckDbTimeSeries } from "../../../adapters/rtdb/index.ts";
import { ensureUser } from "../../../cli/demo-seed.ts";
import { TRADES, TRADES_DDL } from "../../../test/contracts/rtdb.contract.ts";
import { startTestService, type TestService } from "../../../test/harness.ts";
import { signUserToken } from "../../auth/jwt.ts";
import { MAX_UNCOMMITTED_ROWS, O3_MAX_LAG_US, TIERING_NOTE } from "./routes.ts";

let svc: TestService;
let token: string;
let otherToken: string;
let ts: DuckDbTimeSeries;
let otherTenant: { tenantId: string; slug: string };

const auth = (t: string) => ({ authorization: `Bearer ${t}` });
const post = (t: string, sql: string) =>
  svc.request("/v1/rtdb/tables", {
    method: "POST",
    headers: { ...auth(t), "content-type": "application/json" },
    body: JSON.stringify({ sql }),
  });
const get = (t: string, path: string) => svc.request(path, { headers: auth(t) });

beforeAll(async () => {
  svc = await startTestService();
  ts = svc.service.engines.timeseries as DuckDbTimeSeries;
  const tenant = await svc.service.deps.store.getTenant(svc.tenantId);
  await ts.ensureNamespace({ tenantId: svc.tenantId, slug: tenant!.slug });
  token = await svc.token("rt@example.com", "enterprise");

  // A second active tenant in the same service and the same DuckDB file.
  const { store, secrets, config } = svc.service.deps;
  const other = await store.createTenant({
    slug: `rt-${crypto.randomUUID().slice(0, 8)}`,
    display_name: "Other",
    tier: "enterprise",
    region: "local",
    provisioning_state: "active",
    is_active: true,
  });
  otherTenant = { tenantId: other.tenant_id, slug: other.slug };
  await ts.ensureNamespace(otherTenant);
  const u = await ensureUser(store, other.tenant_id, "other@example.com", "enterprise");
  otherToken = await signUserToken(
    { secret: secrets.jwtSecret, issuer: config.jwt.issuer, audience: config.jwt.audience, ttlSeconds: 600 },
    { userId: u.id, email: u.email, tenantId: u.tenant_id },
  );
});
afterAll(() => svc.close());

describe("POST /v1/rtdb/tables", () => {
  test("creates the table and answers exactly {ok, result: {ddl}} with the normalised DDL", async () => {
    const res = await post(token, TRADES);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true, result: { ddl: TRADES_DDL } });
  });

  test("a duplicate is 409; with IF NOT EXISTS it is 200 with the existing DDL", async () => {
    const dup = await post(token, TRADES.replace("trades", "TRADES"));
    expect(dup.status).toBe(409);
    expect(await dup.json()).toEqual({ detail: "table 'trades' already exists" });
    const again = await post(
      token,
      "CREATE TABLE IF NOT EXISTS trades (ts TIMESTAMP) TIMESTAMP(ts) PARTITION BY HOUR WAL",
    );
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual({ ok: true, result: { ddl: TRADES_DDL } });
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

  test("needs a JWT", async () => {
    const res = await svc.request("/v1/rtdb/tables", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ sql: TRADES }),
    });
    expect(res.status).toBe(401);
  });
});

describe("metadata endpoints", () => {
  test("GET /v1/rtdb/tables lists rows in QuestDB tables() column order, tenant-scoped", async () => {
    expect(
      (await post(otherToken, "CREATE TABLE quotes (bid DOUBLE, ts TIMESTAMP) TIMESTAMP(ts) PARTITION BY HOUR WAL"))
        .status,
    ).toBe(200);
    const res = await get(token, "/v1/rtdb/tables");
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      tables: [["trades", 1, "DAY", MAX_UNCOMMITTED_ROWS, O3_MAX_LAG_US, true, "trades~1"]],
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
    const other = (await (await get(otherToken, "/v1/rtdb/tables")).json()) as { tables: unknown[][] };
    expect(other.tables).toEqual([["quotes", 1, "HOUR", 500_000, 600_000_000, true, "quotes~1"]]);
  });

  test("GET /v1/rtdb/tables/{table}/schema answers QuestDB table_columns() rows; other tenants' tables are 404", async () => {
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

  test("GET /v1/rtdb/storage: [name, rows, estimated bytes, partitions] per table", async () => {
    // Rows written straight into the tenant's DuckDB schema (ingestion is not in this slice).
    const ns = ts.namespaceOf({ tenantId: svc.tenantId, slug: "x" });
    await ts.realtime.create(
      { tenantId: svc.tenantId, slug: "x" },
      {
        name: "empty",
        ifNotExists: false,
        columns: [{ name: "ts", type: "TIMESTAMP" }],
        designated: "ts",
        partitionBy: "DAY",
        wal: true,
      },
      "CREATE TABLE empty (ts TIMESTAMP) TIMESTAMP(ts) PARTITION BY DAY WAL",
    );
    await insertTrades(ns);
    const res = await get(token, "/v1/rtdb/storage");
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, unknown>;
    expect(Object.keys(body)).toEqual(["allocated_gb", "used_bytes", "used_gb", "tables", "tiering_note"]);
    // trades: 3 rows x (4 + 4 + 8 + 8 + 8) fixed bytes + "ab" + "cde" = 96 + 5.
    expect(body.tables).toEqual([
      ["trades", 3, 101, 2],
      ["empty", 0, 0, 0],
    ]);
    expect(body.used_bytes).toBe(101);
    // The metadata table is not a tenant record: 2 tables + 3 rows.
    expect(await ts.countRecords({ tenantId: svc.tenantId, slug: "x" })).toBe(5);
    expect(body.used_gb).toBe(0);
    expect(typeof body.allocated_gb).toBe("number");
    expect(body.allocated_gb as number).toBeGreaterThanOrEqual(0);
    expect(body.tiering_note).toStartWith(TIERING_NOTE);
    expect(body.tiering_note).toContain("Nothing is tiered yet");
    const other = (await (await get(otherToken, "/v1/rtdb/storage")).json()) as { tables: unknown[] };
    expect(other.tables).toEqual([["quotes", 0, 0, 0]]);
  });

  test("a tenant without a provisioned namespace gets 503", async () => {
    await ts.dropNamespace(otherTenant);
    expect((await get(otherToken, "/v1/rtdb/tables")).status).toBe(503);
    expect((await post(otherToken, TRADES)).status).toBe(503);
  });
});

async function insertTrades(ns: string): Promise<void> {
  // The adapter owns the only connection; reach it through its exclusive section.
  const run = (
    ts as unknown as { exclusive<T>(fn: (c: { run(sql: string): Promise<unknown> }) => Promise<T>): Promise<T> }
  ).exclusive.bind(ts);
  await run((conn) =>
    conn.run(
      `INSERT INTO "${ns}"."trades" VALUES
         ('AAPL', 'buy', 'ab', 1.5, 10, '2026-01-01 10:00:00'),
         ('AAPL', 'sell', NULL, 1.6, 11, '2026-01-01 11:00:00'),
         ('MSFT', 'buy', 'cde', 2.5, 12, '2026-01-02 09:00:00')`,
    ),
  );
}
