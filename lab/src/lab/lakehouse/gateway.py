"""Command line for the lakehouse gateway the service spawns or reaches over loopback.

    python -m lab.lakehouse.gateway --host 127.0.0.1 --port P --warehouse DIR \\
        --catalog-uri sqlite:////abs/catalog.db [--engine duckdb|spark] [--token T]

Once it accepts connections it prints one JSON line on stdout,
``{"msg":"lakehouse gateway listening","port":P}``, with the real port when ``--port 0``
asked for a free one; the service reads that line. Logs go to stderr as JSON lines.
The token may come from ``CAIRN_LAB_TOKEN`` instead of ``--token``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import socket
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import uvicorn

from lab.lakehouse.app import create_app
from lab.lakehouse.catalog import open_catalog, sqlite_path, warehouse_path
from lab.lakehouse.query import DEFAULT_MAX_ROWS, DuckDbEngine, QueryEngine
from lab.lakehouse.store import Lakehouse
from lab.logs import setup_logging

log = logging.getLogger("lab.lakehouse")
TOKEN_ENV = "CAIRN_LAB_TOKEN"


@dataclass(frozen=True)
class GatewayConfig:
    """Every option, checked once in ``parse_config``."""

    host: str
    port: int
    warehouse: str
    catalog_uri: str
    engine: Literal["duckdb", "spark"]
    token: str | None
    max_rows: int
    log_level: str


def parse_config(argv: Sequence[str] | None, env: dict[str, str] | None = None) -> GatewayConfig:
    env = dict(os.environ) if env is None else env
    p = argparse.ArgumentParser(
        prog="python -m lab.lakehouse.gateway", description="Serve the lakehouse over HTTP."
    )
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=0, help="0 picks a free port (printed on start)")
    p.add_argument("--warehouse", required=True, help="warehouse directory (or file: URI)")
    p.add_argument("--catalog-uri", required=True, help="sqlite:////absolute/path/catalog.db")
    p.add_argument("--engine", choices=["duckdb", "spark"], default="duckdb", help="engine behind /sql")
    p.add_argument("--token", default=None, help=f"required X-Lab-Token (default: ${TOKEN_ENV})")
    p.add_argument("--max-rows", type=int, default=DEFAULT_MAX_ROWS, help="largest /sql result")
    p.add_argument("--log-level", default="INFO")
    a = p.parse_args(argv)
    if not 0 <= a.port <= 65535:
        p.error("--port must be between 0 and 65535")
    if a.max_rows < 1:
        p.error("--max-rows must be >= 1")
    try:
        sqlite_path(a.catalog_uri)
    except ValueError as e:
        p.error(f"--catalog-uri: {e}")
    return GatewayConfig(
        host=a.host,
        port=a.port,
        warehouse=str(warehouse_path(a.warehouse)),
        catalog_uri=a.catalog_uri,
        engine=a.engine,
        token=a.token or env.get(TOKEN_ENV) or None,
        max_rows=a.max_rows,
        log_level=a.log_level,
    )


def build_engine(cfg: GatewayConfig, lakehouse: Lakehouse) -> QueryEngine:
    if cfg.engine == "duckdb":
        return DuckDbEngine(lakehouse, max_rows=cfg.max_rows)
    # Imported here: the embedded profile installs no PySpark.
    from lab.lakehouse.spark import SparkEngine, build_session

    session = build_session(cfg.catalog_uri, cfg.warehouse)
    return SparkEngine(lakehouse, session, owns_session=True, max_rows=cfg.max_rows)


def _bind(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(128)
    sock.set_inheritable(True)
    return sock


async def _serve(server: uvicorn.Server, sock: socket.socket) -> None:
    task = asyncio.create_task(server.serve(sockets=[sock]))
    while not server.started and not task.done():
        await asyncio.sleep(0.02)
    if server.started:
        port = sock.getsockname()[1]
        sys.stdout.write(json.dumps({"msg": "lakehouse gateway listening", "port": port}) + "\n")
        sys.stdout.flush()
    await task


def main(argv: Sequence[str] | None = None) -> int:
    cfg = parse_config(argv)
    setup_logging(cfg.log_level)
    # uvicorn's start/stop chatter repeats what the start line says; its errors still show.
    logging.getLogger("uvicorn.error").setLevel(max(logging.WARNING, logging.getLogger().level))
    lakehouse = Lakehouse(open_catalog(cfg.catalog_uri, cfg.warehouse))
    try:
        engine = build_engine(cfg, lakehouse)
    except Exception as e:  # SparkUnavailable, a JVM that would not start
        log.error("lakehouse engine failed to start", extra={"engine": cfg.engine, "error": str(e)})
        return 2
    app = create_app(lakehouse, engine, warehouse=warehouse_path(cfg.warehouse).as_uri(), token=cfg.token)
    server = uvicorn.Server(uvicorn.Config(app, log_config=None, access_log=False, lifespan="on"))
    asyncio.run(_serve(server, _bind(cfg.host, cfg.port)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
