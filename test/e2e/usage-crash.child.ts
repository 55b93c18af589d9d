/**
 * A usage-recording process for the crash test (usage-crash.test.ts). It records requests
 * for the given users in rounds and reports, as JSON lines written synchronously to fd 1
 * (so a SIGKILL cannot lose a line that was reported):
 *   {"will":{id:n}}    totals this run will have recorded once the round is recorded
 *   {"acked":{id:n}}   totals this run has persisted: flush() resolved for them
 *   {"orphaned":n}     counts discarded because their user was deleted
 * Environment: USAGE_DB (sqlite path or postgres URL), USAGE_USERS (ids, comma-separated),
 * USAGE_ROUNDS, USAGE_SEED, USAGE_FLUSH_MS (the recorder's own timer), and
 * USAGE_KILL_AFTER_ROWS: SIGKILL itself after that many row writes inside flush
 * transactions, i.e. in the middle of a batch that is not committed yet.
 * Exits 0 after close() when it was not killed.
 */
import { writeSync } from "node:fs";
import { UsageRecorder } from "../../actors/user/usage.ts";
import { SqlControlPlaneStore } from "../../adapters/controlplane/index.ts";
import { PostgresClient, SqliteClient } from "../../adapters/sql/index.ts";
import type { SqlClient } from "../../domain/ports.ts";
import { prng } from "../prng.ts";

const env = process.env;
const db = env.USAGE_DB ?? "";
const users = (env.USAGE_USERS ?? "").split(",").map(Number);
const rounds = Number(env.USAGE_ROUNDS ?? "10");
const rand = prng(Number(env.USAGE_SEED ?? "1"));
const killAfterRows = Number(env.USAGE_KILL_AFTER_ROWS ?? "0");

const say = (line: object) => writeSync(1, `${JSON.stringify(line)}\n`);

/** Counts row writes made inside transactions and kills the process at the planned one. */
function withKillSwitch(inner: SqlClient): SqlClient {
  let rows = 0;
  const onRow = () => {
    rows += 1;
    if (killAfterRows > 0 && rows === killAfterRows) process.kill(process.pid, "SIGKILL");
  };
  return {
    dialect: inner.dialect,
    all: (sql, params) => inner.all(sql, params),
    get: (sql, params) => inner.get(sql, params),
    run: (sql, params) => inner.run(sql, params),
    exec: (sql) => inner.exec(sql),
    close: () => inner.close(),
    transaction: (fn) =>
      inner.transaction((tx) =>
        fn({
          dialect: tx.dialect,
          all: (sql, params) => tx.all(sql, params),
          get: (sql, params) => tx.get(sql, params),
          exec: (sql) => tx.exec(sql),
          transaction: (f) => tx.transaction(f),
          close: () => tx.close(),
          run: async (sql, params) => {
            const r = await tx.run(sql, params);
            onRow();
            return r;
          },
        }),
      ),
  };
}

const sql = db.startsWith("postgres") ? new PostgresClient(db, { max: 2 }) : new SqliteClient(db);
const store = new SqlControlPlaneStore(withKillSwitch(sql));
const rec = new UsageRecorder(store, { flushMs: Number(env.USAGE_FLUSH_MS ?? "60000") });
const will = new Map<number, number>(users.map((u) => [u, 0]));

for (let round = 0; round < rounds; round++) {
  const counts = users.map((u) => [u, 1 + rand.int(5)] as const);
  for (const [u, n] of counts) will.set(u, (will.get(u) ?? 0) + n);
  say({ will: Object.fromEntries(will) });
  for (const [u, n] of counts) for (let i = 0; i < n; i++) rec.record(u);
  const snapshot = Object.fromEntries(will);
  await rec.flush();
  say({ acked: snapshot, orphaned: rec.orphaned });
  if (rand.bool(0.5)) await Bun.sleep(rand.int(5));
}
await rec.close();
await store.close();
