/**
 * A worker process for the crash test of the JobQueue contract: opens the given store,
 * takes one job from the queue, prints "started <id>" and hangs until it is killed.
 *   bun job-queue.child.ts <queue> sqlite <path>
 *   bun job-queue.child.ts <queue> postgres <url>
 *   bun job-queue.child.ts <queue> bullmq <url> <prefix>
 */

import { BullJobQueue, EmbeddedJobQueue } from "../../adapters/queue/index.ts";
import { PostgresClient, SqliteClient } from "../../adapters/sql/index.ts";
import type { JobQueue } from "../../domain/ports.ts";
import { CRASH_LEASE_MS, FAST_POLL_MS, STALLED_INTERVAL_MS } from "./job-queue.timing.ts";

const [queue, kind, target, prefix] = process.argv.slice(2);
if (!queue || !kind || !target)
  throw new Error("usage: job-queue.child.ts <queue> <sqlite|postgres|bullmq> <target> [prefix]");

let q: JobQueue;
if (kind === "sqlite")
  q = new EmbeddedJobQueue(new SqliteClient(target), { leaseMs: CRASH_LEASE_MS, pollMs: FAST_POLL_MS });
else if (kind === "postgres")
  q = new EmbeddedJobQueue(new PostgresClient(target, { max: 2 }), { leaseMs: CRASH_LEASE_MS, pollMs: FAST_POLL_MS });
// BullMQ throttles stalled checks across workers by the last checker's interval, so
// the child must use the same short interval as the surviving worker.
else if (kind === "bullmq") {
  q = new BullJobQueue({
    url: target,
    prefix: prefix ?? "cairn",
    lockDurationMs: CRASH_LEASE_MS,
    stalledIntervalMs: STALLED_INTERVAL_MS,
  });
} else throw new Error(`unknown kind ${kind}`);

q.work(queue, async (ctx) => {
  process.stdout.write(`started ${ctx.id}\n`);
  await new Promise(() => {}); // hold the job until SIGKILL
  return null;
});
