"""Consumer for Cairn's embedded job queue: the ``jobs`` table in the service's SQLite file.

This module is the documented mechanism by which a process other than the service
(here, the Python lab) takes part in the embedded queue. It follows exactly the rules
the service's own workers follow (``adapters/queue/embedded-store.ts``), so both can
work the same queue at the same time.

Table
    ``jobs`` (DDL in ``jobs_sqlite.sql``), primary key ``(queue, id)``. ``data``,
    ``progress`` and ``result`` are JSON text. Timestamps are ISO-8601 UTC with
    milliseconds and a ``Z`` (``2026-01-02T03:04:05.678Z``): fixed width, so text
    comparison is time comparison. The service creates and migrates the table; the lab
    never changes the schema.

Connection
    WAL journal mode and a busy timeout, so readers never block the writer and a
    writer waits for the lock instead of failing.

Claim (one ``BEGIN IMMEDIATE`` transaction, which takes SQLite's write lock, so no
two processes can claim the same row)
    1. Jobs ``active`` whose ``lease_until`` has passed and whose ``attempts_made >=
       max_attempts`` are set ``failed`` with error ``LEASE_LOST_ERROR``: their worker
       died during the last attempt.
    2. Runnable jobs of the queue are picked in ``run_at, created_at, id`` order:
       ``waiting``/``delayed`` with ``run_at <= now``, or ``active`` with an expired
       lease and attempts left (a crashed worker's job).
    3. Each picked job becomes ``active``, ``attempts_made + 1`` (so the attempt number
       is ``attempts_made``, and a crash uses up an attempt), ``lease_until = now +
       lease``, ``locked_by = <claim token>``; the token is unique to this claim.

While running
    The lease is renewed every lease/3 (a heartbeat thread with its own connection).
    Progress is written to ``progress``. Every write after the claim is guarded by
    ``locked_by = token AND status = 'active'``: if the lease was lost and another
    worker took the job, this worker's writes change nothing.

Outcome
    Success: ``completed``, ``result``, ``finished_at``, ``error`` cleared.
    Failure with attempts left: ``delayed``, ``error``, ``run_at = now + backoff_ms *
    2 ** (attempt - 1)``. Failure on the last attempt: ``failed``, ``error``,
    ``finished_at``. The lease and token are cleared in every case.

Events are not written anywhere: the service learns of progress and outcomes made by
the lab by reading the row (``JobQueue.getJob``).
"""

from __future__ import annotations

import json
import logging
import sqlite3
import threading
import time
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from lab.jobs.handlers import HANDLERS, Handler, JsonValue, handler_for

log = logging.getLogger(__name__)

LEASE_LOST_ERROR = "lease expired after the last attempt (worker lost)"
MAX_ERROR_CHARS = 4000

_COLS = "queue, id, name, data, status, attempts_made, max_attempts, backoff_ms"


def now_ms() -> int:
    return time.time_ns() // 1_000_000


def iso(ms: int) -> str:
    """The same text as JavaScript's ``new Date(ms).toISOString()``."""
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(ms // 1000)) + f".{ms % 1000:03d}Z"


def error_message(exc: BaseException) -> str:
    msg = str(exc) or type(exc).__name__
    return msg if len(msg) <= MAX_ERROR_CHARS else msg[:MAX_ERROR_CHARS] + "\u2026"


def sqlite_ddl() -> str:
    """The jobs table DDL, as the service's migration creates it (for tests and tools)."""
    return resources.files("lab.jobs").joinpath("jobs_sqlite.sql").read_text(encoding="utf-8")


def connect(path: str | Path, busy_timeout_ms: int = 5000) -> sqlite3.Connection:
    # isolation_level=None: we issue BEGIN IMMEDIATE ourselves, as the service does.
    conn = sqlite3.connect(str(path), timeout=busy_timeout_ms / 1000, isolation_level=None)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
    conn.execute("PRAGMA synchronous = NORMAL")
    return conn


@dataclass(frozen=True)
class ClaimedJob:
    queue: str
    id: str
    name: str
    data: JsonValue
    attempt: int
    max_attempts: int
    backoff_ms: int
    token: str


class EmbeddedQueue:
    """Claims and settles jobs in the service's SQLite ``jobs`` table (see module docstring)."""

    def __init__(self, path: str | Path, *, lease_ms: int = 30_000, busy_timeout_ms: int = 5000) -> None:
        if lease_ms < 30:
            raise ValueError("lease_ms must be at least 30")
        self.path = Path(path)
        self.lease_ms = lease_ms
        self.busy_timeout_ms = busy_timeout_ms
        self.worker_id = f"lab:{uuid.uuid4().hex[:8]}"
        self._claims = 0
        self._conn = connect(self.path, busy_timeout_ms)
        found = self._conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'jobs'")
        if found.fetchone() is None:
            self._conn.close()
            raise RuntimeError(f"{self.path}: no jobs table; start the Cairn service once to migrate it")

    def close(self) -> None:
        self._conn.close()

    def claim(self, queue: str, limit: int = 1) -> list[ClaimedJob]:
        now = now_ms()
        now_iso = iso(now)
        self._claims += 1
        token = f"{self.worker_id}#{self._claims}"
        c = self._conn
        c.execute("BEGIN IMMEDIATE")
        try:
            c.execute(
                "UPDATE jobs SET status = 'failed', error = ?, finished_at = ?,"
                " lease_until = NULL, locked_by = NULL"
                " WHERE queue = ? AND status = 'active' AND lease_until < ?"
                " AND attempts_made >= max_attempts",
                (LEASE_LOST_ERROR, now_iso, queue, now_iso),
            )
            rows = c.execute(
                f"SELECT {_COLS} FROM jobs WHERE queue = ? AND ("
                " (status IN ('waiting', 'delayed') AND run_at <= ?)"
                " OR (status = 'active' AND lease_until < ? AND attempts_made < max_attempts))"
                " ORDER BY run_at, created_at, id LIMIT ?",
                (queue, now_iso, now_iso, limit),
            ).fetchall()
            for r in rows:
                c.execute(
                    "UPDATE jobs SET status = 'active', attempts_made = attempts_made + 1, lease_until = ?,"
                    " locked_by = ? WHERE queue = ? AND id = ?",
                    (iso(now + self.lease_ms), token, queue, r[1]),
                )
            c.execute("COMMIT")
        except BaseException:
            c.execute("ROLLBACK")
            raise
        return [
            ClaimedJob(
                queue=r[0],
                id=r[1],
                name=r[2],
                data=json.loads(r[3]),
                attempt=int(r[5]) + 1,
                max_attempts=int(r[6]),
                backoff_ms=int(r[7]),
                token=token,
            )
            for r in rows
        ]

    def progress(self, job: ClaimedJob, value: JsonValue) -> bool:
        return self._guarded(job, "progress = ?", (json.dumps(value),))

    def complete(self, job: ClaimedJob, result: JsonValue) -> bool:
        return self._guarded(
            job,
            "status = 'completed', result = ?, error = NULL, finished_at = ?,"
            " lease_until = NULL, locked_by = NULL",
            (json.dumps(result), iso(now_ms())),
        )

    def fail(self, job: ClaimedJob, error: str) -> bool:
        """Records a failed attempt; returns whether this worker still held the job."""
        now = now_ms()
        if job.attempt < job.max_attempts:
            retry_at = now + job.backoff_ms * 2 ** (job.attempt - 1)
            return self._guarded(
                job,
                "status = 'delayed', error = ?, run_at = ?, lease_until = NULL, locked_by = NULL",
                (error, iso(retry_at)),
            )
        return self._guarded(
            job,
            "status = 'failed', error = ?, finished_at = ?, lease_until = NULL, locked_by = NULL",
            (error, iso(now)),
        )

    def _guarded(self, job: ClaimedJob, set_sql: str, params: tuple[object, ...]) -> bool:
        cur = self._conn.execute(
            f"UPDATE jobs SET {set_sql} WHERE queue = ? AND id = ? AND locked_by = ? AND status = 'active'",
            (*params, job.queue, job.id, job.token),
        )
        return cur.rowcount > 0


class _Heartbeat:
    """Renews one job's lease every lease/3 on its own connection until stopped."""

    def __init__(self, queue: EmbeddedQueue, job: ClaimedJob) -> None:
        self._queue = queue
        self._job = job
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"lease-{job.id}", daemon=True)

    def __enter__(self) -> _Heartbeat:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        q, job = self._queue, self._job
        conn = connect(q.path, q.busy_timeout_ms)
        try:
            while not self._stop.wait(q.lease_ms / 3000):
                try:
                    cur = conn.execute(
                        "UPDATE jobs SET lease_until = ? WHERE queue = ? AND id = ? AND locked_by = ?"
                        " AND status = 'active'",
                        (iso(now_ms() + q.lease_ms), job.queue, job.id, job.token),
                    )
                    if cur.rowcount == 0:
                        log.warning(
                            "job lease lost while running", extra={"queue": job.queue, "job_id": job.id}
                        )
                except sqlite3.Error:
                    log.exception("lease renewal failed", extra={"queue": job.queue, "job_id": job.id})
        finally:
            conn.close()


@dataclass
class _Context:
    """The JobContext handed to handlers for an embedded job."""

    queue: EmbeddedQueue
    job: ClaimedJob

    @property
    def id(self) -> str:
        return self.job.id

    @property
    def name(self) -> str:
        return self.job.name

    @property
    def data(self) -> JsonValue:
        return self.job.data

    @property
    def attempt(self) -> int:
        return self.job.attempt

    def progress(self, value: JsonValue) -> None:
        self.queue.progress(self.job, value)


def process_one(queue: EmbeddedQueue, job: ClaimedJob, handlers: Mapping[str, Handler] = HANDLERS) -> bool:
    """Runs one claimed job and records its outcome; returns True when it completed."""
    with _Heartbeat(queue, job):
        try:
            result = handler_for(job.name, handlers)(_Context(queue, job))
            json.dumps(result)  # a result that cannot be stored fails the attempt here
        except Exception as exc:
            log.warning("job attempt failed", extra={"queue": job.queue, "job_id": job.id, "error": str(exc)})
            if not queue.fail(job, error_message(exc)):
                log.warning("job lease lost before its failure was recorded", extra={"job_id": job.id})
            return False
    if not queue.complete(job, result):
        log.warning("job finished after its lease was lost; result dropped", extra={"job_id": job.id})
        return False
    return True


def run_embedded(
    path: str | Path,
    queue_name: str,
    *,
    handlers: Mapping[str, Handler] = HANDLERS,
    once: bool = False,
    poll_s: float = 0.5,
    lease_ms: int = 30_000,
    stop: threading.Event | None = None,
) -> int:
    """Works one queue, one job at a time; returns how many jobs were run.

    With ``once`` it returns as soon as no job is runnable; otherwise it polls every
    ``poll_s`` seconds until ``stop`` is set.
    """
    stop = stop or threading.Event()
    queue = EmbeddedQueue(path, lease_ms=lease_ms)
    ran = 0
    try:
        while not stop.is_set():
            jobs = queue.claim(queue_name, 1)
            for job in jobs:
                process_one(queue, job, handlers)
                ran += 1
            if not jobs:
                if once:
                    break
                stop.wait(poll_s)
    finally:
        queue.close()
    return ran
