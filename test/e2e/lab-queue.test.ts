/**
 * Cross-language: the service enqueues, the Python lab worker (lab.worker --once)
 * consumes, and the service sees the outcome. Runs on the embedded queue (shared
 * SQLite file) and on BullMQ (shared Redis prefix).
 */
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BullJobQueue, EmbeddedJobQueue, JOB_QUEUE_MIGRATIONS } from "../../adapters/queue/index.ts";
import { migrate, SqliteClient } from "../../adapters/sql/index.ts";
import type { JobEvent } from "../../domain/ports.ts";
import { engineUrl, uniqueName } from "../engines.ts";

const LAB = join(import.meta.dir, "../../lab");
const PYTHON = join(LAB, ".venv/bin/python");

function labAvailable(): boolean {
  if (existsSync(PYTHON)) return true;
  const hint = "cd lab && python3 -m venv .venv && .venv/bin/pip install -e '.[queue,dev]'";
  if (process.env.CI) throw new Error(`lab/.venv is missing: the lab queue e2e must run under CI (${hint})`);
  process.stderr.write(`[skip] lab queue e2e: lab/.venv is missing (${hint})\n`);
  return false;
}

/** Runs `python -m lab.worker ... --once`; resolves with its stderr, rejects on a non-zero exit. */
async function runLabWorker(args: string[]): Promise<string> {
  const proc = Bun.spawn([PYTHON, "-m", "lab.worker", ...args, "--once"], {
    cwd: LAB,
    stdout: "pipe",
    stderr: "pipe",
    env: { ...process.env, PYTHONUNBUFFERED: "1" },
  });
  const timer = setTimeout(() => proc.kill("SIGKILL"), 20_000);
  const [code, stderr] = await Promise.all([proc.exited, new Response(proc.stderr).text()]);
  clearTimeout(timer);
  if (code !== 0) throw new Error(`lab worker exited ${code}: ${stderr}`);
  return stderr;
}

if (labAvailable()) {
  describe("lab consumes the service's queue", () => {
    const dir = mkdtempSync(join(tmpdir(), "cairn-labq-"));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    test("embedded queue on SQLite", async () => {
      const path = join(dir, "cp.sqlite");
      const sql = new SqliteClient(path);
      await migrate(sql, JOB_QUEUE_MIGRATIONS);
      const q = new EmbeddedJobQueue(sql);
      try {
        const queue = uniqueName("lab");
        const job = await q.enqueue(queue, "sum", { values: [1, 2, 3, 4] });
        const stderr = await runLabWorker(["--queue", queue, "--sqlite", path]);
        expect(stderr).toContain('"jobs_run": 1');
        const done = await q.getJob(queue, job.id);
        expect(done).toMatchObject({ status: "completed", result: 10, progress: 50, attemptsMade: 1, error: null });
        expect(new Date(done?.finishedAt ?? "").toISOString()).toBe(done?.finishedAt ?? "");
      } finally {
        await q.close();
        await sql.close();
      }
    }, 30_000);

    const redis = engineUrl("redis");
    if (redis) {
      test("BullMQ queue on Redis", async () => {
        const prefix = uniqueName("cairnlab");
        const q = new BullJobQueue({ url: redis, prefix });
        const queue = uniqueName("lab");
        const events: JobEvent[] = [];
        const off = q.onEvent(queue, (e) => events.push(e));
        try {
          const job = await q.enqueue(queue, "sum", { values: [5, 6.5] });
          await runLabWorker(["--queue", queue, "--redis", redis, "--prefix", prefix]);
          expect(await q.getJob(queue, job.id)).toMatchObject({ status: "completed", result: 11.5, progress: 50 });
          // Events written by the Python worker reach listeners in this process.
          const deadline = Date.now() + 5000;
          while (!events.some((e) => e.type === "completed") && Date.now() < deadline) await Bun.sleep(20);
          expect(events).toEqual([
            { type: "progress", queue, jobId: job.id, progress: 50 },
            { type: "completed", queue, jobId: job.id, result: 11.5 },
          ]);
        } finally {
          off();
          await q.close();
          const { default: Redis } = await import("ioredis");
          const client = new Redis(redis);
          const keys = await client.keys(`${prefix}:*`);
          if (keys.length > 0) await client.del(...keys);
          await client.quit();
        }
      }, 30_000);
    }
  });
}
