import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BullJobQueue, EmbeddedJobQueue, JOB_QUEUE_MIGRATIONS } from "../../adapters/queue/index.ts";
import { migrate, PostgresClient, SqliteClient } from "../../adapters/sql/index.ts";
import type { JobQueue, SqlClient } from "../../domain/ports.ts";
import { engineUrl, freshPostgresDatabase, uniqueName } from "../engines.ts";
import { type JobQueueFixture, runJobQueueContract } from "./job-queue.contract.ts";
import { CRASH_LEASE_MS, FAST_POLL_MS, STALLED_INTERVAL_MS } from "./job-queue.timing.ts";

/** Each open() gets its own SqlClient, like a separate process would; all are closed at cleanup. */
function embeddedFixture(connect: () => SqlClient, childArgs: string[], dispose: () => Promise<void>): JobQueueFixture {
  const clients: SqlClient[] = [];
  return {
    childArgs,
    async open(): Promise<JobQueue> {
      const sql = connect();
      clients.push(sql);
      await migrate(sql, JOB_QUEUE_MIGRATIONS);
      return new EmbeddedJobQueue(sql, { leaseMs: CRASH_LEASE_MS, pollMs: FAST_POLL_MS });
    },
    async cleanup() {
      await Promise.all(clients.map((c) => c.close()));
      await dispose();
    },
  };
}

runJobQueueContract("embedded on sqlite", async () => {
  const dir = mkdtempSync(join(tmpdir(), "cairn-jobs-"));
  const path = join(dir, "cp.sqlite");
  return embeddedFixture(
    () => new SqliteClient(path),
    ["sqlite", path],
    async () => rmSync(dir, { recursive: true, force: true }),
  );
});

const pg = engineUrl("postgres");
if (pg) {
  runJobQueueContract("embedded on postgres", async () => {
    const db = await freshPostgresDatabase(pg);
    return embeddedFixture(() => new PostgresClient(db.url, { max: 4 }), ["postgres", db.url], db.drop);
  });
}

const redis = engineUrl("redis");
if (redis) {
  runJobQueueContract("bullmq on redis", async () => {
    const prefix = uniqueName("cairnt");
    return {
      childArgs: ["bullmq", redis, prefix],
      async open() {
        return new BullJobQueue({
          url: redis,
          prefix,
          lockDurationMs: CRASH_LEASE_MS,
          stalledIntervalMs: STALLED_INTERVAL_MS,
        });
      },
      async cleanup() {
        // Remove every key under the unique prefix so runs leave Redis as they found it.
        const { default: Redis } = await import("ioredis");
        const client = new Redis(redis);
        let cursor = "0";
        do {
          const [next, keys] = await client.scan(cursor, "MATCH", `${prefix}:*`, "COUNT", 500);
          cursor = next;
          if (keys.length > 0) await client.del(...keys);
        } while (cursor !== "0");
        await client.quit();
      },
    };
  });
}
