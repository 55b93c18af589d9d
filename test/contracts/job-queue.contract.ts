/**
 * Contract suite for JobQueue: runs unchanged against every adapter. Each test uses
 * its own queue name, so tests never see each other's jobs.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { JobEvent, JobInfo, JobQueue, JobStatus } from "../../domain/ports.ts";
import { uniqueName } from "../engines.ts";

export interface JobQueueFixture {
  /** A new queue instance over the same store, as a freshly started process would open it. */
  open(): Promise<JobQueue>;
  /**
   * Arguments for job-queue.child.ts so that another process opens the same store with
   * the fixture's short lease / lock duration.
   */
  childArgs: string[];
  cleanup(): Promise<void>;
}

const CHILD = join(import.meta.dir, "job-queue.child.ts");

async function waitFor<T>(what: string, fn: () => Promise<T | undefined | null | false>, timeoutMs = 8000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(20);
  }
}

function waitForStatus(
  q: JobQueue,
  queue: string,
  id: string,
  status: JobStatus,
  timeoutMs?: number,
): Promise<JobInfo> {
  return waitFor(
    `${queue}/${id} to be ${status}`,
    async () => {
      const j = await q.getJob(queue, id);
      return j?.status === status ? j : undefined;
    },
    timeoutMs,
  );
}

/** Reads a child's stdout until `text` appears; rejects on timeout or early exit. */
async function readUntil(stream: ReadableStream<Uint8Array>, text: string, timeoutMs: number): Promise<void> {
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  let out = "";
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`child did not print "${text}" in ${timeoutMs} ms: ${out}`)), timeoutMs);
  });
  try {
    while (!out.includes(text)) {
      const { value, done } = await Promise.race([reader.read(), timeout]);
      if (done) throw new Error(`child exited before printing "${text}": ${out}`);
      out += decoder.decode(value, { stream: true });
    }
  } finally {
    clearTimeout(timer);
    reader.releaseLock();
  }
}

/** A promise plus its resolver, to hold a handler open until the test lets go. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open = (): void => {};
  const promise = new Promise<void>((r) => {
    open = r;
  });
  return { promise, open };
}

export function runJobQueueContract(name: string, make: () => Promise<JobQueueFixture>): void {
  describe(`JobQueue contract: ${name}`, () => {
    let fx: JobQueueFixture;
    let q: JobQueue;

    beforeAll(async () => {
      fx = await make();
      q = await fx.open();
      await q.ping();
    });
    afterAll(async () => {
      await q?.close();
      await fx?.cleanup();
    });

    test("enqueue, process, result", async () => {
      const queue = uniqueName("basic");
      const job = await q.enqueue(queue, "sum", { values: [1, 2, 3] });
      expect(job).toMatchObject({ queue, name: "sum", data: { values: [1, 2, 3] }, attemptsMade: 0, maxAttempts: 3 });
      expect(["waiting", "delayed"]).toContain(job.status);
      expect(job.result).toBeNull();
      expect(new Date(job.createdAt).toISOString()).toBe(job.createdAt);
      expect(await q.getJob(queue, "no-such-job")).toBeNull();

      const seen: { name: string; attempt: number }[] = [];
      const w = q.work(queue, async (ctx) => {
        seen.push({ name: ctx.name, attempt: ctx.attempt });
        const values = (ctx.data as { values: number[] }).values;
        return { sum: values.reduce((a, b) => a + b, 0) };
      });
      const done = await waitForStatus(q, queue, job.id, "completed");
      await w.close();
      expect(done).toMatchObject({ result: { sum: 6 }, attemptsMade: 1, error: null });
      expect(done.finishedAt).not.toBeNull();
      expect(seen).toEqual([{ name: "sum", attempt: 1 }]);
    });

    test("jobId deduplicates: the existing job is returned and runs once", async () => {
      const queue = uniqueName("dedup");
      const a = await q.enqueue(queue, "echo", { n: 1 }, { jobId: "report-42" });
      const b = await q.enqueue(queue, "echo", { n: 2 }, { jobId: "report-42" });
      expect(a.id).toBe("report-42");
      expect(b.id).toBe("report-42");
      expect(b.data).toEqual({ n: 1 });
      await expect(q.enqueue(queue, "echo", {}, { jobId: "123" })).rejects.toThrow();
      let runs = 0;
      const w = q.work(queue, async (ctx) => {
        runs++;
        return ctx.data;
      });
      await waitForStatus(q, queue, "report-42", "completed");
      const again = await q.enqueue(queue, "echo", { n: 3 }, { jobId: "report-42" });
      expect(again).toMatchObject({ status: "completed", result: { n: 1 } });
      await Bun.sleep(150);
      await w.close();
      expect(runs).toBe(1);
    });

    test("failed attempts retry with exponential backoff, then succeed", async () => {
      const queue = uniqueName("retry");
      const events: JobEvent[] = [];
      const off = q.onEvent(queue, (e) => events.push(e));
      const starts: number[] = [];
      const w = q.work(queue, async (ctx) => {
        starts.push(Date.now());
        if (ctx.attempt < 3) throw new Error(`flaky ${ctx.attempt}`);
        return "ok";
      });
      const job = await q.enqueue(queue, "flaky", null, { attempts: 3, backoffMs: 100 });
      const done = await waitForStatus(q, queue, job.id, "completed");
      await waitFor("completed event", async () => events.some((e) => e.type === "completed"));
      await w.close();
      off();
      expect(done).toMatchObject({ result: "ok", attemptsMade: 3, error: null });
      expect(starts).toHaveLength(3);
      const [s1 = 0, s2 = 0, s3 = 0] = starts;
      // Timers may fire a few ms early; the delays are 100 then 200.
      expect(s2 - s1).toBeGreaterThanOrEqual(90);
      expect(s3 - s2).toBeGreaterThanOrEqual(190);
      const retries = events.filter((e) => e.type === "failed");
      expect(retries).toEqual([
        { type: "failed", queue, jobId: job.id, error: "flaky 1", willRetry: true },
        { type: "failed", queue, jobId: job.id, error: "flaky 2", willRetry: true },
      ]);
      expect(events.at(-1)).toEqual({ type: "completed", queue, jobId: job.id, result: "ok" });
    });

    test("exhausting attempts leaves the job failed with the last error", async () => {
      const queue = uniqueName("exhaust");
      const events: JobEvent[] = [];
      const off = q.onEvent(queue, (e) => events.push(e));
      let runs = 0;
      const w = q.work(queue, async () => {
        runs++;
        throw new Error(`boom ${runs}`);
      });
      const job = await q.enqueue(queue, "doomed", { x: 1 }, { attempts: 2, backoffMs: 50 });
      const failed = await waitForStatus(q, queue, job.id, "failed");
      await waitFor("final failed event", async () => events.some((e) => e.type === "failed" && !e.willRetry));
      await Bun.sleep(200);
      await w.close();
      off();
      expect(failed).toMatchObject({ error: "boom 2", attemptsMade: 2, maxAttempts: 2, result: null });
      expect(failed.finishedAt).not.toBeNull();
      expect(runs).toBe(2);
      expect(events.filter((e) => e.type === "failed" && !e.willRetry)).toEqual([
        { type: "failed", queue, jobId: job.id, error: "boom 2", willRetry: false },
      ]);
    });

    test("progress is stored and emitted in order", async () => {
      const queue = uniqueName("progress");
      const events: JobEvent[] = [];
      const off = q.onEvent(queue, (e) => events.push(e));
      const w = q.work(queue, async (ctx) => {
        await ctx.progress(25);
        await ctx.progress({ stage: "fit", pct: 50 });
        return 1;
      });
      const job = await q.enqueue(queue, "train", {});
      const done = await waitForStatus(q, queue, job.id, "completed");
      await waitFor("completed event", async () => events.some((e) => e.type === "completed"));
      await w.close();
      off();
      expect(done.progress).toEqual({ stage: "fit", pct: 50 });
      expect(events).toEqual([
        { type: "progress", queue, jobId: job.id, progress: 25 },
        { type: "progress", queue, jobId: job.id, progress: { stage: "fit", pct: 50 } },
        { type: "completed", queue, jobId: job.id, result: 1 },
      ]);
    });

    test("never more than `concurrency` jobs in flight", async () => {
      const queue = uniqueName("conc");
      let inFlight = 0;
      let peak = 0;
      const jobs = await Promise.all(Array.from({ length: 9 }, (_, i) => q.enqueue(queue, "slow", { i })));
      const w = q.work(
        queue,
        async () => {
          inFlight++;
          peak = Math.max(peak, inFlight);
          await Bun.sleep(60);
          inFlight--;
          return null;
        },
        { concurrency: 3 },
      );
      for (const j of jobs) await waitForStatus(q, queue, j.id, "completed");
      await w.close();
      expect(peak).toBe(3);
    });

    test("close() stops fetching and waits for the job in flight", async () => {
      const queue = uniqueName("drain");
      const hold = gate();
      const started = gate();
      const w = q.work(queue, async () => {
        started.open();
        await hold.promise;
        return "drained";
      });
      const first = await q.enqueue(queue, "hold", {});
      await started.promise;
      let closed = false;
      const closing = w.close().then(() => {
        closed = true;
      });
      const second = await q.enqueue(queue, "later", {});
      await Bun.sleep(150);
      expect(closed).toBe(false);
      hold.open();
      await closing;
      expect((await q.getJob(queue, first.id))?.status).toBe("completed");
      await Bun.sleep(100);
      expect((await q.getJob(queue, second.id))?.status).toBe("waiting");
    });

    test("a job enqueued before a restart runs on the next instance", async () => {
      const queue = uniqueName("restart");
      const before = await fx.open();
      const job = await before.enqueue(queue, "echo", { keep: true });
      await before.close();
      const after = await fx.open();
      try {
        const w = after.work(queue, async (ctx) => ctx.data);
        const done = await waitForStatus(after, queue, job.id, "completed");
        await w.close();
        expect(done.result).toEqual({ keep: true });
      } finally {
        await after.close();
      }
    });

    test("a job whose worker process crashed is picked up again after its lease lapses", async () => {
      const queue = uniqueName("crash");
      const job = await q.enqueue(queue, "echo", { survived: true });
      const child = Bun.spawn([process.execPath, CHILD, queue, ...fx.childArgs], {
        stdout: "pipe",
        stderr: "inherit",
        env: process.env,
      });
      try {
        // The child prints "started <id>" once its handler holds the job, then hangs.
        await readUntil(child.stdout, `started ${job.id}`, 8000);
        child.kill("SIGKILL");
        await child.exited;
      } finally {
        if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      }
      expect((await q.getJob(queue, job.id))?.status).toBe("active");
      const w = q.work(queue, async (ctx) => ctx.data);
      const done = await waitForStatus(q, queue, job.id, "completed");
      await w.close();
      expect(done.result).toEqual({ survived: true });
    }, 20_000);
  });
}
