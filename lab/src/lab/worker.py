"""Command line for the lab worker: consume one Cairn job queue.

    python -m lab.worker --queue NAME --sqlite PATH [--once]
    python -m lab.worker --queue NAME --redis URL [--prefix cairn] [--once]

``--sqlite`` works the embedded queue in the service's SQLite file; ``--redis`` works
the BullMQ queue. ``--once`` exits when nothing is left to run instead of waiting for
more. Logs go to stderr as JSON lines; the exit status is 0 unless start-up fails.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import signal
import sys
import threading
from collections.abc import Sequence

from lab.logs import setup_logging


def _parse(argv: Sequence[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m lab.worker", description="Consume a Cairn job queue.")
    p.add_argument("--queue", required=True, help="queue name, as the service enqueues it")
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--sqlite", metavar="PATH", help="the service's SQLite control-plane file")
    src.add_argument("--redis", metavar="URL", help="redis:// URL of the BullMQ queues")
    p.add_argument("--prefix", default="cairn", help="BullMQ key prefix (default: cairn)")
    p.add_argument("--once", action="store_true", help="exit when no job is left to run")
    p.add_argument("--concurrency", type=int, default=1, help="BullMQ jobs in flight (default: 1)")
    p.add_argument("--lease-ms", type=int, default=30_000, help="lease / lock duration in ms")
    p.add_argument("--poll-ms", type=int, default=500, help="embedded queue idle poll interval in ms")
    p.add_argument("--log-level", default="INFO")
    args = p.parse_args(argv)
    if args.redis and not args.redis.startswith(("redis://", "rediss://")):
        p.error("--redis must be a redis:// or rediss:// URL")
    if args.lease_ms < 30 or args.poll_ms < 1 or args.concurrency < 1:
        p.error("--lease-ms must be >= 30, --poll-ms >= 1 and --concurrency >= 1")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = _parse(argv)
    setup_logging(args.log_level)
    log = logging.getLogger("lab.worker")

    if args.sqlite:
        from lab.jobs.embedded import run_embedded

        stop = threading.Event()
        signal.signal(signal.SIGTERM, lambda *_: stop.set())
        ran = run_embedded(
            args.sqlite,
            args.queue,
            once=args.once,
            poll_s=args.poll_ms / 1000,
            lease_ms=args.lease_ms,
            stop=stop,
        )
    else:
        from lab.jobs.redis_worker import run_redis

        async def go() -> int:
            stop = asyncio.Event()
            asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
            return await run_redis(
                args.redis,
                args.queue,
                prefix=args.prefix,
                once=args.once,
                concurrency=args.concurrency,
                lock_duration_ms=args.lease_ms,
                stop=stop,
            )

        ran = asyncio.run(go())
    log.info("worker stopped", extra={"queue": args.queue, "jobs_run": ran})
    return 0


if __name__ == "__main__":
    sys.exit(main())
