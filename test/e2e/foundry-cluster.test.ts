/**
 * Foundry datasets on the cluster profile, through the API: Postgres control plane, BullMQ
 * on Redis, the lab gateway on Spark, QuestDB real-time tables and Neo4j 5.26. Real SEC
 * tickers and prices as lakehouse tables, the real company graph (EX-21 subsidiaries), real
 * daily bars: a dataset joining two tables with a filter, a graph feature and a
 * time-series feature builds to ready with the rows computed independently here.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { realtimeEngine } from "../../composition/engines.ts";
import { checkReadQuery } from "../../domain/foundry/graph/cypher.ts";
import type { GraphPort } from "../../domain/foundry/graph/ports.ts";
import type { LakehousePort } from "../../domain/lakehouse/ports.ts";
import { lakehouseNamespace, type TenantRef } from "../../domain/tenants/namespaces.ts";
import { loadCompanyGraph } from "../../pipelines/foundry/graph/load.ts";
import { ingestMarketDirectory } from "../../pipelines/rtdb/market-ingest.ts";
import { engineUrl, freshPostgresDatabase } from "../engines.ts";
import { COMPANY_COLUMNS, companyTickers, MONTHLY_COLUMNS, monthlyPrices } from "../fixtures/foundry-data.ts";
import { startTestService, type TestService } from "../harness.ts";
import { type GatewayHandle, startGateway } from "../lakehouse.ts";
import { deleteRedisPrefix } from "../redis.ts";
import { sharedData } from "../shared-data.ts";
import { waitFor } from "../wait.ts";

const pg = engineUrl("postgres");
const redis = engineUrl("redis");
const questdb = engineUrl("questdb");
const neo4j = engineUrl("neo4j");
const secDir = sharedData("sec", "foundry cluster");
const dailyDir = sharedData("market/daily", "foundry cluster");
const graphDir = sharedData("graph", "foundry cluster");
const ready = Boolean(pg && redis && questdb && neo4j && secDir && dailyDir && graphDir);

let gateway: GatewayHandle | undefined;
let svc: TestService;
let db: { url: string; drop: () => Promise<void> };
let prefix = "";
let a: TenantRef;
let headers: Record<string, string>;

const TICKERS = ["AAPL", "MSFT", "AMZN", "IBM", "GOOG"];

beforeAll(async () => {
  if (!ready) return;
  gateway = await startGateway({ engine: "spark" });
  if (!gateway) return;
  db = await freshPostgresDatabase(pg as string);
  prefix = `cairn-fc${crypto.randomUUID().slice(0, 8)}`;
  const bolt = new URL(neo4j as string);
  svc = await startTestService({
    DATABASE_URL: db.url,
    REDIS_URL: redis as string,
    CAIRN_REDIS_PREFIX: prefix,
    CAIRN_QUESTDB_URL: questdb as string,
    CAIRN_LAKEHOUSE_URL: gateway.url,
    CAIRN_NEO4J_URL: `${bolt.protocol}//${bolt.host}`,
    CAIRN_NEO4J_USER: decodeURIComponent(bolt.username || "neo4j"),
    CAIRN_NEO4J_PASSWORD: decodeURIComponent(bolt.password),
  });
  const tenant = await svc.service.store.getTenant(svc.tenantId);
  a = { tenantId: svc.tenantId, slug: tenant?.slug as string };
  const { engines } = svc.service;
  const lake = engines.lakehouse as LakehousePort;
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
  await engines.timeseries.ensureNamespace(a);
  await engines.graph.ensureNamespace(a);
  await loadCompanyGraph(engines.graph as unknown as GraphPort, a, graphDir as string);
  const rt = realtimeEngine(engines.timeseries);
  if (!rt) throw new Error("QuestDB should have real-time tables");
  await ingestMarketDirectory(rt, a, dailyDir as string);
  headers = {
    authorization: `Bearer ${await svc.token("analyst@cluster.test", "enterprise")}`,
    "content-type": "application/json",
  };
}, 300_000);

afterAll(async () => {
  if (a && svc) {
    await svc.service.engines.graph.dropNamespace(a).catch(() => {});
    await svc.service.engines.timeseries.dropNamespace(a).catch(() => {});
  }
  await svc?.close();
  await gateway?.stop();
  await db?.drop();
  if (prefix) await deleteRedisPrefix(redis as string, `${prefix}:`);
});

describe.skipIf(!ready)("foundry datasets on the cluster profile (Postgres, BullMQ, Spark, QuestDB, Neo4j)", () => {
  test("two real tables joined and filtered, a graph feature and a time-series feature build to ready", async () => {
    const spec = {
      name: "cluster companies",
      source_tables: [
        { table: "companies", alias: "c" },
        { table: "prices_monthly", alias: "p", columns: ["month", "price"] },
      ],
      joins: [{ left_table: "c", right_table: "p", left_col: "ticker", right_col: "ticker" }],
      filters: [
        { column: "c.ticker", op: "in", value: TICKERS.join(",") },
        { column: "p.month", op: "=", value: "2010-01-01" },
      ],
      graph_features: [
        {
          label: "Company",
          cypher_fragment: "OPTIONAL MATCH (s:Company)-[:SUBSIDIARY_OF]->(e) RETURN count(s)",
          output_column: "subsidiaries",
        },
      ],
      realtime_cols: [{ realtime_table: "market_prices_monthly", column: "price", agg: "avg", window: "365d" }],
    };
    const created = await svc.request("/v1/foundry/datasets", { method: "POST", headers, body: JSON.stringify(spec) });
    const body = (await created.json()) as { id: string };
    expect(created.status).toBe(200);
    const built = await svc.request(`/v1/foundry/datasets/${body.id}/build`, { method: "POST", headers });
    expect(built.status).toBe(200);
    let found: Record<string, unknown> = {};
    await waitFor(
      "the cluster build",
      async () => {
        const res = await svc.request("/v1/foundry/datasets", { headers });
        const list = (await res.json()) as { datasets: Record<string, unknown>[] };
        found = list.datasets.find((d) => d.id === body.id) ?? {};
        return found.status === "ready" || found.status === "error";
      },
      { timeoutMs: 180_000, everyMs: 250 },
    );
    expect(found.error).toBeNull();
    expect(found.status).toBe("ready");
    const cos = companyTickers(secDir as string).filter(([, t]) => TICKERS.includes(t));
    expect(cos.length).toBe(TICKERS.length);
    expect(found.row_count).toBe(cos.length);

    const preview = (await (await svc.request(`/v1/foundry/datasets/${body.id}/preview`, { headers })).json()) as {
      rows: Record<string, unknown>[];
    };
    const byTicker = new Map(preview.rows.map((r) => [r.ticker as string, r]));
    const prices = monthlyPrices(dailyDir as string);
    const newest = Math.max(...prices.map(([, m]) => Date.parse(`${m}T00:00:00Z`)));
    const graph = svc.service.engines.graph as unknown as GraphPort;
    for (const [cik, ticker] of cos) {
      const row = byTicker.get(ticker) as Record<string, unknown>;
      // The joined and filtered table: the January 2010 price.
      expect(row.month).toBe("2010-01-01");
      expect(row.price).toBe(prices.find(([t, m]) => t === ticker && m === "2010-01-01")?.[2] as number);
      // Subsidiaries: what the graph says through another path (a read query).
      const q = checkReadQuery(
        "MATCH (s:Company)-[:SUBSIDIARY_OF]->(p:Company) WHERE p.cik = $cik RETURN count(s) AS n",
        ["test"],
      );
      const n = Number((await graph.read(a, q, { cik }, 10)).rows[0]?.[0] ?? 0);
      if (ticker === "AAPL") expect(n).toBeGreaterThan(0);
      expect(Number(row.subsidiaries ?? 0)).toBe(n);
      // Time-series: the average monthly price over the 365 days before the table's newest row.
      const window = prices.filter(
        ([t, m]) => t === ticker && Date.parse(`${m}T00:00:00Z`) > newest - 365 * 86_400_000,
      );
      expect(row.avg_price_365d as number).toBeCloseTo(window.reduce((x, [, , p]) => x + p, 0) / window.length, 6);
    }
    const tables = await (svc.service.engines.lakehouse as LakehousePort).listTables(lakehouseNamespace(a.slug));
    expect(tables).toContain("foundry_cluster_companies");
  }, 300_000);
});
