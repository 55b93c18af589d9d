/**
 * The Foundry sync end to end: the real SEC sample, the real news samples and the real
 * market CSVs ingested into a real service, synced by the job into the real lakehouse
 * gateway (lab, PyIceberg + DuckDB). The Iceberg tables hold exactly what the stores and
 * the REST endpoints return, join on cik, a second tenant gets its own copy without the
 * first tenant's market data, and a rerun commits nothing.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import type { SqlFinancialsStore } from "../../adapters/financials/store.ts";
import { openNewsStore, readLocalFeeds } from "../../composition/cli.ts";
import { realtimeEngine } from "../../composition/engines.ts";
import { type FoundrySync, openFoundrySync } from "../../composition/foundry-sync.ts";
import type { LakehousePort } from "../../domain/lakehouse/ports.ts";
import { lakehouseNamespace, type TenantRef } from "../../domain/tenants/namespaces.ts";
import { ingestSecDirectory } from "../../pipelines/financials/sec/index.ts";
import {
  COLUMNS,
  FINGERPRINT_PROPERTY,
  FOUNDRY_TABLES,
  type FoundrySyncResult,
  KEYS,
  SOURCE_PROPERTY,
  SYNCED_AT_PROPERTY,
} from "../../pipelines/foundry/sync/index.ts";
import { createCompanyLinker, NewsIngestor } from "../../pipelines/news/index.ts";
import { ingestMarketDirectory, parseMarketCsv } from "../../pipelines/rtdb/market-ingest.ts";
import { startTestService, type TestService } from "../harness.ts";
import { type GatewayHandle, startGateway } from "../lakehouse.ts";
import { sharedData } from "../shared-data.ts";

const secDir = sharedData("sec", "foundry sync e2e");
const newsDir = sharedData("news", "foundry sync e2e");
const dailyDir = sharedData("market/daily", "foundry sync e2e");
const ready = Boolean(secDir && newsDir && dailyDir);
const gateway: GatewayHandle | undefined = ready ? await startGateway() : undefined;
const ALL = { limit: 1_000_000 };

let svc: TestService;
let lake: LakehousePort;
let foundry: FoundrySync;
let a: TenantRef;
let b: TenantRef;
let first: FoundrySyncResult;
let csvDir: string;
let key: string;

/** Every daily bar of the CSV files in `dir` as `TICKER|YYYY-MM-DD`, one per key. */
async function csvBarKeys(dir: string, files: string[]): Promise<Set<string>> {
  const keys = new Set<string>();
  for (const f of files) {
    const parsed = parseMarketCsv(join(dir, f), await Bun.file(join(dir, f)).text());
    if (parsed?.table !== "market_bars_daily") continue;
    for (const r of parsed.rows) keys.add(`${String(r.symbol).toUpperCase()}|${String(r.ts).slice(0, 10)}`);
  }
  return keys;
}

beforeAll(async () => {
  if (!gateway || !secDir || !newsDir || !dailyDir) return;
  svc = await startTestService({ CAIRN_LAKEHOUSE_URL: gateway.url });
  const { service } = svc;
  lake = service.engines.lakehouse as LakehousePort;
  const ta = await service.store.getTenant(svc.tenantId);
  a = { tenantId: svc.tenantId, slug: ta?.slug as string };
  const tb = await service.store.createTenant({
    slug: `t-${crypto.randomUUID().slice(0, 8)}`,
    display_name: "Second Tenant",
    tier: "enterprise",
    region: "local",
    provisioning_state: "active",
    is_active: true,
  });
  b = { tenantId: tb.tenant_id, slug: tb.slug };

  const sec = await ingestSecDirectory(secDir, service.financials);
  expect(sec.errors).toEqual([]);
  const ingestor = new NewsIngestor({
    store: openNewsStore(service.store.sql),
    publisher: { publish: async () => {} },
    linker: createCompanyLinker(),
    logger: pino({ level: "silent" }),
  });
  for (const f of readLocalFeeds(newsDir)) if (f.type) await ingestor.ingest(f.items);
  // Tenant A's market data lives in its real-time tables; tenant B has none.
  await service.engines.timeseries.ensureNamespace(a);
  const rt = realtimeEngine(service.engines.timeseries);
  if (!rt) throw new Error("the embedded time-series engine should have real-time tables");
  await ingestMarketDirectory(rt, a, dailyDir);
  csvDir = mkdtempSync(join(tmpdir(), "cairn-foundry-csv-"));
  copyFileSync(join(dailyDir, "ORCL_1995-2014_daily.csv"), join(csvDir, "ORCL_1995-2014_daily.csv"));
  key = await svc.apiKey("sync@foundry.test", "enterprise");

  foundry = openFoundrySync({
    financials: service.financials,
    store: service.store,
    lakehouse: lake,
    rtdb: service.deps.rtdb,
  });
  first = await foundry.sync(a);
}, 300_000);
afterAll(async () => {
  await svc?.close();
  await gateway?.stop();
  if (csvDir) rmSync(csvDir, { recursive: true, force: true });
});

const nsA = () => lakehouseNamespace(a.slug);
const nsB = () => lakehouseNamespace(b.slug);
const count = async (ns: string, sql: string) => Number((await lake.sql(ns, sql)).rows[0]?.[0]);
const ordered = (ns: string, table: (typeof FOUNDRY_TABLES)[number]) =>
  lake.sql(ns, `SELECT * FROM ${table} ORDER BY ${KEYS[table].join(", ")}`);

describe.skipIf(!ready)("foundry-sync into the tenant's lakehouse namespace", () => {
  test("every table exists in the tenant's namespace with its columns and Iceberg types, and the sync properties", async () => {
    expect(first.namespace).toBe(nsA());
    expect(first.market_source).toBe("rtdb");
    expect(first.tables.map((t) => t.name)).toEqual([...FOUNDRY_TABLES]);
    expect(first.tables.every((t) => t.changed)).toBe(true);
    expect((await lake.listTables(nsA())).sort()).toEqual([...FOUNDRY_TABLES].sort());
    for (const t of FOUNDRY_TABLES) {
      const schema = await lake.tableSchema(nsA(), t);
      expect(schema.map((c) => [c.name, c.type.toLowerCase()])).toEqual(COLUMNS[t].map((c) => [c.name, c.type]));
      const props = await lake.snapshotProperties(nsA(), t);
      expect(props?.[SOURCE_PROPERTY]).toBe("sync");
      expect(props?.[SYNCED_AT_PROPERTY]).toBe(first.synced_at);
      expect(["append", "overwrite"]).toContain(props?.operation as string);
      const rows = first.tables.find((x) => x.name === t)?.rows;
      expect(await count(nsA(), `SELECT count(*) FROM ${t}`)).toBe(rows as number);
    }
  });

  test("row counts equal what the financials store holds, company by company", async () => {
    const fin = svc.service.financials;
    const ciks = await fin.listCiks();
    expect(ciks.length).toBeGreaterThanOrEqual(7);
    expect(await count(nsA(), "SELECT count(*) FROM companies")).toBe(ciks.length);
    let income = 0;
    let ratios = 0;
    let segments = 0;
    for (const cik of ciks) {
      const inc = (await fin.income(cik, ALL)).length;
      income += inc;
      ratios += (await fin.ratios(cik, ALL)).length;
      segments += (await fin.revenueSegments(cik, ALL)).reduce((n, r) => n + r.segments.length, 0);
      expect(await count(nsA(), `SELECT count(*) FROM income_statements WHERE cik = '${cik}'`)).toBe(inc);
    }
    expect(income).toBeGreaterThan(100);
    expect(segments).toBeGreaterThan(0);
    expect(await count(nsA(), "SELECT count(*) FROM income_statements")).toBe(income);
    expect(await count(nsA(), "SELECT count(*) FROM financial_ratios")).toBe(ratios);
    expect(await count(nsA(), "SELECT count(*) FROM revenue_segments")).toBe(segments);
    const finSql = (fin as SqlFinancialsStore).sql;
    const filings = Number((await finSql.get<{ n: number }>("SELECT count(*) AS n FROM fin_filings"))?.n);
    expect(filings).toBeGreaterThan(1000);
    expect(await count(nsA(), "SELECT count(*) FROM filings")).toBe(filings);
    // Every cik is the 10-digit zero-padded string, every ticker upper case.
    for (const t of ["companies", "income_statements", "financial_ratios", "revenue_segments", "filings"]) {
      expect(await count(nsA(), `SELECT count(*) FROM ${t} WHERE length(cik) <> 10`)).toBe(0);
      expect(await count(nsA(), `SELECT count(*) FROM ${t} WHERE ticker <> upper(ticker)`)).toBe(0);
    }
  });

  test("income statements match the REST endpoint, and companies JOIN income_statements ON cik works", async () => {
    const res = await svc.request("/v1/financials/320193/income?period=FY&limit=40", {
      headers: { "x-api-key": key },
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, unknown>;
    const records = (Array.isArray(body) ? body : (Object.values(body).find(Array.isArray) as unknown[])) as {
      fiscal_year: number;
      revenue: number | null;
      net_income: number | null;
    }[];
    expect(records.length).toBeGreaterThan(5);
    const lakeRows = await lake.sql(
      nsA(),
      "SELECT fiscal_year, revenue, net_income FROM income_statements WHERE cik = '0000320193' AND fiscal_period = 'FY' ORDER BY fiscal_year DESC",
    );
    expect(lakeRows.rows.length).toBe(records.length);
    expect(lakeRows.rows.map((r) => [Number(r[0]), r[1], r[2]])).toEqual(
      records.map((r) => [r.fiscal_year, r.revenue, r.net_income]),
    );
    const joined = await lake.sql(
      nsA(),
      `SELECT c.ticker, c.sector, i.revenue FROM companies c JOIN income_statements i ON c.cik = i.cik
        WHERE i.fiscal_year = 2023 AND i.fiscal_period = 'FY' AND c.ticker = 'AAPL'`,
    );
    expect(joined.rows).toEqual([["AAPL", "Manufacturing", 383_285_000_000]]);
  });

  test("news and mentions hold every stored article; mentions carry the cik of known tickers", async () => {
    const store = openNewsStore(svc.service.store.sql);
    let articles = 0;
    let mentions = 0;
    for (let after: number | undefined; ; ) {
      const page = await store.list({ limit: 500, ...(after !== undefined ? { after } : {}) });
      articles += page.articles.length;
      mentions += page.articles.reduce((n, x) => n + new Set(x.company_tickers.map((t) => t.toUpperCase())).size, 0);
      if (page.next === null) break;
      after = page.next;
    }
    expect(articles).toBeGreaterThan(50);
    expect(await count(nsA(), "SELECT count(*) FROM news")).toBe(articles);
    expect(await count(nsA(), "SELECT count(*) FROM news_mentions")).toBe(mentions);
    expect(await count(nsA(), "SELECT count(*) FROM news WHERE sentiment_label IS NULL")).toBe(0);
    expect(await count(nsA(), "SELECT count(*) FROM news_mentions WHERE ticker = 'AAPL' AND cik = '0000320193'")).toBe(
      await count(nsA(), "SELECT count(*) FROM news_mentions WHERE ticker = 'AAPL'"),
    );
  });

  test("market_daily is the tenant's real-time daily bars, one row per ticker and date", async () => {
    const files = ["NVDA_1999-2014_daily.csv", "ORCL_1995-2014_daily.csv", "SP500_index_2000-2020_daily.csv"];
    const all = await csvBarKeys(dailyDir as string, [
      ...files,
      "YHOO_1996-2015_daily.csv",
      "index_2005-2006_daily.csv",
      "stocks_monthly_MSFT_AMZN_IBM_GOOG_AAPL.csv",
    ]);
    expect(await count(nsA(), "SELECT count(*) FROM market_daily")).toBe(all.size);
    expect(await count(nsA(), "SELECT count(*) FROM market_daily WHERE ticker = 'NVDA'")).toBeGreaterThan(3000);
    expect(await count(nsA(), "SELECT count(*) FROM market_daily WHERE ticker = 'NVDA' AND cik = '0001045810'")).toBe(
      await count(nsA(), "SELECT count(*) FROM market_daily WHERE ticker = 'NVDA'"),
    );
    const bar = await lake.sql(
      nsA(),
      "SELECT close, volume FROM market_daily WHERE ticker = 'ORCL' AND date = '2014-01-02'",
    );
    expect(bar.rows.length).toBe(1);
  });

  test("a rerun commits nothing and leaves every row as it was", async () => {
    const before = new Map<string, { fp: string | undefined; rows: unknown[][] | null }>();
    for (const t of FOUNDRY_TABLES) {
      before.set(t, {
        fp: (await lake.snapshotProperties(nsA(), t))?.[FINGERPRINT_PROPERTY],
        rows: t === "news" || t === "companies" || t === "filings" ? (await ordered(nsA(), t)).rows : null,
      });
    }
    const again = await foundry.sync(a);
    expect(again.tables.map((t) => [t.name, t.rows, t.changed])).toEqual(
      first.tables.map((t) => [t.name, t.rows, false]),
    );
    for (const t of FOUNDRY_TABLES) {
      const props = await lake.snapshotProperties(nsA(), t);
      expect(props?.[SYNCED_AT_PROPERTY]).toBe(first.synced_at);
      expect({
        fp: props?.[FINGERPRINT_PROPERTY],
        rows: t === "news" || t === "companies" || t === "filings" ? (await ordered(nsA(), t)).rows : null,
      }).toEqual(before.get(t) ?? { fp: "missing", rows: null });
    }
  });

  test("smaller market reads (windows split in two until they fit) give the very same table", async () => {
    const again = await foundry.sync(a, { marketPageSize: 1_500 });
    expect(again.tables.find((t) => t.name === "market_daily")).toMatchObject({ rows: 19_630, changed: false });
  });

  test("past the row cap a financial table fails loudly; news keeps the newest articles and says so", async () => {
    await expect(foundry.sync(a, { maxRowsPerTable: 100 })).rejects.toMatchObject({
      code: "payload_too_large",
      message: expect.stringContaining("income_statements has more than 100 rows"),
    });
    // The failed run wrote companies (17 rows, unchanged) and stopped: income is still the full table.
    expect(await count(nsA(), "SELECT count(*) FROM income_statements")).toBe(
      first.tables.find((t) => t.name === "income_statements")?.rows as number,
    );
    const cut = await foundry.sync(a, { maxNewsArticles: 40, newsPageSize: 15 });
    expect(cut.tables.find((t) => t.name === "news")).toMatchObject({ rows: 40, changed: true, truncated: true });
    expect((await lake.snapshotProperties(nsA(), "news"))?.["cairn.sync.truncated"]).toBe("true");
    const newest = await openNewsStore(svc.service.store.sql).list({ limit: 40 });
    expect((await lake.sql(nsA(), "SELECT article_id FROM news ORDER BY article_id")).rows.map((r) => r[0])).toEqual(
      newest.articles.map((x) => x.article_id).sort(),
    );
    // Back to the full history.
    const full = await foundry.sync(a);
    expect(full.tables.find((t) => t.name === "news")).toMatchObject({ rows: first.tables[5]?.rows, changed: true });
    expect(full.tables.filter((t) => t.changed).map((t) => t.name)).toEqual(["news", "news_mentions"]);
  });

  test("a second tenant gets its own copy, without the first tenant's market data", async () => {
    // No real-time table and no CSV directory: market_daily is created empty, with its columns.
    const empty = await foundry.sync(b);
    expect(empty.namespace).toBe(nsB());
    expect(empty.market_source).toBe("none");
    expect(empty.tables.find((t) => t.name === "market_daily")?.rows).toBe(0);
    expect((await lake.tableSchema(nsB(), "market_daily")).map((c) => c.name)).toEqual(
      COLUMNS.market_daily.map((c) => c.name),
    );
    expect(await count(nsB(), "SELECT count(*) FROM market_daily")).toBe(0);
    // The public financial data is the same in both namespaces, row for row.
    for (const t of ["companies", "income_statements", "filings"] as const) {
      expect((await ordered(nsB(), t)).rows).toEqual((await ordered(nsA(), t)).rows);
    }
    // From a CSV directory: B's bars are ORCL's alone; A's NVDA bars never reach B.
    const withCsv = await foundry.sync(b, { marketDir: csvDir });
    expect(withCsv.market_source).toBe("csv");
    const orcl = await csvBarKeys(csvDir, ["ORCL_1995-2014_daily.csv"]);
    expect(await count(nsB(), "SELECT count(*) FROM market_daily")).toBe(orcl.size);
    expect(await count(nsB(), "SELECT count(DISTINCT ticker) FROM market_daily")).toBe(1);
    expect(await count(nsB(), "SELECT count(*) FROM market_daily WHERE ticker = 'NVDA'")).toBe(0);
    expect(await count(nsA(), "SELECT count(*) FROM market_daily WHERE ticker = 'NVDA'")).toBeGreaterThan(0);
    // B's only other change was market_daily: its first-sync tables were not rewritten.
    expect(withCsv.tables.filter((t) => t.changed).map((t) => t.name)).toEqual(["market_daily"]);
    // One tenant's namespace cannot reach the other's tables.
    await expect(lake.sql(nsB(), `SELECT count(*) FROM ${nsA()}.market_daily`)).rejects.toThrow();
    expect((await lake.listTables(nsB())).sort()).toEqual([...FOUNDRY_TABLES].sort());
  });
});
