/**
 * Tiering throughput (issue 8 item 5): rows/s and partitions/s through the crash-safe
 * pipeline (claim, export to staging, read-back verification, atomic publish, state writes,
 * drop) against the ceiling, a bare DuckDB `COPY ... TO parquet` of the same partitions
 * with nothing else, on the embedded profile (DuckDB, SQLite control plane, local directory).
 * Each round tiers a fresh copy of the same database, so both contenders do identical work.
 *
 * Rows: the real 1-minute index bars of 2006 (../shared/data/market/intraday), replayed for
 * several symbols (DAY partitions, one per trading day).
 *
 *   node_modules/.bin/bun bench/rtdb-tiering.ts      (BENCH_QUICK=1 for a short smoke run)
 */
import { cpSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { runTiering } from "../pipelines/rtdb/tiering/pipeline.ts";
import { addTenant, type Bar, loadBars, openTieringEnv, readIntradayBars } from "../test/fixtures/rtdb-tiering.ts";
import { defaultRounds, emitPair, QUICK, summarize } from "./runner.ts";

const FILE = join(
  import.meta.dir,
  "..",
  "..",
  "shared",
  "data",
  "market",
  "intraday",
  "index_2006_1min_with_volume.csv",
);
const SYMBOLS = QUICK ? 2 : 8;
const NOW = new Date("2007-01-01T00:00:00Z");

function minuteBars(): Bar[] {
  if (!existsSync(FILE)) throw new Error(`${FILE} is missing (the shared market data)`);
  return readIntradayBars(FILE);
}

async function main(): Promise<void> {
  const base = mkdtempSync(join(tmpdir(), "cairn-bench-tier-"));
  const scratch: string[] = [base];
  try {
    const env = await openTieringEnv(base);
    const t = await addTenant(env, "bench");
    const bars = minuteBars();
    // One symbol per load: loadBars creates the table once and appends.
    for (let s = 0; s < SYMBOLS; s++) {
      await loadBars(
        env.ts.realtime,
        t,
        `IDX${s}`,
        bars.map((b) => ({ ...b, close: b.close + s })),
      );
    }
    const partitions = await env.ts.realtime.partitions(t, "bars");
    const rows = partitions.reduce((n, p) => n + p.rows, 0);
    const ns = env.ts.namespaceOf(t);
    await env.close();

    const fresh = () => {
      const dir = mkdtempSync(join(tmpdir(), "cairn-bench-tier-"));
      scratch.push(dir);
      cpSync(base, dir, { recursive: true });
      return dir;
    };
    const pipeline: number[] = [];
    const bare: number[] = [];
    const rounds = defaultRounds();
    for (let i = 0; i < rounds + 1; i++) {
      // The pipeline, end to end.
      {
        const run = await openTieringEnv(fresh());
        const t0 = performance.now();
        const out = await runTiering(run.deps({ now: () => NOW }));
        const ms = performance.now() - t0;
        if (out.failures.length > 0 || out.rows_tiered !== rows) throw new Error(`tiering run: ${JSON.stringify(out)}`);
        await run.close();
        if (i > 0) pipeline.push(ms);
      }
      // The ceiling: COPY each partition to Parquet, nothing else.
      {
        const dir = fresh();
        const inst = await DuckDBInstance.create(join(dir, "timeseries.duckdb"), { threads: "1" });
        const conn = await inst.connect();
        const t0 = performance.now();
        for (const p of partitions) {
          await conn.run(
            `COPY (SELECT * FROM "${ns}".bars WHERE ts >= TIMESTAMP '${p.from.slice(0, 19).replace("T", " ")}'
                     AND ts < TIMESTAMP '${p.to.slice(0, 19).replace("T", " ")}' ORDER BY ts)
               TO '${join(dir, `${p.partition}.parquet`)}' (FORMAT parquet, COMPRESSION zstd)`,
          );
        }
        const ms = performance.now() - t0;
        conn.closeSync();
        inst.closeSync();
        if (i > 0) bare.push(ms);
      }
    }
    const p50 = (xs: number[]) => summarize(xs).p50 / 1000;
    emitPair(
      { bench: "rtdb-tiering/pipeline", value: rows / p50(pipeline) },
      { bench: "rtdb-tiering/bare-copy", value: rows / p50(bare) },
      "throughput",
      "rows/s",
    );
    emitPair(
      { bench: "rtdb-tiering/pipeline", value: partitions.length / p50(pipeline) },
      { bench: "rtdb-tiering/bare-copy", value: partitions.length / p50(bare) },
      "throughput",
      "partitions/s",
    );
  } finally {
    for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
  }
}

await main();
