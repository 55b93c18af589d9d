/**
 * A closed-loop HTTP load generator: `concurrency` workers each send a request, wait for
 * the answer, and repeat until the duration ends. Latencies are per request, in ms.
 */
export interface LoadResult {
  requests: number;
  errors: number;
  seconds: number;
  rps: number;
  latenciesMs: number[];
}

export async function closedLoop(
  url: string,
  init: RequestInit,
  opts: { concurrency: number; durationMs: number; expectStatus?: number },
): Promise<LoadResult> {
  const latencies: number[] = [];
  let errors = 0;
  const started = performance.now();
  const deadline = started + opts.durationMs;
  const worker = async () => {
    while (performance.now() < deadline) {
      const t0 = performance.now();
      try {
        const res = await fetch(url, init);
        await res.arrayBuffer();
        if (res.status !== (opts.expectStatus ?? 200)) errors++;
      } catch {
        errors++;
      }
      latencies.push(performance.now() - t0);
    }
  };
  await Promise.all(Array.from({ length: opts.concurrency }, worker));
  const seconds = (performance.now() - started) / 1000;
  return { requests: latencies.length, errors, seconds, rps: latencies.length / seconds, latenciesMs: latencies };
}

/** Waits until `url` answers (any status), or throws after `timeoutMs`. */
export async function waitForUrl(url: string, timeoutMs = 20_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    try {
      await fetch(url);
      return;
    } catch {
      await Bun.sleep(100);
    }
  }
  throw new Error(`${url} did not come up within ${timeoutMs} ms`);
}

/** A port that was free a moment ago (for child processes that need a fixed PORT). */
export async function freePort(): Promise<number> {
  const s = Bun.serve({ port: 0, fetch: () => new Response() });
  const p = s.port ?? 0;
  await s.stop(true);
  return p;
}
