/**
 * The real process: `bun main.ts` with an open news stream gets SIGTERM. Bun's graceful
 * stop waits for open sockets, so the stream must be closed (1001, going away) in the
 * shutdown path; otherwise the process hangs until CAIRN_SHUTDOWN_TIMEOUT_MS and exits 1.
 */
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startTestService } from "../../test/harness.ts";
import { NewsClient } from "../../test/news-client.ts";
import { spawnService } from "../../test/serve.ts";
import { waitFor } from "../../test/wait.ts";

const dataDir = mkdtempSync(join(tmpdir(), "cairn-news-proc-"));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

test("SIGTERM closes open news streams with 1001 and the process exits 0", async () => {
  // Seed a tenant and an API key on the directory, then let the process own it.
  const seed = await startTestService({}, { dataDir });
  const key = await seed.apiKey("reader@news-proc.test", "enterprise");
  await seed.service.close();

  const { proc, wsUrl } = await spawnService({
    CAIRN_DATA_DIR: dataDir,
    // Generous: a stream that held the stop would run into it and exit 1, not 0.
    CAIRN_SHUTDOWN_TIMEOUT_MS: "20000",
  });
  try {
    const url = `${wsUrl}/v1/news/stream`;
    const streams = [
      await NewsClient.connect(url, { "x-api-key": key }),
      await NewsClient.connect(url, { "x-api-key": key }),
    ];
    for (const s of streams) await s.next("connected");
    // One of them with a filter, so the server holds per-connection state for it.
    streams[0]?.send({ tickers: ["AAPL"] });
    await streams[0]?.next("filter_applied");

    proc.kill("SIGTERM");
    expect(await proc.exited).toBe(0);
    await waitFor("both streams closed", () => streams.every((s) => s.closed !== null));
    for (const s of streams) expect(s.closed).toEqual({ code: 1001, reason: "server shutting down" });
  } finally {
    if (proc.exitCode === null) proc.kill("SIGKILL");
    await proc.exited;
  }
});
