/**
 * Embedded-queue rules the contract suite does not reach: the lab's copy of the DDL,
 * lease renewal, a crash on the last attempt, option checks and pruning.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { JobEvent } from "../../domain/ports.ts";
import { migrate, SqliteClient } from "../sql/index.ts";
import { EmbeddedJobQueue } from "./embedded.ts";
import { iso, JOB_QUEUE_MIGRATIONS, JobsTable, LEASE_LOST_ERROR } from "./embedded-store.ts";

const LAB_DDL = join(import.meta.dir, "../../lab/src/lab/jobs/jobs_sqlite.sql");

function normalise(sql: string): string {
  return sql
    .split("\n")
    .filter((l) => !l.trim().startsWith("--"))
    .join(" ")
    .replace(/\s+/g, " ")
    .trim();
}

async function until(what: string, fn: () => Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await fn())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(10);
  }
}

describe("embedded job queue", () => {
  let dir: string;
  let sql: SqliteClient;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), "cairn-embq-"));
    sql = new SqliteClient(join(dir, "cp.sqlite"));
    await migrate(sql, JOB_QUEUE_MIGRATIONS);
  });
  afterEach(async () => {
    await sql.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test("the lab's copy of the SQLite DDL matches the migrations", () => {
    const ours = JOB_QUEUE_MIGRATIONS.map((m) => m.sqlite).join("\n");
    expect(normalise(readFileSync(LAB_DDL, "utf8"))).toBe(normalise(ours));
  });

  test("migrations are idempotent", async () => {
    expect(await migrate(sql, JOB_QUEUE_MIGRATIONS)).toEqual([]);
  });

  test("a running job's lease is renewed, so another instance does not take it", async () => {
    const a = new EmbeddedJobQueue(sql, { leaseMs: 60, pollMs: 10 });
    const b = new EmbeddedJobQueue(sql, { leaseMs: 60, pollMs: 10 });
    let runs = 0;
    const handler = async (): Promise<string> => {
      runs++;
      await Bun.sleep(300); // five lease lengths
      return "once";
    };
    a.work("long", handler);
    const job = await a.enqueue("long", "slow", null);
    await until("job to start", async () => runs === 1);
    b.work("long", handler);
    await until("job to complete", async () => (await a.getJob("long", job.id))?.status === "completed");
    await Promise.all([a.close(), b.close()]);
    expect(runs).toBe(1);
    expect((await a.getJob("long", job.id))?.attemptsMade).toBe(1);
  });

  test("a job abandoned on its last attempt is failed, with an event, instead of run again", async () => {
    const q = new EmbeddedJobQueue(sql, { leaseMs: 50, pollMs: 10 });
    const job = await q.enqueue("lost", "echo", {}, { attempts: 1 });
    const table = new JobsTable(sql);
    const { claimed } = await table.claim("lost", 1, "dead-worker#1", Date.now(), 50);
    expect(claimed.map((r) => r.id)).toEqual([job.id]);
    const events: JobEvent[] = [];
    q.onEvent("lost", (e) => events.push(e));
    let runs = 0;
    const w = q.work("lost", async () => {
      runs++;
      return null;
    });
    await until("lost job to fail", async () => (await q.getJob("lost", job.id))?.status === "failed");
    await w.close();
    await q.close();
    expect(runs).toBe(0);
    expect((await q.getJob("lost", job.id))?.error).toBe(LEASE_LOST_ERROR);
    expect(events).toEqual([
      { type: "failed", queue: "lost", jobId: job.id, error: LEASE_LOST_ERROR, willRetry: false },
    ]);
  });

  test("a delayed job waits for its time", async () => {
    const q = new EmbeddedJobQueue(sql, { leaseMs: 1000, pollMs: 1000 });
    let ranAt = 0;
    q.work("later", async () => {
      ranAt = Date.now();
      return null;
    });
    const start = Date.now();
    const job = await q.enqueue("later", "echo", null, { delayMs: 150 });
    expect(job.status).toBe("delayed");
    // The worker learns the due time from the enqueue, so it does not wait a full poll.
    await until("delayed job to run", async () => ranAt > 0, 900);
    await q.close();
    expect(ranAt - start).toBeGreaterThanOrEqual(140);
  });

  test("bad options and oversized payloads are refused", async () => {
    const q = new EmbeddedJobQueue(sql, { maxPayloadBytes: 64 });
    await expect(q.enqueue("q", "echo", "x".repeat(100))).rejects.toThrow("exceeds 64 bytes");
    await expect(q.enqueue("q", "echo", null, { attempts: 0 })).rejects.toThrow("attempts");
    await expect(q.enqueue("bad queue", "echo", null)).rejects.toThrow("queue name");
    await expect(q.enqueue("q", "echo", null, { jobId: "a:b" })).rejects.toThrow("':'");
    expect(() => q.work("q", async () => null, { concurrency: 0 })).toThrow("concurrency");
    expect(() => new EmbeddedJobQueue(sql, { leaseMs: 1 })).toThrow("leaseMs");
    await q.close();
    await expect(q.enqueue("q", "echo", null)).rejects.toThrow("closed");
  });

  test("finished jobs past retention are pruned; others stay", async () => {
    const q = new EmbeddedJobQueue(sql);
    const old = await q.enqueue("prune", "echo", null);
    const fresh = await q.enqueue("prune", "echo", null);
    const waiting = await q.enqueue("prune", "echo", null);
    await sql.run("UPDATE jobs SET status = 'completed', finished_at = ? WHERE id = ?", [
      iso(Date.now() - 10_000),
      old.id,
    ]);
    await sql.run("UPDATE jobs SET status = 'completed', finished_at = ? WHERE id = ?", [iso(Date.now()), fresh.id]);
    expect(await new JobsTable(sql).prune("prune", Date.now() - 5_000)).toBe(1);
    expect(await q.getJob("prune", old.id)).toBeNull();
    expect(await q.getJob("prune", fresh.id)).not.toBeNull();
    expect(await q.getJob("prune", waiting.id)).not.toBeNull();
    await q.close();
  });
});
