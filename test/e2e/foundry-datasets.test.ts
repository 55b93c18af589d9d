/**
 * Foundry datasets end to end on the embedded profile (spec 2.6, 3.2, 4.9): the real lab
 * gateway (PyIceberg + DuckDB), real SEC company tickers and real market prices as lakehouse
 * tables, real daily bars in the tenant's real-time tables. Create (draft) -> build
 * (building, generated Spark SQL) -> ready with the right rows; preview, lineage, rebuild,
 * validation and injection refused with 422, and a second tenant sees nothing of the first.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { FoundryLabClient } from "../../adapters/lakehouse/foundry-client.ts";
import { GatewayLakehouse } from "../../adapters/lakehouse/gateway-client.ts";
import { realtimeEngine } from "../../composition/engines.ts";
import { checkReadQuery } from "../../domain/foundry/graph/cypher.ts";
import type { GraphPort } from "../../domain/foundry/graph/ports.ts";
import type { LakehousePort } from "../../domain/lakehouse/ports.ts";
import { lakehouseNamespace, type TenantRef } from "../../domain/tenants/namespaces.ts";
import { makeBuildHandler } from "../../pipelines/foundry/build/job.ts";
import { loadCompanyGraph } from "../../pipelines/foundry/graph/load.ts";
import { ingestMarketDirectory, parseMarketCsv } from "../../pipelines/rtdb/market-ingest.ts";
import { COMPANY_COLUMNS, companyTickers, MONTHLY_COLUMNS, monthlyPrices } from "../fixtures/foundry-data.ts";
import { startTestService, type TestService } from "../harness.ts";
import { type GatewayHandle, startGateway } from "../lakehouse.ts";
import { sharedData } from "../shared-data.ts";
import { waitFor } from "../wait.ts";

const secDir = sharedData("sec", "foundry datasets");
const dailyDir = sharedData("market/daily", "foundry datasets");
const graphDir = sharedData("graph", "foundry datasets");
let gateway: GatewayHandle | undefined;
let svc: TestService;
let a: TenantRef;
let headers: Record<string, string>;

const TICKERS = ["NVDA", "ORCL", "YHOO", "MSFT", "AAPL"];

const post = (path: string, body: unknown, h = headers) =>
  svc.request(path, {
    method: "POST",
    headers: { ...h, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
const get = (path: string, h = headers) => svc.request(path, { headers: h });
const list = async (h = headers) =>
  ((await (await get("/v1/foundry/datasets", h)).json()) as { datasets: Record<string, unknown>[] }).datasets;
async function settled(id: string): Promise<Record<string, unknown>> {
  let found: Record<string, unknown> | undefined;
  await waitFor(
    `dataset ${id} to settle`,
    async () => {
      found = (await list()).find((d) => d.id === id);
      return found?.status === "ready" || found?.status === "error";
    },
    { timeoutMs: 60_000, everyMs: 100 },
  );
  return found as Record<string, unknown>;
}

const SPEC = {
  name: "Company prices 2005+",
  description: "monthly prices of a few companies, with their average daily close",
  source_tables: [
    { table: "companies", alias: "c", columns: ["cik", "ticker", "name"] },
    { table: "prices_monthly", alias: "p", columns: ["month", "price"] },
  ],
  joins: [{ left_table: "c", right_table: "p", left_col: "ticker", right_col: "ticker" }],
  filters: [
    { column: "c.ticker", op: "in", value: TICKERS.join(",") },
    { column: "p.month", op: ">=", value: "2005-01-01" },
  ],
  graph_features: [
    {
      label: "Company",
      cypher_fragment: "OPTIONAL MATCH (s:Company)-[:SUBSIDIARY_OF]->(e) RETURN count(s)",
      output_column: "subsidiaries",
    },
  ],
  realtime_cols: [{ realtime_table: "market_bars_daily", column: "close", agg: "avg", window: "3660d" }],
};

beforeAll(async () => {
  if (!secDir || !dailyDir || !graphDir) return;
  gateway = await startGateway();
  if (!gateway) return;
  svc = await startTestService({ CAIRN_LAKEHOUSE_URL: gateway.url });
  const tenant = await svc.service.store.getTenant(svc.tenantId);
  a = { tenantId: svc.tenantId, slug: tenant?.slug as string };
  const lake = svc.service.engines.lakehouse as LakehousePort;
  const ns = await lake.ensureNamespace(a);
  await lake.write(ns, "companies", {
    mode: "overwrite",
    columns: COMPANY_COLUMNS,
    rows: companyTickers(secDir as string),
  });
  await lake.write(ns, "prices_monthly", {
    mode: "overwrite",
    columns: MONTHLY_COLUMNS,
    rows: monthlyPrices(dailyDir as string),
  });
  await svc.service.engines.timeseries.ensureNamespace(a);
  await svc.service.engines.graph.ensureNamespace(a);
  await loadCompanyGraph(svc.service.engines.graph as unknown as GraphPort, a, graphDir as string);
  const rt = realtimeEngine(svc.service.engines.timeseries);
  if (!rt) throw new Error("the embedded time-series engine should have real-time tables");
  await ingestMarketDirectory(rt, a, dailyDir);
  headers = { authorization: `Bearer ${await svc.token("analyst@foundry.test", "enterprise")}` };
}, 180_000);

afterAll(async () => {
  await svc?.close();
  await gateway?.stop();
});

/** Subsidiaries per CIK as the graph answers a read query (another path than the build's feature query). */
async function subsidiaries(ciks: string[]): Promise<Map<string, number>> {
  const graph = svc.service.engines.graph as unknown as GraphPort;
  const q = checkReadQuery("MATCH (s:Company)-[:SUBSIDIARY_OF]->(p:Company) WHERE p.cik = $cik RETURN count(s) AS n", [
    "test",
  ]);
  const out = new Map<string, number>();
  for (const cik of ciks) out.set(cik, Number((await graph.read(a, q, { cik }, 10)).rows[0]?.[0] ?? 0));
  return out;
}

/** What the dataset must contain, computed from the CSV files without the service. */
function expectedRows() {
  const cos = new Map(companyTickers(secDir as string).map(([cik, ticker, name]) => [ticker, { cik, name }]));
  const daily = readdirSync(dailyDir as string)
    .filter((f) => f.endsWith(".csv"))
    .flatMap((f) => {
      const parsed = parseMarketCsv(f, readFileSync(join(dailyDir as string, f), "utf8"));
      return parsed && parsed.table === "market_bars_daily" ? parsed.rows : [];
    });
  const newest = Math.max(...daily.map((r) => Date.parse(String(r.ts))));
  const from = newest - 3660 * 86_400_000;
  const avg = (t: string) => {
    const closes = daily.filter((r) => r.symbol === t && Date.parse(String(r.ts)) > from).map((r) => Number(r.close));
    return closes.length ? closes.reduce((x, y) => x + y, 0) / closes.length : null;
  };
  const prices = monthlyPrices(dailyDir as string);
  const rows: Record<string, unknown>[] = [];
  for (const t of TICKERS) {
    const co = cos.get(t);
    if (!co) continue;
    // LEFT JOIN then WHERE p.month >= ...: companies without monthly prices drop out (NULL >= date is not true).
    for (const [sym, month, price] of prices) {
      if (sym === t && month >= "2005-01-01") {
        rows.push({ cik: co.cik, ticker: t, name: co.name, month, price, subsidiaries: 0, avg_close_3660d: avg(t) });
      }
    }
  }
  return rows;
}

describe.skipIf(!secDir || !dailyDir || !graphDir)("foundry datasets (embedded: DuckDB over PyIceberg)", () => {
  let id = "";

  test("create: draft with foundry_<name>, nothing executed; duplicate name is 409", async () => {
    const res = await post("/v1/foundry/datasets", SPEC);
    if (res.status !== 200) throw new Error(await res.text());
    const body = (await res.json()) as { id: string; output_table: string; status: string };
    expect(body).toEqual({ id: expect.any(String), output_table: "foundry_company_prices_2005", status: "draft" });
    id = body.id;
    const tables = await (svc.service.engines.lakehouse as LakehousePort).listTables(lakehouseNamespace(a.slug));
    expect(tables).not.toContain("foundry_company_prices_2005");
    const again = await post("/v1/foundry/datasets", SPEC);
    expect(again.status).toBe(409);
    expect(((await again.json()) as { detail: string }).detail).toContain("already exists");
    const [d] = await list();
    expect(d).toMatchObject({ id, status: "draft", row_count: 0, last_built_at: null, name: SPEC.name });
  });

  test("build: answers at once with the Spark SQL; the job takes it to ready with the right rows", async () => {
    const res = await post(`/v1/foundry/datasets/${id}/build`, {});
    expect(res.status).toBe(200);
    const body = (await res.json()) as { id: string; status: string; output_table: string; sql: string };
    expect(body.status).toBe("building");
    const ns = lakehouseNamespace(a.slug);
    expect(
      body.sql.startsWith(
        `CREATE TABLE IF NOT EXISTS \`${ns}\`.\`foundry_company_prices_2005\` USING iceberg AS\nSELECT`,
      ),
    ).toBe(true);
    expect(body.sql).toContain(
      `LEFT JOIN \`${ns}\`.\`prices_monthly\` AS \`p\` ON \`c\`.\`ticker\` = \`p\`.\`ticker\``,
    );
    expect(body.sql).toContain(
      "WHERE `c`.`ticker` IN ('NVDA', 'ORCL', 'YHOO', 'MSFT', 'AAPL') AND `p`.`month` >= DATE '2005-01-01'",
    );
    const done = await settled(id);
    expect(done.error).toBeNull();
    expect(done.status).toBe("ready");
    const expected = expectedRows();
    expect(expected.length).toBeGreaterThan(50);
    expect(done.row_count).toBe(expected.length);
    expect(typeof done.last_built_at).toBe("string");

    const all = await (svc.service.engines.lakehouse as LakehousePort).sql(
      ns,
      "SELECT cik, ticker, name, CAST(month AS VARCHAR) AS month, price, subsidiaries, avg_close_3660d FROM foundry_company_prices_2005 ORDER BY ticker, month",
    );
    const got = all.rows.map((r) => Object.fromEntries(all.columns.map((c, i) => [c.name, r[i]])));
    const subs = await subsidiaries([...new Set(expected.map((r) => r.cik as string))]);
    expect(subs.get("0000320193")).toBeGreaterThan(0); // Apple's EX-21
    const want: Record<string, unknown>[] = expected
      .map((r): Record<string, unknown> => ({ ...r, subsidiaries: subs.get(r.cik as string) ?? 0 }))
      .sort((x, y) => `${x.ticker}${x.month}`.localeCompare(`${y.ticker}${y.month}`));
    expect(got.length).toBe(want.length);
    for (const [i, w] of want.entries()) {
      const g = got[i] as Record<string, unknown>;
      const plain: Record<string, unknown> = { ...g, subsidiaries: Number(g.subsidiaries ?? 0), avg_close_3660d: null };
      expect(plain).toEqual({ ...w, avg_close_3660d: null });
      if (w.avg_close_3660d === null) expect(g.avg_close_3660d).toBeNull();
      else expect(g.avg_close_3660d as number).toBeCloseTo(w.avg_close_3660d as number, 6);
    }
  });

  test("preview: the first 100 rows with column names and types (moved as Arrow IPC)", async () => {
    const res = await get(`/v1/foundry/datasets/${id}/preview`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { columns: { name: string; type: string }[]; rows: Record<string, unknown>[] };
    expect(body.columns.map((c) => c.name)).toEqual([
      "cik",
      "ticker",
      "name",
      "month",
      "price",
      "subsidiaries",
      "avg_close_3660d",
    ]);
    expect(body.columns.find((c) => c.name === "month")?.type).toBe("date");
    expect(body.columns.find((c) => c.name === "price")?.type).toBe("double");
    expect(body.rows.length).toBe(Math.min(100, expectedRows().length));
    const row = body.rows[0] as Record<string, unknown>;
    expect(row.month).toMatch(/^\d{4}-\d{2}-01$/);
    expect(TICKERS).toContain(row.ticker as string);
    expect(typeof row.price).toBe("number");
  });

  test("lineage: exactly the shape of 4.9", async () => {
    const res = await get(`/v1/foundry/datasets/${id}/lineage`);
    expect(await res.json()).toEqual({
      dataset: SPEC.name,
      output: "foundry_company_prices_2005",
      sources: {
        lakehouse_tables: [
          { table: "companies", alias: "c" },
          { table: "prices_monthly", alias: "p" },
        ],
        graph_features: SPEC.graph_features,
        realtime_cols: SPEC.realtime_cols,
      },
      transforms: { filters: SPEC.filters, joins: SPEC.joins },
    });
  });

  test("rebuild replaces the table in one commit: same rows, a new build time", async () => {
    const before = (await list()).find((d) => d.id === id) as Record<string, unknown>;
    await Bun.sleep(5);
    expect((await post(`/v1/foundry/datasets/${id}/build`, {})).status).toBe(200);
    const after = await settled(id);
    expect(after.status).toBe("ready");
    expect(after.row_count).toBe(before.row_count);
    expect(after.last_built_at).not.toBe(before.last_built_at);
  });

  test("a lab that is gone: the build is retried, then ends in error; the last good table stays whole", async () => {
    const deps = svc.service.foundryBuild;
    const before = (await list()).find((d) => d.id === id) as Record<string, unknown>;
    const dead = "http://127.0.0.1:9";
    const run = makeBuildHandler({
      ...deps,
      lab: new FoundryLabClient(new GatewayLakehouse({ url: dead, timeoutMs: 2_000 }), {
        url: dead,
        buildTimeoutMs: 2_000,
      }),
    });
    const buildId = crypto.randomUUID();
    await deps.datasets.updateDataset(a.tenantId, id, { status: "building", build_id: buildId });
    const data = { tenant_id: a.tenantId, slug: a.slug, dataset_id: id, build_id: buildId };
    const job = (attempt: number) => ({ id: buildId, name: "build", data, attempt, progress: async () => {} });
    await expect(run(job(1))).rejects.toThrow("unreachable");
    expect((await list()).find((d) => d.id === id)).toMatchObject({
      status: "building",
      progress: { stage: "retrying", percent: 0 },
    });
    await expect(run(job(2))).rejects.toThrow("unreachable");
    const failed = (await list()).find((d) => d.id === id) as Record<string, unknown>;
    expect(failed.status).toBe("error");
    expect(String(failed.error)).toContain("unreachable");
    // The table of the last good build is untouched and still answers.
    const lake = svc.service.engines.lakehouse as LakehousePort;
    const count = await lake.sql(lakehouseNamespace(a.slug), "SELECT count(*) FROM foundry_company_prices_2005");
    expect(Number(count.rows[0]?.[0])).toBe(before.row_count as number);
    // A new build through the API recovers.
    expect((await post(`/v1/foundry/datasets/${id}/build`, {})).status).toBe(200);
    expect((await settled(id)).status).toBe("ready");
  });

  test("bad specs: 422 with the section 7 body naming each fault", async () => {
    const bad = {
      name: "bad",
      source_tables: [
        { table: "companies", alias: "c", columns: ["cik", "nope"] },
        { table: "prices_monthly", alias: "p" },
      ],
      joins: [{ left_table: "c", right_table: "p", left_col: "ticker", right_col: "month" }],
      filters: [
        { column: "p.price", op: ">=", value: "cheap" },
        { column: "p.month", op: "between", value: "2005-01-01" },
      ],
      realtime_cols: [{ realtime_table: "market_bars_daily", column: "close", agg: "median", window: "30 days" }],
    };
    const res = await post("/v1/foundry/datasets", bad);
    expect(res.status).toBe(422);
    const { detail } = (await res.json()) as { detail: { loc: string[]; msg: string; type: string }[] };
    const locs = detail.map((d) => d.loc.join("."));
    expect(locs).toEqual(
      expect.arrayContaining([
        "body.source_tables.0.columns.1",
        "body.joins.0.right_col",
        "body.filters.0.value",
        "body.filters.1.op",
        "body.realtime_cols.0.agg",
        "body.realtime_cols.0.window",
      ]),
    );
    for (const d of detail) expect(Object.keys(d).sort()).toEqual(["ctx", "input", "loc", "msg", "type"]);
  });

  test("a second tenant sees none of the first tenant's tables, datasets or rows", async () => {
    const b = await svc.addTenant();
    await (svc.service.engines.lakehouse as LakehousePort).ensureNamespace(b);
    const jwt = await b.token("other@foundry.test");
    const hb = { authorization: `Bearer ${jwt}` };
    expect(await list(hb)).toEqual([]);
    expect((await get(`/v1/foundry/datasets/${id}/preview`, hb)).status).toBe(404);
    expect((await get(`/v1/foundry/datasets/${id}/lineage`, hb)).status).toBe(404);
    expect((await post(`/v1/foundry/datasets/${id}/build`, {}, hb)).status).toBe(404);
    // A's tables do not exist in B's namespace, by any spelling.
    for (const table of ["companies", `${lakehouseNamespace(a.slug)}.companies`, "foundry_company_prices_2005"]) {
      const res = await post("/v1/foundry/datasets", { name: `x ${table}`, source_tables: [{ table }] }, hb);
      expect(res.status).toBe(422);
    }
  });
});

describe.skipIf(!secDir || !dailyDir || !graphDir)(
  "foundry datasets: the same spec on Spark gives the same rows",
  () => {
    test("the build job on the Spark gateway (same catalog) writes exactly the DuckDB build's rows", async () => {
      const spark = await startGateway({ engine: "spark", dir: (gateway as GatewayHandle).dir });
      if (!spark) return;
      try {
        const res = await post("/v1/foundry/datasets", { ...SPEC, name: "Company prices on spark" });
        expect(res.status).toBe(200);
        const { id: sid, output_table } = (await res.json()) as { id: string; output_table: string };
        const deps = svc.service.foundryBuild;
        const buildId = crypto.randomUUID();
        await deps.datasets.updateDataset(a.tenantId, sid, { status: "building", build_id: buildId });
        const lab = new FoundryLabClient(new GatewayLakehouse({ url: spark.url }), {
          url: spark.url,
          buildTimeoutMs: 300_000,
        });
        const run = makeBuildHandler({ ...deps, lab });
        const data = { tenant_id: a.tenantId, slug: a.slug, dataset_id: sid, build_id: buildId };
        const result = await run({ id: buildId, name: "build", data, attempt: 1, progress: async () => {} });
        expect(result).toMatchObject({ engine: "spark" });
        const built = (await list()).find((d) => d.id === sid) as Record<string, unknown>;
        expect(built.status).toBe("ready");
        const lake = svc.service.engines.lakehouse as LakehousePort;
        const ns = lakehouseNamespace(a.slug);
        const rows = async (table: string) =>
          (
            await lake.sql(
              ns,
              `SELECT cik, ticker, name, CAST(month AS VARCHAR) AS month, price, subsidiaries, avg_close_3660d FROM ${table} ORDER BY ticker, month`,
            )
          ).rows;
        const onSpark = await rows(output_table);
        expect(onSpark.length).toBe(built.row_count as number);
        expect(onSpark.length).toBeGreaterThan(50);
        expect(onSpark).toEqual(await rows("foundry_company_prices_2005"));
        const schema = await lake.tableSchema(ns, output_table);
        expect(schema.map((c) => [c.name, c.type])).toEqual(
          (await lake.tableSchema(ns, "foundry_company_prices_2005")).map((c) => [c.name, c.type]),
        );
      } finally {
        await spark.stop();
      }
    }, 240_000);
  },
);
