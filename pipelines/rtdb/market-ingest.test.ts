import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { DuckDbTimeSeries, QuestDbTimeSeries } from "../../adapters/rtdb/index.ts";
import type { RealtimeTablesPort } from "../../domain/rtdb/index.ts";
import type { NamespacePort, TenantRef } from "../../domain/tenants/namespaces.ts";
import { engineUrl } from "../../test/engines.ts";
import { sharedData } from "../../test/shared-data.ts";
import { ingestMarketDirectory, parseMarketCsv, symbolOf } from "./market-ingest.ts";

const market = sharedData("market", "market ingest");

test("file names give symbols; every layout parses to typed rows", () => {
  expect(symbolOf("NVDA_1999-2014_daily.csv")).toBe("NVDA");
  expect(symbolOf("SP500_index_2000-2020_daily.csv")).toBe("SP500_INDEX");
  expect(symbolOf("index_2006_1min_with_volume.csv")).toBe("INDEX");
  expect(symbolOf("futures_ticks_2015-09-23.csv")).toBe("FUTURES");
  expect(symbolOf("bid_ask_sample.csv")).toBe("BID_ASK");
  const oneMin = parseMarketCsv(
    "index_2006_1min_with_volume.csv",
    "Date,Open,High,Low,Close,Volume,OpenInterest\n2006-01-02,09:01:00,3602.00,3603.00,3597.00,3599.00,5699,0\n",
  );
  expect(oneMin?.table).toBe("market_bars_intraday");
  expect(oneMin?.rows).toEqual([
    {
      symbol: "INDEX",
      bar: "1m",
      open: 3602,
      high: 3603,
      low: 3597,
      close: 3599,
      volume: 5699,
      open_interest: 0,
      ts: "2006-01-02T09:01:00Z",
    },
  ]);
  const quotes = parseMarketCsv("bid_ask_sample.csv", "TIMESTAMP,BID,ASK\n02/03/2010 16:53:50,0.5346,0.5347\n");
  expect(quotes?.rows).toEqual([{ symbol: "BID_ASK", bid: 0.5346, ask: 0.5347, ts: "2010-02-03T16:53:50Z" }]);
  const monthly = parseMarketCsv("stocks_monthly.csv", "symbol,date,price\nMSFT,Jan 1 2000,39.81\n");
  expect(monthly?.rows).toEqual([{ symbol: "MSFT", price: 39.81, ts: "2000-01-01T00:00:00Z" }]);
  expect(parseMarketCsv("x.csv", "a,b\n1,2\n")).toBeNull();
  expect(() => parseMarketCsv("bad.csv", "symbol,date,price\nMSFT,Jan 1 2000,abc\n")).toThrow(
    "bad.csv line 2: price: 'abc' is not a number",
  );
});

interface Engine {
  ns: NamespacePort;
  tables: RealtimeTablesPort;
  close(): Promise<void>;
}

function runMarketIngest(name: string, open: () => Engine): void {
  describe.skipIf(!market)(`market data into real-time tables: ${name}`, () => {
    let engine: Engine;
    const t: TenantRef = { tenantId: crypto.randomUUID(), slug: "markets" };
    let dir: string;

    beforeAll(async () => {
      engine = open();
      await engine.ns.ensureNamespace(t);
      dir = mkdtempSync(join(tmpdir(), "cairn-market-"));
    });
    afterAll(async () => {
      await engine.ns.dropNamespace(t).catch(() => {});
      await engine.close();
      rmSync(dir, { recursive: true, force: true });
    });

    test("every CSV row lands once in its table; a rerun skips loaded tables", async () => {
      const report = await ingestMarketDirectory(engine.tables, t, market!);
      const rows = Object.fromEntries(report.tables.map((x) => [x.table, x.rows]));
      expect(rows).toEqual({
        market_bars_daily: 4012 + 5036 + 5105 + 4965 + 512,
        market_prices_monthly: 560,
        market_quotes: 10,
        market_bars_intraday: 135 + 30889 + 2142,
      });
      expect(report.rows).toBe(53_366);
      expect(report.files.filter((f) => f.skipped).map((f) => f.file)).toEqual(["daily/ohlc_with_signals_2009.json"]);
      for (const x of report.tables) expect(x.rows_per_s).toBeGreaterThan(0);
      for (const table of Object.keys(rows)) {
        const parts = await engine.tables.partitions(t, table);
        expect(parts.reduce((n, p) => n + p.rows, 0)).toBe(rows[table]!);
      }
      const again = await ingestMarketDirectory(engine.tables, t, market!);
      expect(again.rows).toBe(0);
      expect(again.tables.every((x) => x.skipped !== undefined)).toBe(true);
    }, 120_000);

    test("values survive: the quotes partition exported to Parquet reads back exactly", async () => {
      expect((await engine.tables.partitions(t, "market_quotes")).map((p) => [p.partition, p.rows])).toEqual([
        ["2010-02-03", 10],
      ]);
      const file = join(dir, "quotes.parquet");
      expect(await engine.tables.exportPartition(t, "market_quotes", "2010-02-03", file)).toEqual({ rows: 10 });
      const duck = await DuckDBInstance.create(":memory:");
      const conn = await duck.connect();
      const got = (
        await conn.runAndReadAll(
          `SELECT symbol::VARCHAR AS symbol, bid, ask, strftime(ts::TIMESTAMP, '%Y-%m-%dT%H:%M:%S') AS ts
             FROM read_parquet('${file}') ORDER BY ts LIMIT 2`,
        )
      ).getRowObjectsJson();
      conn.closeSync();
      duck.closeSync();
      expect(got).toEqual([
        { symbol: "BID_ASK", bid: 0.5346, ask: 0.5347, ts: "2010-02-03T16:53:50" },
        { symbol: "BID_ASK", bid: 0.5343, ask: 0.5347, ts: "2010-02-03T16:53:51" },
      ]);
      const daily = await engine.tables.partitions(t, "market_bars_daily");
      expect(daily[0]?.partition).toBe("1995-01");
      expect(daily.at(-1)?.partition).toBe("2020-04");
    });
  });
}

runMarketIngest("embedded (DuckDB)", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "cairn-market-duck-"));
  const ts = new DuckDbTimeSeries({ dataDir, threads: 1 });
  return {
    ns: ts,
    tables: ts.realtime,
    close: async () => {
      await ts.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
});

const questdb = engineUrl("questdb");
if (questdb) {
  runMarketIngest("QuestDB (ILP over HTTP)", () => {
    const ts = new QuestDbTimeSeries({ url: questdb, scope: `m${crypto.randomUUID().slice(0, 8)}` });
    return { ns: ts, tables: ts.realtime, close: () => ts.close() };
  });
}
