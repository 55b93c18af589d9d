/**
 * Real-time table ingestion (issue 8): rows/s through Cairn's path (RealtimeTablesPort.ingest:
 * row checking and conversion, then ILP over HTTP) against the ceiling, QuestDB's own
 * client writing the same rows directly with hard-coded columns, in alternating rounds of
 * the same run; target: our overhead at most 10% of direct. Both paths send 50,000-row
 * requests and stop the clock when QuestDB has applied the WAL (rows queryable). Also the
 * embedded engine's ingest (DuckDB appender; peer: a bare appender loop) and a SAMPLE BY
 * style aggregation (1-hour OHLCV buckets per symbol) on both engines.
 *
 * Rows: the real 1-minute index bars of 2006 (../shared/data/market/intraday), replayed for
 * several symbols in timestamp order (a synthetic minute series without the shared data).
 * QuestDB is started with scripts/questdb.sh unless CAIRN_TEST_QUESTDB_URL/CAIRN_QUESTDB_URL
 * names one.
 *
 *   node_modules/.bin/bun bench/rtdb-ingest.ts      (BENCH_QUICK=1 for a short smoke run)
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type DuckDBConnection, DuckDBInstance, DuckDBTimestampValue } from "@duckdb/node-api";
import { Sender } from "@questdb/nodejs-client";
import { DuckDbTimeSeries, QuestDbTimeSeries } from "../adapters/rtdb/index.ts";
import { normaliseDdl, parseCreateTable, type Row } from "../domain/rtdb/index.ts";
import { defaultRounds, emit, emitPair, QUICK, round, summarize } from "./runner.ts";

const root = join(import.meta.dir, "..");
const TARGET_OVERHEAD = 0.1;
const SYMBOLS = QUICK ? 8 : 32;
const BATCH = 50_000;
const DDL =
  "CREATE TABLE bars (symbol SYMBOL CAPACITY 256 CACHE, open DOUBLE, high DOUBLE, low DOUBLE, close DOUBLE, " +
  "volume LONG, ts TIMESTAMP) TIMESTAMP(ts) PARTITION BY DAY WAL";

type Bar = {
  symbol: string;
  open: number;
  high: number;
  low: number;
  close: number;
  volume: number;
  ts: bigint;
};

/** The 1-minute bars, replayed per symbol with a small price offset, in timestamp order. */
function loadBars(): Bar[] {
  const file = join(root, "..", "shared", "data", "market", "intraday", "index_2006_1min_with_volume.csv");
  const minutes: Omit<Bar, "symbol">[] = [];
  if (existsSync(file)) {
    for (const line of readFileSync(file, "utf8").split("\n").slice(1)) {
      const f = line.split(",");
      if (f.length < 8) continue;
      const ms = Date.parse(`${f[0]}T${f[1]}Z`);
      minutes.push({ open: +f[2]!, high: +f[3]!, low: +f[4]!, close: +f[5]!, volume: +f[6]!, ts: BigInt(ms) * 1000n });
    }
  } else {
    process.stderr.write(`[bench] ${file} is missing: a synthetic minute series instead\n`);
    const start = Date.UTC(2006, 0, 2, 9);
    for (let i = 0; i < 30_000; i++) {
      const p = 3600 + Math.sin(i / 50) * 20;
      minutes.push({
        open: p,
        high: p + 1,
        low: p - 1,
        close: p + 0.5,
        volume: i % 5000,
        ts: BigInt(start + i * 60_000) * 1000n,
      });
    }
  }
  const bars: Bar[] = [];
  for (const m of minutes) {
    for (let s = 0; s < SYMBOLS; s++) {
      const k = 1 + s / 100;
      bars.push({
        symbol: `IDX${String(s).padStart(2, "0")}`,
        open: m.open * k,
        high: m.high * k,
        low: m.low * k,
        close: m.close * k,
        volume: m.volume + s,
        ts: m.ts + BigInt(s), // distinct microseconds, still in order
      });
    }
  }
  return bars;
}

function* batches<T>(rows: T[]): Generator<T[]> {
  for (let i = 0; i < rows.length; i += BATCH) yield rows.slice(i, i + BATCH);
}

async function questdbUrl(): Promise<string> {
  const given = process.env.CAIRN_TEST_QUESTDB_URL ?? process.env.CAIRN_QUESTDB_URL;
  if (given) return given;
  const r = Bun.spawnSync([join(root, "scripts", "questdb.sh"), "start"], { cwd: root });
  if (r.exitCode !== 0) throw new Error(`scripts/questdb.sh start failed: ${r.stderr.toString()}`);
  const m = /CAIRN_TEST_QUESTDB_URL=(\S+)/.exec(r.stdout.toString());
  if (!m) throw new Error("scripts/questdb.sh printed no URL");
  return m[1]!;
}

const bars = loadBars();
const rows: Row[] = bars; // the same objects on every path
const spec = parseCreateTable(DDL);
const rounds = Math.max(2, Math.min(defaultRounds(), QUICK ? 3 : 5));
process.stderr.write(`[bench] ${bars.length} rows (${SYMBOLS} symbols), ${rounds} rounds per contender\n`);

// ---------------------------------------------------------------- QuestDB: ours vs direct
const qdb = new QuestDbTimeSeries({ url: await questdbUrl(), scope: `b${crypto.randomUUID().slice(0, 8)}` });
const tenant = { tenantId: crypto.randomUUID(), slug: "bench" };
await qdb.ensureNamespace(tenant);
let serial = 0;

/** A fresh table per round, so every round appends to empty partitions alike. */
async function freshQdbTable(): Promise<{ name: string; full: string }> {
  const name = `bars_${++serial}`;
  const s = { ...spec, name };
  await qdb.realtime.create(tenant, s, normaliseDdl(s));
  return { name, full: qdb.qualify(tenant, name) };
}

/** CPU seconds this process spent per contender (our checks and encoding; QuestDB is another process). */
const cpu = { ours: 0, direct: 0, oursRows: 0, directRows: 0 };
function cpuSeconds(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
}

async function ours(): Promise<number> {
  const { name } = await freshQdbTable();
  const c0 = cpuSeconds();
  const t0 = performance.now();
  const { rows: n } = await qdb.realtime.ingest(
    tenant,
    name,
    (async function* () {
      yield* batches(rows);
    })(),
  );
  const ms = performance.now() - t0;
  cpu.ours += cpuSeconds() - c0;
  cpu.oursRows += n;
  if (n !== rows.length) throw new Error(`ours wrote ${n} rows`);
  return ms;
}

async function direct(): Promise<number> {
  const { full } = await freshQdbTable();
  const c0 = cpuSeconds();
  const t0 = performance.now();
  const sender = await Sender.fromConfig(qdb.http.ilpConfig({ auto_flush: "off", request_timeout: 60_000 }));
  for (const batch of batches(bars)) {
    for (const b of batch) {
      sender
        .table(full)
        .symbol("symbol", b.symbol)
        .floatColumn("open", b.open)
        .floatColumn("high", b.high)
        .floatColumn("low", b.low)
        .floatColumn("close", b.close)
        .intColumn("volume", b.volume);
      await sender.at(b.ts, "us");
    }
    await sender.flush();
  }
  await sender.close();
  await qdb.realtime.awaitApplied(full);
  const ms = performance.now() - t0;
  cpu.direct += cpuSeconds() - c0;
  cpu.directRows += bars.length;
  return ms;
}

const q = { ours: [] as number[], direct: [] as number[] };
await direct(); // warm-up: JIT, the HTTP connection, QuestDB's writer pools
await ours();
Object.assign(cpu, { ours: 0, direct: 0, oursRows: 0, directRows: 0 });
for (let i = 0; i < rounds; i++) {
  q.direct.push(await direct());
  q.ours.push(await ours());
}
const rps = (ms: number[]) => (bars.length / summarize(ms).p50) * 1000;
const qOurs = rps(q.ours);
const qDirect = rps(q.direct);
emitPair(
  { bench: "rtdb-ingest/questdb-ours", value: qOurs },
  { bench: "rtdb-ingest/questdb-direct-client", value: qDirect },
  "throughput",
  "rows/s",
);
// Rows per CPU-second of this process: what one core of the service spends per row (checks,
// conversion, ILP encoding, HTTP), independent of how fast QuestDB applies them on this box.
emitPair(
  { bench: "rtdb-ingest/questdb-ours", value: cpu.oursRows / cpu.ours },
  { bench: "rtdb-ingest/questdb-direct-client", value: cpu.directRows / cpu.direct },
  "rows_per_core_second",
  "rows/cpu-s",
);
const overhead = 1 - qOurs / qDirect;
emit({
  bench: "rtdb-ingest/questdb-overhead",
  metric: "overhead",
  value: round(overhead * 100, 1),
  unit: "%",
  peer: "rtdb-ingest/questdb-direct-client",
  ratio: null,
});
process.stderr.write(
  `[bench] QuestDB ours ${Math.round(qOurs)} rows/s vs direct ${Math.round(qDirect)} rows/s: overhead ${round(overhead * 100, 1)}% ` +
    `(target <= ${TARGET_OVERHEAD * 100}%: ${overhead <= TARGET_OVERHEAD ? "met" : "MISSED"})\n`,
);

// --------------------------------------------------------------- QuestDB: SAMPLE BY 1h
const aggTable = qdb.qualify(tenant, `bars_${serial}`);
const sampleBy =
  `SELECT count() FROM (SELECT ts, symbol, first(open), max(high), min(low), last(close), sum(volume) ` +
  `FROM "${aggTable}" SAMPLE BY 1h ALIGN TO CALENDAR)`;
const qAgg: number[] = [];
let qBuckets = 0;
for (let i = 0; i < rounds + 1; i++) {
  const t0 = performance.now();
  const { dataset } = await qdb.http.exec(sampleBy);
  if (i > 0) qAgg.push(performance.now() - t0);
  qBuckets = Number(dataset[0]?.[0]);
}
await qdb.dropNamespace(tenant);
await qdb.close();

// ------------------------------------------------------------- embedded DuckDB: ours vs bare appender
const dir = mkdtempSync(join(tmpdir(), "cairn-bench-rtdb-"));
try {
  const duck = new DuckDbTimeSeries({ dataDir: dir });
  await duck.ensureNamespace(tenant);
  // The bare appender writes a file of its own (the adapter holds its file open): no row
  // checks, hard-coded column order, the same batches and one transaction per batch.
  const inst = await DuckDBInstance.create(join(dir, "bare.duckdb"));
  const conn = await inst.connect();
  let n = 0;
  const duckOurs = async () => {
    const s = { ...spec, name: `bars_${++n}` };
    await duck.realtime.create(tenant, s, normaliseDdl(s));
    const t0 = performance.now();
    await duck.realtime.ingest(tenant, s.name, rows);
    return performance.now() - t0;
  };
  const duckBare = async () => {
    const name = `raw_${++n}`;
    await conn.run(
      `CREATE TABLE "${name}" (symbol VARCHAR, open DOUBLE, high DOUBLE, low DOUBLE, close DOUBLE, volume BIGINT, ts TIMESTAMP NOT NULL)`,
    );
    const t0 = performance.now();
    for (const batch of batches(bars)) {
      await conn.run("BEGIN TRANSACTION");
      const a = await conn.createAppender(name);
      for (const b of batch) {
        a.appendVarchar(b.symbol);
        a.appendDouble(b.open);
        a.appendDouble(b.high);
        a.appendDouble(b.low);
        a.appendDouble(b.close);
        a.appendBigInt(BigInt(b.volume));
        a.appendTimestamp(new DuckDBTimestampValue(b.ts));
        a.endRow();
      }
      a.flushSync();
      a.closeSync();
      await conn.run("COMMIT");
    }
    return performance.now() - t0;
  };
  const d = { ours: [] as number[], direct: [] as number[] };
  await duckOurs();
  await duckBare();
  for (let i = 0; i < rounds; i++) {
    d.direct.push(await duckBare());
    d.ours.push(await duckOurs());
  }
  emitPair(
    { bench: "rtdb-ingest/duckdb-ours", value: rps(d.ours) },
    { bench: "rtdb-ingest/duckdb-bare-appender", value: rps(d.direct) },
    "throughput",
    "rows/s",
  );
  await duck.close();

  // DuckDB's SAMPLE BY: 1-hour buckets with time_bucket, first/last by timestamp, on the last
  // table our path wrote (the adapter is closed, so its file can be opened here).
  const ours = await DuckDBInstance.create(join(dir, "timeseries.duckdb"));
  const oconn = await ours.connect();
  const dAgg: number[] = [];
  let dBuckets = 0;
  for (let i = 0; i < rounds + 1; i++) {
    const t0 = performance.now();
    dBuckets = await countBuckets(oconn, `"${duck.namespaceOf(tenant)}"."bars_${n}"`);
    if (i > 0) dAgg.push(performance.now() - t0);
  }
  oconn.closeSync();
  ours.closeSync();
  conn.closeSync();
  inst.closeSync();
  if (dBuckets !== qBuckets) throw new Error(`buckets differ: DuckDB ${dBuckets}, QuestDB ${qBuckets}`);
  emitPair(
    { bench: "rtdb-agg/duckdb-time-bucket-1h", value: rps(dAgg) },
    { bench: "rtdb-agg/questdb-sample-by-1h", value: rps(qAgg) },
    "scan",
    "rows/s",
  );
  for (const [bench, ms] of [
    ["rtdb-agg/questdb-sample-by-1h", qAgg],
    ["rtdb-agg/duckdb-time-bucket-1h", dAgg],
  ] as const) {
    emit({ bench, metric: "latency_p50", value: round(summarize(ms).p50, 1), unit: "ms", peer: null, ratio: null });
  }
  process.stderr.write(`[bench] ${qBuckets} hourly OHLCV buckets on both engines\n`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}

async function countBuckets(conn: DuckDBConnection, table: string): Promise<number> {
  const reader = await conn.runAndReadAll(
    `SELECT count(*) AS n FROM (
       SELECT time_bucket(INTERVAL 1 hour, ts) AS bucket, symbol, arg_min(open, ts), max(high), min(low),
              arg_max(close, ts), sum(volume)
         FROM ${table} GROUP BY ALL)`,
  );
  return Number(reader.getRowObjects()[0]?.n);
}
