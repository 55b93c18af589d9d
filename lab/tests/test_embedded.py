"""The embedded-queue consumer against a real SQLite file built from the service's DDL."""

from __future__ import annotations

import datetime as dt
import json
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from conftest import enqueue, job_row

from lab.jobs.embedded import (
    LEASE_LOST_ERROR,
    EmbeddedQueue,
    connect,
    iso,
    now_ms,
    run_embedded,
)
from lab.jobs.handlers import HANDLERS, JobContext, JsonValue


def test_iso_matches_javascript_to_iso_string() -> None:
    assert iso(0) == "1970-01-01T00:00:00.000Z"
    ms = 1_767_323_045_678
    want = dt.datetime.fromtimestamp(ms / 1000, dt.UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"
    assert iso(ms) == want == "2026-01-02T03:04:05.678Z"


def test_missing_table_is_refused(tmp_path: Path) -> None:
    with pytest.raises(RuntimeError, match="no jobs table"):
        EmbeddedQueue(tmp_path / "empty.sqlite")


def test_sum_job_completes_with_result_and_progress(jobs_db: Path) -> None:
    job_id = enqueue(jobs_db, "lab", "sum", {"values": [1, 2, 3.5]})
    other = enqueue(jobs_db, "other-queue", "sum", {"values": [1]})
    assert run_embedded(jobs_db, "lab", once=True) == 1
    row = job_row(jobs_db, "lab", job_id)
    assert row["status"] == "completed"
    assert json.loads(str(row["result"])) == 6.5
    assert json.loads(str(row["progress"])) == 50
    assert row["attempts_made"] == 1
    assert row["error"] is None
    assert row["lease_until"] is None and row["locked_by"] is None
    assert str(row["finished_at"]).endswith("Z")
    assert job_row(jobs_db, "other-queue", other)["status"] == "waiting"


def test_failed_attempt_backs_off_then_fails_for_good(jobs_db: Path) -> None:
    job_id = enqueue(jobs_db, "lab", "sum", {"values": "nope"}, attempts=2, backoff_ms=200)
    before = now_ms()
    assert run_embedded(jobs_db, "lab", once=True) == 1
    row = job_row(jobs_db, "lab", job_id)
    assert row["status"] == "delayed"
    assert "data.values must be a list" in str(row["error"])
    assert row["attempts_made"] == 1
    assert str(row["run_at"]) >= iso(before + 200)
    # Not due yet: --once finds nothing runnable.
    assert run_embedded(jobs_db, "lab", once=True) == 0
    time.sleep(0.25)
    assert run_embedded(jobs_db, "lab", once=True) == 1
    row = job_row(jobs_db, "lab", job_id)
    assert row["status"] == "failed"
    assert row["attempts_made"] == 2
    assert row["finished_at"] is not None


def test_unknown_job_name_fails_the_attempt(jobs_db: Path) -> None:
    job_id = enqueue(jobs_db, "lab", "nope", {}, attempts=1)
    run_embedded(jobs_db, "lab", once=True)
    row = job_row(jobs_db, "lab", job_id)
    assert row["status"] == "failed"
    assert "no handler" in str(row["error"])


def _abandon(path: Path, queue: str, job_id: str, attempts_made: int) -> None:
    """Leaves a job as a crashed worker would: active, with a lease already expired."""
    conn = connect(path)
    conn.execute(
        "UPDATE jobs SET status = 'active', attempts_made = ?, lease_until = ?, locked_by = 'dead#1'"
        " WHERE queue = ? AND id = ?",
        (attempts_made, iso(now_ms() - 1000), queue, job_id),
    )
    conn.close()


def test_crashed_workers_job_is_reclaimed(jobs_db: Path) -> None:
    job_id = enqueue(jobs_db, "lab", "echo", {"back": True})
    _abandon(jobs_db, "lab", job_id, attempts_made=1)
    assert run_embedded(jobs_db, "lab", once=True) == 1
    row = job_row(jobs_db, "lab", job_id)
    assert row["status"] == "completed"
    assert json.loads(str(row["result"])) == {"back": True}
    assert row["attempts_made"] == 2


def test_crash_on_the_last_attempt_fails_the_job(jobs_db: Path) -> None:
    job_id = enqueue(jobs_db, "lab", "echo", {}, attempts=1)
    _abandon(jobs_db, "lab", job_id, attempts_made=1)
    assert run_embedded(jobs_db, "lab", once=True) == 0
    row = job_row(jobs_db, "lab", job_id)
    assert row["status"] == "failed"
    assert row["error"] == LEASE_LOST_ERROR


def test_live_lease_is_not_stolen_and_heartbeat_keeps_it(jobs_db: Path) -> None:
    job_id = enqueue(jobs_db, "lab", "slow", {})
    started = threading.Event()

    def slow(ctx: JobContext) -> JsonValue:
        started.set()
        time.sleep(0.4)  # several lease lengths: only the heartbeat keeps the job ours
        return "done"

    # sqlite3 connections belong to their thread: the owner works in its own.
    owner = threading.Thread(
        target=run_embedded,
        args=(jobs_db, "lab"),
        kwargs={"handlers": {**HANDLERS, "slow": slow}, "once": True, "lease_ms": 90},
    )
    owner.start()
    rival = EmbeddedQueue(jobs_db, lease_ms=90)
    try:
        assert started.wait(5)
        for _ in range(5):
            assert rival.claim("lab") == []
            time.sleep(0.06)
    finally:
        owner.join()
        rival.close()
    row = job_row(jobs_db, "lab", job_id)
    assert row["status"] == "completed"
    assert row["attempts_made"] == 1


def test_writes_with_a_stale_token_change_nothing(jobs_db: Path) -> None:
    job_id = enqueue(jobs_db, "lab", "echo", {})
    q = EmbeddedQueue(jobs_db, lease_ms=50)
    try:
        [first] = q.claim("lab")
        time.sleep(0.08)
        [second] = q.claim("lab")  # lease lapsed: reclaimed under a new token
        assert second.id == first.id and second.token != first.token and second.attempt == 2
        assert q.complete(first, "stale") is False
        assert q.complete(second, "fresh") is True
    finally:
        q.close()
    assert json.loads(str(job_row(jobs_db, "lab", job_id)["result"])) == "fresh"


def test_cli_once(jobs_db: Path) -> None:
    job_id = enqueue(jobs_db, "cli", "sum", {"values": [2, 3]})
    proc = subprocess.run(
        [sys.executable, "-m", "lab.worker", "--queue", "cli", "--sqlite", str(jobs_db), "--once"],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(str(job_row(jobs_db, "cli", job_id)["result"])) == 5
    assert '"jobs_run": 1' in proc.stderr


def test_cli_rejects_bad_arguments() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "lab.worker", "--queue", "q", "--redis", "http://x"],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert proc.returncode == 2
    assert "--redis must be" in proc.stderr
