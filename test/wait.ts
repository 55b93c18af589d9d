/**
 * Polls a condition for cross-process effects (pub/sub delivery, timers) instead of
 * sleeping a fixed time: fast when things are fast, and a clear error when they never come.
 */
export async function waitFor(
  what: string,
  check: () => boolean | Promise<boolean>,
  opts: { timeoutMs?: number; everyMs?: number } = {},
): Promise<void> {
  const deadline = performance.now() + (opts.timeoutMs ?? 5_000);
  for (;;) {
    if (await check()) return;
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(opts.everyMs ?? 2);
  }
}
