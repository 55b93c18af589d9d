"""The BullMQ consumer against the test Redis, with jobs added by Python bullmq's Queue."""

from __future__ import annotations

import asyncio
import uuid

import redis.asyncio as aioredis
from bullmq import Queue

from lab.jobs.redis_worker import run_redis


async def _cleanup(url: str, prefix: str) -> None:
    client = aioredis.from_url(url)
    try:
        keys = [k async for k in client.scan_iter(match=f"{prefix}:*", count=500)]
        if keys:
            await client.delete(*keys)
    finally:
        await client.aclose()


def test_sum_and_echo_jobs_complete(redis_url: str) -> None:
    prefix = f"labt_{uuid.uuid4().hex[:12]}"

    async def go() -> None:
        queue = Queue("lab", {"connection": redis_url, "prefix": prefix})
        try:
            a = await queue.add("sum", {"values": [1, 2, 3]}, {"attempts": 2})
            b = await queue.add("echo", {"x": [1, "y"]})
            ran = await run_redis(redis_url, "lab", prefix=prefix, once=True, concurrency=2)
            assert ran == 2
            ja = await queue.getJob(a.id)
            jb = await queue.getJob(b.id)
            assert await queue.getJobState(a.id) == "completed"
            assert ja.returnvalue == 6
            assert ja.progress == 50
            assert jb.returnvalue == {"x": [1, "y"]}
        finally:
            await queue.close()
            await _cleanup(redis_url, prefix)

    asyncio.run(go())


def test_failure_is_recorded_with_its_reason(redis_url: str) -> None:
    prefix = f"labt_{uuid.uuid4().hex[:12]}"

    async def go() -> None:
        queue = Queue("lab", {"connection": redis_url, "prefix": prefix})
        try:
            job = await queue.add("sum", {"values": ["a"]}, {"attempts": 1})
            await run_redis(redis_url, "lab", prefix=prefix, once=True)
            assert await queue.getJobState(job.id) == "failed"
            stored = await queue.getJob(job.id)
            assert "data.values must be a list" in stored.failedReason
        finally:
            await queue.close()
            await _cleanup(redis_url, prefix)

    asyncio.run(go())
