import { afterEach, describe, expect, test } from "bun:test";
import type { AppError } from "../../domain/errors.ts";
import type { FromFixture, ToFixture } from "../../test/fixtures/pool-worker.ts";
import { JobCancelled, WorkerPool, type WorkerPoolOptions } from "./pool.ts";

type Job = { op: "echo" | "fail" | "hang" | "crash" | "exit"; value: string };

const pools: WorkerPool<Job, string, ToFixture, FromFixture>[] = [];
afterEach(async () => {
  for (const p of pools.splice(0)) await p.close();
});

function pool(
  opts: Partial<WorkerPoolOptions<Job, string, ToFixture, FromFixture>> = {},
): WorkerPool<Job, string, ToFixture, FromFixture> {
  const p = new WorkerPool<Job, string, ToFixture, FromFixture>({
    name: "fixture work",
    url: new URL("../../test/fixtures/pool-worker.ts", import.meta.url),
    size: 1,
    maxQueued: 4,
    encode: (id, job) => ({ id, ...job }),
    decode: (m) =>
      m.ok ? { id: m.id, ok: true, value: m.value } : { id: m.id, ok: false, error: new Error(m.message) },
    ...opts,
  });
  pools.push(p);
  return p;
}

const echo = (value: string): Job => ({ op: "echo", value });

describe("WorkerPool", () => {
  test("answers each job with its own reply, in any number, across threads", async () => {
    const p = pool({ size: 3, maxQueued: 20 });
    const values = Array.from({ length: 20 }, (_, i) => `v${i}`);
    expect(await Promise.all(values.map((v) => p.run(echo(v))))).toEqual(values);
    expect(p.load).toEqual({ running: 0, queued: 0, queuedBytes: 0 });
  });

  test("a refused job is rejected with the worker's error; the thread keeps working", async () => {
    const p = pool();
    await expect(p.run({ op: "fail", value: "x" })).rejects.toThrow("refused x");
    expect(await p.run(echo("after"))).toBe("after");
  });

  test("past the queue bound a job is refused at once with 503 and Retry-After", async () => {
    const p = pool({ size: 1, maxQueued: 1, retryAfterSeconds: 7 });
    const running = p.run(echo("a"));
    const waiting = p.run(echo("b"));
    const refused = (await p.run(echo("c")).catch((e: unknown) => e)) as AppError;
    expect(refused.status).toBe(503);
    expect(refused.headers?.["Retry-After"]).toBe("7");
    expect(await Promise.all([running, waiting])).toEqual(["a", "b"]);
    // Once they are done, jobs are accepted again.
    expect(await p.run(echo("d"))).toBe("d");
  });

  test("the queue is bounded by bytes too", async () => {
    const p = pool({ size: 1, maxQueued: 10, maxQueuedBytes: 5, bytesOf: (j) => j.value.length });
    const running = p.run(echo("xxxxxxxx")); // taken by the idle thread at once: not waiting
    const waiting = p.run(echo("yyyy"));
    await expect(p.run(echo("zz"))).rejects.toMatchObject({ code: "unavailable" });
    expect(await Promise.all([running, waiting])).toEqual(["xxxxxxxx", "yyyy"]);
  });

  test("a job past its deadline fails, its thread is replaced, and the queue moves on", async () => {
    const p = pool({ size: 1, timeoutMs: 300, timeoutError: (ms) => new Error(`over ${ms} ms`) });
    const stuck = p.run({ op: "hang", value: "x" });
    const next = p.run(echo("next"));
    await expect(stuck).rejects.toThrow("over 300 ms");
    expect(await next).toBe("next");
  });

  test("a thread that dies fails its job and is replaced", async () => {
    const p = pool({ size: 1 });
    await expect(p.run({ op: "crash", value: "x" })).rejects.toMatchObject({ code: "internal" });
    expect(await p.run(echo("alive"))).toBe("alive");
    await expect(p.run({ op: "exit", value: "x" })).rejects.toMatchObject({ code: "internal" });
    expect(await p.run(echo("again"))).toBe("again");
  });

  test("a broadcast reaches every started thread before the next job it takes", async () => {
    const p = pool({ size: 2 });
    await Promise.all([p.run(echo("a")), p.run(echo("b"))]);
    p.broadcast({ type: "file", name: "seen" });
    expect(await Promise.all([p.run(echo("a")), p.run(echo("b"))])).toEqual(["a/seen", "b/seen"]);
  });

  test("close fails waiting and running jobs and refuses new ones", async () => {
    const p = pool({ size: 1 });
    const stuck = p.run({ op: "hang", value: "x" });
    const waiting = p.run(echo("w"));
    await p.close();
    await expect(stuck).rejects.toMatchObject({ code: "unavailable" });
    await expect(waiting).rejects.toMatchObject({ code: "unavailable" });
    await expect(p.run(echo("late"))).rejects.toMatchObject({ code: "unavailable" });
  });

  test("an aborted job leaves the queue; an aborted running job has its thread terminated and replaced", async () => {
    const p = pool({ size: 1, maxQueued: 4 });
    const running = new AbortController();
    const queued = new AbortController();
    const hung = p.run({ op: "hang", value: "a" }, { signal: running.signal }).catch((e: unknown) => e);
    const waiting = p.run(echo("b"), { signal: queued.signal }).catch((e: unknown) => e);
    expect(p.load).toMatchObject({ running: 1, queued: 1 });
    queued.abort();
    expect(await waiting).toBeInstanceOf(JobCancelled);
    expect(p.load).toMatchObject({ running: 1, queued: 0 });
    running.abort();
    expect(await hung).toBeInstanceOf(JobCancelled);
    expect(p.load).toMatchObject({ running: 0, queued: 0 });
    // A fresh thread takes the next job (the hung one could never answer).
    expect(await p.run(echo("c"))).toBe("c");
    // An already aborted signal never reaches a thread.
    expect(await p.run(echo("d"), { signal: AbortSignal.abort() }).catch((e: unknown) => e)).toBeInstanceOf(
      JobCancelled,
    );
  });

  test("one key's waiting jobs are bounded by maxQueuedPerKey; other keys still queue", async () => {
    const p = pool({ size: 1, maxQueued: 10, maxQueuedPerKey: 2 });
    const stop = new AbortController();
    const busy = p.run({ op: "hang", value: "x" }, { key: "a", signal: stop.signal }).catch(() => {});
    const a1 = p.run(echo("a1"), { key: "a" });
    const a2 = p.run(echo("a2"), { key: "a" });
    const refused = (await p.run(echo("a3"), { key: "a" }).catch((e: unknown) => e)) as AppError;
    expect(refused.status).toBe(503);
    expect(refused.headers).toEqual({ "Retry-After": "5" });
    const b = p.run(echo("b1"), { key: "b" });
    expect(p.loadOf("a")).toEqual({ running: 1, queued: 2 });
    expect(p.loadOf("b")).toEqual({ running: 0, queued: 1 });
    stop.abort();
    await busy;
    expect(await Promise.all([a1, a2, b])).toEqual(["a1", "a2", "b1"]);
  });
});
