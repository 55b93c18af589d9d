/** Graceful shutdown waits for in-flight jobs and leaves them completed, not half-done. */
import { expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../config.ts";
import { buildService, openControlPlane } from "../../main.ts";
import { waitFor } from "../wait.ts";

test("service.close() drains an in-flight job before closing the stores", async () => {
  const dataDir = mkdtempSync(join(tmpdir(), "cairn-drain-"));
  try {
    const config = loadConfig({ CAIRN_DATA_DIR: dataDir, CAIRN_LOG_LEVEL: "silent" });
    const service = await buildService(config);
    const { queue } = service;
    let started = false;
    let finished = false;
    queue.work("drain-test", async () => {
      started = true;
      await Bun.sleep(300);
      finished = true;
      return { ok: true };
    });
    const job = await queue.enqueue("drain-test", "slow", { n: 1 });
    await waitFor("the job to start", () => started);
    expect((await service.fetch(new Request("http://x/readyz"))).status).toBe(200);
    const closing = service.close();
    expect((await service.fetch(new Request("http://x/readyz"))).status).toBe(503);
    await closing;
    expect(finished).toBe(true);

    const store = await openControlPlane(config);
    const row = await store.sql.get<{ status: string; result: string }>(
      "SELECT status, result FROM jobs WHERE id = ?",
      [job.id],
    );
    expect(row?.status).toBe("completed");
    expect(JSON.parse(row?.result ?? "null")).toEqual({ ok: true });
    await store.close();
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});
