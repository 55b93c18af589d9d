/**
 * Foundry dataset build time (issue 15): a 1M-row join built by the lab gateway on DuckDB
 * and on Spark (same Iceberg catalog), against the ceiling, a bare DuckDB
 * `CREATE TABLE ... AS <the same DuckDB SELECT>` run in-process (@duckdb/node-api) over the
 * very Parquet data files of the two Iceberg tables.
 *
 * Data (seeded, deterministic): `trades` (id long, account_id long in 0..9999, amount double,
 * ts timestamp, side string), `accounts` (account_id long, region string, risk double, 10,000
 * rows), written through the gateway (LakehousePort.write, JSON batches of 100,000 rows).
 * Spec: trades LEFT JOIN accounts ON account_id WHERE amount > 250, compiled by
 * compileDataset; the build request carries no feature relations.
 *
 * What each side times:
 * - gateway/duckdb: POST /foundry/build on the DuckDB gateway, i.e. Iceberg scan to Arrow,
 *   the DuckDB SELECT, Parquet write and one catalog commit (plus HTTP and JSON).
 * - gateway/spark: the same request on the Spark gateway sharing the catalog (Spark SQL over
 *   the Iceberg tables, createOrReplace in one commit).
 * - ceiling: read_parquet of the same data files -> CREATE OR REPLACE TABLE in an in-memory
 *   DuckDB (no Iceberg, no write-back, no HTTP). The same engine and SQL, so the ratio is
 *   the price of the lakehouse round trip. A second line, ceiling+parquet, adds
 *   `COPY ... TO` a Parquet file, the bare cost of writing the result back out.
 *
 * Each side: one warm-up, then BENCH_ROUNDS (default 3) timed runs; one JSON line per side
 * (runner.ts format plus median_ms, min_ms, rows, rounds). Nothing asserts on timings; the
 * run fails only when a side's row count disagrees with the ceiling's.
 *
 *   node_modules/.bin/bun bench/foundry-build.ts [--rows N] [--no-spark]
 *   (BENCH_QUICK=1: 100,000 rows)
 */
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { FoundryLabClient } from "../adapters/lakehouse/foundry-client.ts";
import { GatewayLakehouse } from "../adapters/lakehouse/gateway-client.ts";
import type { DatasetBuildRequest, DatasetBuildResult } from "../domain/foundry/ports.ts";
import { compileDataset } from "../domain/foundry/sql.ts";
import type { LakehouseColumn } from "../domain/lakehouse/ports.ts";
import { type GatewayHandle, startGateway } from "../test/lakehouse.ts";
import { prng } from "../test/prng.ts";
import { type BenchLine, QUICK, round, summarize, timeIt } from "./runner.ts";

const SEED = 15;
const ACCOUNTS = 10_000;
const BATCH = 100_000;
const AMOUNT_MIN = 250;
const REGIONS = ["emea", "amer", "apac", "latam"];
const T0 = Date.parse("2024-01-01T00:00:00Z");

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

const ROWS = Number(arg("--rows") ?? (QUICK ? 100_000 : 1_000_000));
if (!Number.isInteger(ROWS) || ROWS < 1) throw new Error(`--rows must be a positive integer, got ${arg("--rows")}`);
const WITH_SPARK = !process.argv.includes("--no-spark");
const ROUNDS = (() => {
  const env = Number(process.env.BENCH_ROUNDS);
  return Number.isInteger(env) && env > 0 ? env : 3;
})();

const TRADE_COLUMNS: LakehouseColumn[] = [
  { name: "id", type: "long" },
  { name: "account_id", type: "long" },
  { name: "amount", type: "double" },
  { name: "ts", type: "timestamp" },
  { name: "side", type: "string" },
];
const ACCOUNT_COLUMNS: LakehouseColumn[] = [
  { name: "account_id", type: "long" },
  { name: "region", type: "string" },
  { name: "risk", type: "double" },
];

/** Trades [from, to): amounts 0..1000 (two decimals), one trade every 7 s from 2024-01-01. */
function tradeRows(rand: ReturnType<typeof prng>, from: number, to: number): unknown[][] {
  const rows: unknown[][] = [];
  for (let id = from; id < to; id++) {
    rows.push([
      id,
      rand.int(ACCOUNTS),
      Math.round(rand.next() * 100_000) / 100,
      new Date(T0 + id * 7_000).toISOString(),
      rand.bool() ? "buy" : "sell",
    ]);
  }
  return rows;
}

function accountRows(rand: ReturnType<typeof prng>): unknown[][] {
  const rows: unknown[][] = [];
  // Account ids 0..9989 exist: the last ten have trades but no account (the LEFT JOIN keeps them).
  for (let id = 0; id < ACCOUNTS - 10; id++) rows.push([id, rand.pick(REGIONS), Math.round(rand.next() * 1e4) / 1e4]);
  return rows;
}

/** Every *.parquet under dir (an Iceberg table's data folder). */
function parquetFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...parquetFiles(p));
    else if (name.endsWith(".parquet")) out.push(p);
  }
  return out.sort();
}

function sqlString(s: string): string {
  return `'${s.replaceAll("'", "''")}'`;
}

interface Side {
  bench: string;
  samples: number[];
  rows: number;
  note: string;
}

function line(side: Side, ceiling: Side | null): BenchLine & Record<string, unknown> {
  const s = summarize(side.samples);
  const ceil = ceiling ? summarize(ceiling.samples).p50 : null;
  return {
    bench: side.bench,
    metric: "build_time",
    value: round(s.p50, 1),
    unit: "ms",
    peer: ceiling ? ceiling.bench : null,
    ratio: ceil ? round(s.p50 / ceil, 2) : null,
    median_ms: round(s.p50, 1),
    min_ms: round(s.min, 1),
    rows: side.rows,
    source_rows: ROWS,
    rounds: side.samples.length,
    note: side.note,
  };
}

/** One warm-up, then ROUNDS timed runs; every run must give the same row count. */
async function measure(run: () => Promise<number>): Promise<{ samples: number[]; rows: number }> {
  const rows = await run();
  const samples: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    let n = 0;
    samples.push(
      await timeIt(async () => {
        n = await run();
      }),
    );
    if (n !== rows) throw new Error(`row count changed between runs: ${rows} then ${n}`);
  }
  return { samples, rows };
}

function log(msg: string): void {
  process.stderr.write(`[foundry-build] ${msg}\n`);
}

async function main(): Promise<void> {
  const duck = await startGateway({ engine: "duckdb" });
  if (!duck) throw new Error("the lab venv is required (scripts/setup.sh --lab)");
  let spark: GatewayHandle | undefined;
  const scratch = mkdtempSync(join(tmpdir(), "cairn-foundry-bench-"));
  try {
    const lake = new GatewayLakehouse({ url: duck.url, longTimeoutMs: 600_000 });
    const ns = await lake.ensureNamespace({ tenantId: "bench-foundry", slug: "benchfoundry" });

    // -- data ------------------------------------------------------------------------------
    const tLoad = performance.now();
    const rand = prng(SEED);
    await lake.write(ns, "accounts", { mode: "overwrite", columns: ACCOUNT_COLUMNS, rows: accountRows(rand) });
    for (let from = 0; from < ROWS; from += BATCH) {
      const to = Math.min(ROWS, from + BATCH);
      await lake.write(ns, "trades", {
        mode: from === 0 ? "overwrite" : "append",
        columns: TRADE_COLUMNS,
        rows: tradeRows(rand, from, to),
      });
    }
    log(`wrote ${ROWS} trades and ${ACCOUNTS - 10} accounts in ${Math.round(performance.now() - tLoad)} ms`);

    // -- the build request -------------------------------------------------------------------
    const lab = (url: string) =>
      new FoundryLabClient(new GatewayLakehouse({ url, longTimeoutMs: 600_000 }), { url, buildTimeoutMs: 600_000 });
    const schemas = await lab(duck.url).schemas(ns);
    const spec = {
      name: "bench trades join",
      source_tables: [
        { table: "trades", alias: "t", columns: ["id", "account_id", "amount", "ts", "side"] },
        { table: "accounts", alias: "a", columns: ["region", "risk"] },
      ],
      joins: [{ left_table: "t", right_table: "a", left_col: "account_id", right_col: "account_id" }],
      filters: [{ column: "t.amount", op: ">", value: String(AMOUNT_MIN) }],
    };
    const compiled = compileDataset(spec, { namespace: ns, output_table: "foundry_bench_join", schemas });
    const request = (output_table: string): DatasetBuildRequest => ({
      namespace: ns,
      output_table,
      select: compiled.select,
      tables: compiled.tables,
      relations: [],
      snapshot_properties: { bench: "foundry-build" },
    });
    log(`duckdb SELECT: ${compiled.select.duckdb.replaceAll("\n", " ")}`);

    // -- ceiling: bare DuckDB over the same Parquet files ------------------------------------
    const files = (table: string) => {
      const dir = [`${ns}.db`, ns].map((d) => join(duck.dir, "warehouse", d, table)).find((d) => existsSync(d));
      if (!dir) throw new Error(`no data folder for ${ns}.${table} under ${duck.dir}/warehouse`);
      return parquetFiles(dir).filter((f) => f.includes("/data/"));
    };
    const db = await DuckDBInstance.create(":memory:");
    const con = await db.connect();
    await con.run(`CREATE SCHEMA "${ns}"`);
    for (const table of compiled.tables) {
      const list = files(table).map(sqlString).join(", ");
      await con.run(`CREATE VIEW "${ns}"."${table}" AS SELECT * FROM read_parquet([${list}])`);
    }
    const count = async (sql: string) => Number((await con.runAndReadAll(sql)).getRows()[0]?.[0]);
    const seen = await count(`SELECT count(*) FROM "${ns}"."trades"`);
    if (seen !== ROWS) throw new Error(`the trades data files hold ${seen} rows, expected ${ROWS}`);
    const ceiling: Side = {
      bench: "foundry-build/ceiling-duckdb-ctas",
      ...(await measure(async () => {
        await con.run(`CREATE OR REPLACE TABLE main.out AS ${compiled.select.duckdb}`);
        return count("SELECT count(*) FROM main.out");
      })),
      note: "@duckdb/node-api in-process, in-memory CREATE TABLE AS over read_parquet of the Iceberg data files",
    };
    log(`ceiling done: ${ceiling.rows} rows`);
    const outFile = join(scratch, "out.parquet");
    const ceilingParquet: Side = {
      bench: "foundry-build/ceiling-duckdb-parquet",
      ...(await measure(async () => {
        await con.run(`COPY (${compiled.select.duckdb}) TO ${sqlString(outFile)} (FORMAT parquet)`);
        return count(`SELECT count(*) FROM read_parquet(${sqlString(outFile)})`);
      })),
      note: "the same, writing the result to one Parquet file (COPY ... TO) instead of a memory table",
    };
    con.closeSync();
    db.closeSync();

    // -- the gateways --------------------------------------------------------------------------
    const build = async (url: string, table: string, engine: string) => {
      const res: DatasetBuildResult = await lab(url).build(request(table));
      if (res.engine !== engine) throw new Error(`expected a ${engine} build, got ${res.engine}`);
      return res.rows;
    };
    const onDuck: Side = {
      bench: "foundry-build/gateway-duckdb",
      ...(await measure(() => build(duck.url, "foundry_bench_duckdb", "duckdb"))),
      note: "POST /foundry/build: Iceberg scan -> DuckDB SELECT -> Parquet + one Iceberg commit",
    };
    log(`gateway duckdb done: ${onDuck.rows} rows`);
    const sides = [ceilingParquet, onDuck];
    if (WITH_SPARK) {
      const tStart = performance.now();
      spark = await startGateway({ engine: "spark", dir: duck.dir });
      if (!spark) throw new Error("the Spark gateway did not start");
      log(`spark gateway up in ${Math.round(performance.now() - tStart)} ms`);
      sides.push({
        bench: "foundry-build/gateway-spark",
        ...(await measure(() => build((spark as GatewayHandle).url, "foundry_bench_spark", "spark"))),
        note: "POST /foundry/build on the Spark gateway (same catalog): Spark SQL -> createOrReplace",
      });
    }

    process.stdout.write(`${JSON.stringify(line(ceiling, null))}\n`);
    for (const side of sides) {
      if (side.rows !== ceiling.rows) {
        throw new Error(`${side.bench} built ${side.rows} rows, the ceiling ${ceiling.rows}`);
      }
      process.stdout.write(`${JSON.stringify(line(side, ceiling))}\n`);
    }
  } finally {
    await spark?.stop();
    await duck.stop();
    rmSync(scratch, { recursive: true, force: true });
  }
}

await main();
