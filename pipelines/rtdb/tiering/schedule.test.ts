import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EmbeddedJobQueue, JOB_QUEUE_MIGRATIONS } from "../../../adapters/queue/index.ts";
import { migrate } from "../../../adapters/sql/index.ts";
import { ConfigError, loadConfig } from "../../../config.ts";
import {
  addTenant,
  loadBars,
  openTieringEnv,
  quietLogger,
  type TieringEnv,
} from "../../../test/fixtures/rtdb-tiering.ts";
import { RTDB_TIERING_QUEUE, type TieringOutcome } from "./pipeline.ts";
import { makeTieringHandler, TieringScheduler } from "./schedule.ts";

describe("tiering schedule", () => {
  let dir: string;
  let env: TieringEnv;
  let queue: EmbeddedJobQueue;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), "cairn-tier-sched-"));
    env = await openTieringEnv(dir);
    await migrate(env.store.sql, JOB_QUEUE_MIGRATIONS);
    queue = new EmbeddedJobQueue(env.store.sql, { pollMs: 20, logger: { ...quietLogger, error: () => {} } });
  });
  afterEach(async () => {
    await queue.close();
    await env.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test("instances ticking in the same interval enqueue one job; the next interval gets its own", async () => {
    let now = 1_700_000_000_500;
    const opts = { intervalMs: 60_000, logger: quietLogger, now: () => now };
    const a = new TieringScheduler(queue, opts);
    const b = new TieringScheduler(queue, opts);
    await a.tick();
    await b.tick();
    const id = a.jobIdAt(now);
    expect(id).toBe(`rtdb-tiering-${Math.floor(now / 60_000)}`);
    expect((await queue.getJob(RTDB_TIERING_QUEUE, id))?.status).toBe("waiting");
    now += 60_000;
    await b.tick();
    expect(a.jobIdAt(now)).not.toBe(id);
    expect(await queue.getJob(RTDB_TIERING_QUEUE, a.jobIdAt(now))).not.toBeNull();
    a.close();
    b.close();
    // Only the two interval jobs exist.
    const rows = await env.store.sql.all<{ n: number }>("SELECT count(*) AS n FROM jobs WHERE queue = ?", [
      RTDB_TIERING_QUEUE,
    ]);
    expect(Number(rows[0]?.n)).toBe(2);
  });

  test("the queued job runs a tiering pass and stores its outcome", async () => {
    const t = await addTenant(env, `sched-${crypto.randomUUID().slice(0, 6)}`);
    const bars = ["2020-01-06", "2020-01-07", "2020-01-08"].map((day, i) => ({
      ts: `${day}T15:00:00Z`,
      open: i,
      high: i,
      low: i,
      close: i,
      volume: i,
    }));
    await loadBars(env.ts.realtime, t, "X", bars);
    const worker = queue.work(RTDB_TIERING_QUEUE, makeTieringHandler(env.deps()), { concurrency: 1 });
    try {
      const sched = new TieringScheduler(queue, { intervalMs: 3_600_000, logger: quietLogger });
      await sched.tick();
      sched.close();
      const id = sched.jobIdAt(Date.now());
      const deadline = Date.now() + 20_000;
      let job = await queue.getJob(RTDB_TIERING_QUEUE, id);
      while (job?.status !== "completed" && Date.now() < deadline) {
        await Bun.sleep(50);
        job = await queue.getJob(RTDB_TIERING_QUEUE, id);
      }
      expect(job?.status).toBe("completed");
      expect(job?.result as TieringOutcome).toMatchObject({ tenants: 1, tables: 1, parts_tiered: 3, rows_tiered: 3 });
      expect(await env.ts.realtime.partitions(t, "bars")).toEqual([]);
    } finally {
      await worker.close();
    }
  });

  test("configuration: hourly by default, 0 turns the schedule off; the object store is a directory or an s3:// bucket", () => {
    const base = { CAIRN_DATA_DIR: dir };
    const cfg = loadConfig(base);
    expect(cfg.tiering).toEqual({ intervalMs: 3_600_000 });
    expect(cfg.objectStore).toEqual({ kind: "local", dir: join(dir, "lakehouse", "objects") });
    expect(loadConfig({ ...base, CAIRN_TIERING_INTERVAL_MS: "0" }).tiering.intervalMs).toBe(0);
    expect(loadConfig({ ...base, CAIRN_OBJECT_STORE_DIR: "/srv/objects" }).objectStore).toEqual({
      kind: "local",
      dir: "/srv/objects",
    });
    expect(
      loadConfig({
        ...base,
        CAIRN_OBJECT_STORE_URL: "s3://lake-bucket/cairn/prod/",
        CAIRN_S3_ENDPOINT: "http://minio.local:9000",
        CAIRN_S3_ACCESS_KEY_ID: "AKIA",
        CAIRN_S3_SECRET_ACCESS_KEY: "secret-secret",
      }).objectStore,
    ).toEqual({
      kind: "s3",
      bucket: "lake-bucket",
      prefix: "cairn/prod",
      endpoint: "http://minio.local:9000",
      region: "us-east-1",
      accessKeyId: "AKIA",
      secretAccessKey: "secret-secret",
      cacheDir: join(dir, "object-cache"),
    });
    expect(() => loadConfig({ ...base, CAIRN_OBJECT_STORE_URL: "s3://Bad_Bucket/x" })).toThrow(
      /CAIRN_OBJECT_STORE_URL/,
    );
    expect(() => loadConfig({ ...base, CAIRN_OBJECT_STORE_URL: "https://bucket/x" })).toThrow(/CAIRN_OBJECT_STORE_URL/);
    expect(() => loadConfig({ ...base, CAIRN_TIERING_INTERVAL_MS: "500" })).toThrow(ConfigError);
    expect(() => loadConfig({ ...base, CAIRN_TIERING_INTERVAL_MS: "500" })).toThrow(/CAIRN_TIERING_INTERVAL_MS/);
    expect(() => new TieringScheduler(queue, { intervalMs: 10, logger: quietLogger })).toThrow();
  });
});
