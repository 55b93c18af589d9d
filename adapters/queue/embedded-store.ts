/**
 * The `jobs` table of the embedded queue and every statement that touches it.
 *
 * The same rows are read and written by the Python lab consumer
 * (lab/src/lab/jobs/embedded.py), so the claim, lease and retry rules below are a
 * cross-language protocol; lab/src/lab/jobs/jobs_sqlite.sql is a copy of the SQLite
 * DDL and adapters/queue/embedded.test.ts asserts the two stay identical.
 *
 * Timestamps are ISO-8601 UTC with milliseconds ("2026-01-02T03:04:05.678Z"), fixed
 * width, so text comparison is time comparison on both engines.
 */
import type { JobInfo, JobStatus, JsonValue, Migration, SqlClient, SqlParam } from "../../domain/ports.ts";

const JOBS_DDL = `
CREATE TABLE jobs (
  queue TEXT NOT NULL,
  id TEXT NOT NULL,
  name TEXT NOT NULL,
  data TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('waiting', 'active', 'completed', 'failed', 'delayed')),
  attempts_made INTEGER NOT NULL DEFAULT 0,
  max_attempts INTEGER NOT NULL,
  backoff_ms INTEGER NOT NULL,
  run_at TEXT NOT NULL,
  lease_until TEXT,
  locked_by TEXT,
  progress TEXT NOT NULL DEFAULT '0',
  result TEXT,
  error TEXT,
  created_at TEXT NOT NULL,
  finished_at TEXT,
  PRIMARY KEY (queue, id)
);
CREATE INDEX jobs_queue_status_run_at ON jobs (queue, status, run_at);
`;

/** The DDL is plain SQL both engines accept; JSON columns are TEXT on both for parity. */
export const JOB_QUEUE_MIGRATIONS: Migration[] = [{ id: "jobs:001_jobs", sqlite: JOBS_DDL, postgres: JOBS_DDL }];

export interface JobRow {
  queue: string;
  id: string;
  name: string;
  data: string;
  status: JobStatus;
  attempts_made: number;
  max_attempts: number;
  backoff_ms: number;
  run_at: string;
  lease_until: string | null;
  locked_by: string | null;
  progress: string;
  result: string | null;
  error: string | null;
  created_at: string;
  finished_at: string | null;
}

const COLS =
  "queue, id, name, data, status, attempts_made, max_attempts, backoff_ms, run_at, lease_until, locked_by, progress, result, error, created_at, finished_at";

/** Jobs a worker may take: due waiting/delayed ones, and crashed workers' jobs with attempts left. */
const RUNNABLE = `queue = ? AND (
    (status IN ('waiting', 'delayed') AND run_at <= ?)
    OR (status = 'active' AND lease_until < ? AND attempts_made < max_attempts))
  ORDER BY run_at, created_at, id LIMIT ?`;

const SET_ACTIVE = "status = 'active', attempts_made = attempts_made + 1, lease_until = ?, locked_by = ?";

// SQLite: the client's transaction is BEGIN IMMEDIATE, which holds the database's write
// lock for the whole step, across processes, so a plain subquery is safe.
const SQLITE_CLAIM = `WITH picked AS (SELECT id FROM jobs WHERE ${RUNNABLE})
  UPDATE jobs SET ${SET_ACTIVE} WHERE queue = ? AND id IN (SELECT id FROM picked) RETURNING ${COLS}`;

// Postgres: SKIP LOCKED lets concurrent claimers take different rows instead of queueing
// on the same ones. The CTE is MATERIALIZED so the LIMIT applies once: as a plain IN
// subquery the planner may rescan it, and each rescan can lock further rows.
const PG_CLAIM = `WITH picked AS MATERIALIZED (SELECT id FROM jobs WHERE ${RUNNABLE} FOR UPDATE SKIP LOCKED)
  UPDATE jobs SET ${SET_ACTIVE} FROM picked WHERE jobs.queue = ? AND jobs.id = picked.id
  RETURNING ${COLS.split(", ")
    .map((c) => `jobs.${c}`)
    .join(", ")}`;

export const LEASE_LOST_ERROR = "lease expired after the last attempt (worker lost)";

export function iso(ms: number): string {
  return new Date(ms).toISOString();
}

function parseJson(text: string | null): JsonValue | null {
  return text === null ? null : (JSON.parse(text) as JsonValue);
}

export function toJobInfo(r: JobRow): JobInfo {
  return {
    id: r.id,
    queue: r.queue,
    name: r.name,
    data: parseJson(r.data),
    status: r.status,
    attemptsMade: Number(r.attempts_made),
    maxAttempts: Number(r.max_attempts),
    progress: parseJson(r.progress),
    result: parseJson(r.result),
    error: r.error,
    createdAt: r.created_at,
    finishedAt: r.finished_at,
  };
}

export interface NewJobRow {
  queue: string;
  id: string;
  name: string;
  json: string;
  attempts: number;
  backoffMs: number;
  runAt: number;
  now: number;
  delayed: boolean;
}

/** Statements over the jobs table. Every write by a worker is guarded by its claim token. */
export class JobsTable {
  constructor(private readonly sql: SqlClient) {}

  /** Inserts unless (queue, id) exists; returns the stored row either way and whether it is new. */
  async insert(j: NewJobRow): Promise<{ row: JobRow; created: boolean }> {
    const { changes } = await this.sql.run(
      `INSERT INTO jobs (queue, id, name, data, status, attempts_made, max_attempts, backoff_ms, run_at, progress, created_at)
       VALUES (?, ?, ?, ?, ?, 0, ?, ?, ?, '0', ?) ON CONFLICT (queue, id) DO NOTHING`,
      [
        j.queue,
        j.id,
        j.name,
        j.json,
        j.delayed ? "delayed" : "waiting",
        j.attempts,
        j.backoffMs,
        iso(j.runAt),
        iso(j.now),
      ],
    );
    const row = await this.get(j.queue, j.id);
    if (!row) throw new Error(`job ${j.queue}/${j.id} vanished after insert`);
    return { row, created: changes > 0 };
  }

  get(queue: string, id: string): Promise<JobRow | undefined> {
    return this.sql.get<JobRow>(`SELECT ${COLS} FROM jobs WHERE queue = ? AND id = ?`, [queue, id]);
  }

  /**
   * One atomic step: fail jobs whose worker vanished after their last attempt, then
   * claim up to `limit` runnable jobs for `token`. Runnable means waiting or delayed
   * with run_at due, or active with an expired lease and attempts left (a crashed
   * worker's job). Claiming increments attempts_made, so a crash uses up an attempt
   * and a job that kills its worker every time still ends up failed.
   */
  async claim(
    queue: string,
    limit: number,
    token: string,
    now: number,
    leaseMs: number,
  ): Promise<{ claimed: JobRow[]; lost: JobRow[] }> {
    const nowIso = iso(now);
    // SQLite: the client's transaction is BEGIN IMMEDIATE, which holds the database's
    // write lock for the whole step, across processes. Postgres: SKIP LOCKED lets
    // concurrent claimers take different rows instead of queueing on the same ones.
    const claimSql = this.sql.dialect === "postgres" ? PG_CLAIM : SQLITE_CLAIM;
    return this.sql.transaction(async (tx) => {
      const lost = await tx.all<JobRow>(
        `UPDATE jobs SET status = 'failed', error = ?, finished_at = ?, lease_until = NULL, locked_by = NULL
         WHERE queue = ? AND status = 'active' AND lease_until < ? AND attempts_made >= max_attempts
         RETURNING ${COLS}`,
        [LEASE_LOST_ERROR, nowIso, queue, nowIso],
      );
      const claimed = await tx.all<JobRow>(claimSql, [queue, nowIso, nowIso, limit, iso(now + leaseMs), token, queue]);
      return { claimed, lost };
    });
  }

  /** Extends a lease; false when the job is no longer held by this token. */
  async renew(queue: string, id: string, token: string, until: number): Promise<boolean> {
    const r = await this.sql.run(
      "UPDATE jobs SET lease_until = ? WHERE queue = ? AND id = ? AND locked_by = ? AND status = 'active'",
      [iso(until), queue, id, token],
    );
    return r.changes > 0;
  }

  async progress(queue: string, id: string, token: string, json: string): Promise<boolean> {
    const r = await this.sql.run(
      "UPDATE jobs SET progress = ? WHERE queue = ? AND id = ? AND locked_by = ? AND status = 'active'",
      [json, queue, id, token],
    );
    return r.changes > 0;
  }

  async complete(queue: string, id: string, token: string, resultJson: string, now: number): Promise<boolean> {
    return this.finish(
      "status = 'completed', result = ?, error = NULL, finished_at = ?",
      [resultJson, iso(now)],
      queue,
      id,
      token,
    );
  }

  /** Records a failed attempt: back to delayed with run_at pushed by the backoff, or failed for good. */
  async fail(
    queue: string,
    id: string,
    token: string,
    error: string,
    retryAt: number | null,
    now: number,
  ): Promise<boolean> {
    if (retryAt === null) {
      return this.finish("status = 'failed', error = ?, finished_at = ?", [error, iso(now)], queue, id, token);
    }
    return this.finish("status = 'delayed', error = ?, run_at = ?", [error, iso(retryAt)], queue, id, token);
  }

  private async finish(set: string, params: SqlParam[], queue: string, id: string, token: string): Promise<boolean> {
    const r = await this.sql.run(
      `UPDATE jobs SET ${set}, lease_until = NULL, locked_by = NULL
       WHERE queue = ? AND id = ? AND locked_by = ? AND status = 'active'`,
      [...params, queue, id, token],
    );
    return r.changes > 0;
  }

  /** Deletes finished jobs older than the retention window (keeps the table bounded). */
  async prune(queue: string, finishedBefore: number): Promise<number> {
    const r = await this.sql.run(
      "DELETE FROM jobs WHERE queue = ? AND status IN ('completed', 'failed') AND finished_at < ?",
      [queue, iso(finishedBefore)],
    );
    return r.changes;
  }
}
