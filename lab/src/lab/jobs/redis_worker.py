"""Consumer for Cairn's BullMQ queues on Redis, using the Python ``bullmq`` package.

The service enqueues with BullMQ (Node) under a key prefix (default ``cairn``); this
worker must use the same prefix and queue name. Attempts, exponential backoff, locks
and stalled-job recovery are BullMQ's own and behave as in the service's workers.
Keep ``lock_duration_ms`` and ``stalled_interval_ms`` equal to the service's values:
BullMQ throttles stalled checks across all workers of a queue by the last checker's
interval.

Handlers are synchronous; each runs in a thread so the event loop keeps renewing the
job's lock while it works. Progress reported from the thread is sent through the loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from bullmq import Job, Queue, Worker

from lab.jobs.handlers import HANDLERS, Handler, JsonValue, handler_for

log = logging.getLogger(__name__)

PROGRESS_TIMEOUT_S = 30.0


@dataclass
class _Context:
    """The JobContext handed to handlers for a BullMQ job (used from a worker thread)."""

    job: Job
    loop: asyncio.AbstractEventLoop

    @property
    def id(self) -> str:
        return str(self.job.id)

    @property
    def name(self) -> str:
        return str(self.job.name)

    @property
    def data(self) -> JsonValue:
        data: JsonValue = self.job.data
        return data

    @property
    def attempt(self) -> int:
        return int(self.job.attemptsMade) + 1

    def progress(self, value: JsonValue) -> None:
        fut = asyncio.run_coroutine_threadsafe(self.job.updateProgress(value), self.loop)
        fut.result(timeout=PROGRESS_TIMEOUT_S)


async def _drained(queue: Queue) -> bool:
    """True when nothing in the queue is ready to run or running (delayed jobs do not count)."""
    counts = await queue.getJobCounts("waiting", "prioritized", "active")
    return sum(int(v) for v in counts.values()) == 0


async def run_redis(
    url: str,
    queue_name: str,
    *,
    prefix: str = "cairn",
    handlers: Mapping[str, Handler] = HANDLERS,
    once: bool = False,
    concurrency: int = 1,
    lock_duration_ms: int = 30_000,
    stalled_interval_ms: int = 30_000,
    poll_s: float = 0.1,
    stop: asyncio.Event | None = None,
) -> int:
    """Works one BullMQ queue; returns how many jobs this worker ran.

    With ``once`` it returns when the queue has no waiting or active jobs (a job that
    failed and waits for its retry is not waited for); otherwise it runs until ``stop``.
    """
    if concurrency < 1:
        raise ValueError("concurrency must be at least 1")
    loop = asyncio.get_running_loop()
    stop = stop or asyncio.Event()
    ran = 0

    async def process(job: Job, token: str) -> Any:
        nonlocal ran
        ran += 1
        handler = handler_for(str(job.name), handlers)
        # One line at each end, so a job that never ends shows where it stopped.
        log.info("job started", extra={"job_id": job.id, "job": job.name, "attempt": job.attemptsMade + 1})
        result = await asyncio.to_thread(handler, _Context(job, loop))
        log.info("job done", extra={"job_id": job.id, "job": job.name})
        return result

    opts: dict[str, Any] = {
        "connection": url,
        "prefix": prefix,
        "concurrency": concurrency,
        "lockDuration": lock_duration_ms,
        "stalledInterval": stalled_interval_ms,
    }
    worker = Worker(queue_name, process, opts)
    worker.on(
        "failed",
        lambda job, err: log.warning("job attempt failed", extra={"job_id": job.id, "error": str(err)}),
    )
    worker.on("error", lambda err, *_: log.error("bullmq worker error", extra={"error": str(err)}))
    watcher = Queue(queue_name, {"connection": url, "prefix": prefix}) if once else None
    try:
        while not stop.is_set():
            if watcher is not None and await _drained(watcher):
                break
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), timeout=poll_s)
    finally:
        await worker.close()
        if watcher is not None:
            await watcher.close()
    return ran
