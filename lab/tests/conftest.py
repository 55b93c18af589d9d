"""Shared fixtures: a jobs database created from the service's DDL, and the test Redis."""

from __future__ import annotations

import json
import os
import sqlite3
import uuid
from pathlib import Path

import pytest

from lab.jobs.embedded import connect, iso, now_ms, sqlite_ddl


@pytest.fixture
def jobs_db(tmp_path: Path) -> Path:
    path = tmp_path / "cp.sqlite"
    conn = connect(path)
    conn.executescript(sqlite_ddl())
    conn.close()
    return path


def enqueue(
    path: Path,
    queue: str,
    name: str,
    data: object,
    *,
    attempts: int = 3,
    backoff_ms: int = 1000,
    job_id: str | None = None,
) -> str:
    """Inserts a job the way the service's enqueue does (embedded-store.ts JobsTable.insert)."""
    job_id = job_id or str(uuid.uuid4())
    now = iso(now_ms())
    conn = connect(path)
    conn.execute(
        "INSERT INTO jobs (queue, id, name, data, status, attempts_made, max_attempts, backoff_ms, run_at,"
        " progress, created_at) VALUES (?, ?, ?, ?, 'waiting', 0, ?, ?, ?, '0', ?)",
        (queue, job_id, name, json.dumps(data), attempts, backoff_ms, now, now),
    )
    conn.close()
    return job_id


def job_row(path: Path, queue: str, job_id: str) -> dict[str, object]:
    conn = connect(path)
    conn.row_factory = sqlite3.Row
    row = conn.execute("SELECT * FROM jobs WHERE queue = ? AND id = ?", (queue, job_id)).fetchone()
    conn.close()
    assert row is not None, f"job {queue}/{job_id} not found"
    return dict(row)


@pytest.fixture
def redis_url() -> str:
    url = os.environ.get("CAIRN_TEST_REDIS_URL")
    if url:
        return url
    if os.environ.get("CI"):
        pytest.fail("CAIRN_TEST_REDIS_URL is not set: the Redis suites must run under CI")
    pytest.skip("CAIRN_TEST_REDIS_URL is not set (run scripts/engines.sh start)")


@pytest.fixture
def s3_url() -> str:
    """http://key:secret@host:port/bucket of the S3-compatible test store (scripts/s3proxy.sh)."""
    url = os.environ.get("CAIRN_TEST_S3_URL")
    if url:
        return url
    if os.environ.get("CI"):
        pytest.fail("CAIRN_TEST_S3_URL is not set: the S3 suites must run under CI")
    pytest.skip("CAIRN_TEST_S3_URL is not set (run scripts/engines.sh start)")
