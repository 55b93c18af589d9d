import { describe, expect, test } from "bun:test";
import { AppError } from "../errors.ts";
import { UploadGate } from "./upload-gate.ts";

describe("UploadGate", () => {
  test("runs `concurrency` at once, queues FIFO up to maxQueued, refuses beyond with 503 + Retry-After", async () => {
    const gate = new UploadGate({ concurrency: 2, maxQueued: 1, maxWaitMs: 10_000, retryAfterSeconds: 7 });
    const a = await gate.acquire();
    const b = await gate.acquire();
    let cGranted = false;
    const c = gate.acquire().then((r) => {
      cGranted = true;
      return r;
    });
    expect(gate.stats).toEqual({ running: 2, queued: 1 });
    const refused = await gate.acquire().catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(AppError);
    expect((refused as AppError).status).toBe(503);
    expect((refused as AppError).headers).toEqual({ "Retry-After": "7" });
    expect(cGranted).toBe(false);
    a();
    a(); // a second release of the same slot is a no-op
    const releaseC = await c;
    expect(gate.stats).toEqual({ running: 2, queued: 0 });
    b();
    releaseC();
    expect(gate.stats).toEqual({ running: 0, queued: 0 });
  });

  test("a waiter that waits past maxWaitMs is refused and leaves the queue", async () => {
    const gate = new UploadGate({ concurrency: 1, maxQueued: 4, maxWaitMs: 30 });
    const a = await gate.acquire();
    const late = await gate.acquire().catch((e: unknown) => e);
    expect((late as AppError).code).toBe("unavailable");
    expect(gate.stats).toEqual({ running: 1, queued: 0 });
    a();
    const next = await gate.acquire();
    expect(gate.stats.running).toBe(1);
    next();
  });

  test("one tenant runs at most concurrency - 1 and queues at most perKey.queued; others still get a slot", async () => {
    const gate = new UploadGate({ concurrency: 2, maxQueued: 8, maxWaitMs: 10_000 });
    const a1 = await gate.acquire("a");
    const a2 = gate.acquire("a");
    const a3 = gate.acquire("a");
    expect(gate.statsOf("a")).toEqual({ running: 1, queued: 2 });
    const refused = (await gate.acquire("a").catch((e: unknown) => e)) as AppError;
    expect(refused.status).toBe(503);
    expect(refused.message).toContain("this tenant already has 2 uploads waiting");
    // Tenant b takes the slot tenant a may not, ahead of a's queue.
    const b = await gate.acquire("b");
    expect(gate.stats).toEqual({ running: 2, queued: 2 });
    b();
    expect(gate.stats).toEqual({ running: 1, queued: 2 }); // a is at its bound: the slot stays free
    a1();
    (await a2)();
    (await a3)();
    expect(gate.stats).toEqual({ running: 0, queued: 0 });
  });

  test("a waiter whose signal aborts leaves the queue at once", async () => {
    const gate = new UploadGate({ concurrency: 1, maxQueued: 4, maxWaitMs: 10_000 });
    const a = await gate.acquire("a");
    const ctl = new AbortController();
    const waiting = gate.acquire("b", ctl.signal).catch((e: unknown) => e);
    expect(gate.stats.queued).toBe(1);
    ctl.abort();
    expect(((await waiting) as AppError).message).toContain("cancelled");
    expect(gate.stats).toEqual({ running: 1, queued: 0 });
    a();
    expect(await gate.acquire("b", AbortSignal.abort()).catch((e: unknown) => (e as AppError).code)).toBe(
      "unavailable",
    );
  });

  test("a penalised tenant is refused with Retry-After until the penalty passes; others are not", async () => {
    const gate = new UploadGate({ concurrency: 2, maxQueued: 4, maxWaitMs: 10_000 });
    gate.penalise("a", 60);
    const refused = (await gate.acquire("a").catch((e: unknown) => e)) as AppError;
    expect(refused.status).toBe(503);
    expect(refused.headers).toEqual({ "Retry-After": "1" });
    (await gate.acquire("b"))();
    await Bun.sleep(80);
    (await gate.acquire("a"))();
    expect(gate.stats).toEqual({ running: 0, queued: 0 });
  });
});
