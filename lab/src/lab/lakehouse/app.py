"""The gateway's HTTP app (docs/lakehouse-gateway.md): thin routes over ``Lakehouse``.

Routes validate input (names, bodies) and hand blocking catalog and engine work to
Starlette's thread pool so one slow write never stalls ``/health``. Every failure
becomes ``{detail}`` with the status of its ``LakehouseError`` code; anything
unexpected is logged with its traceback and answered 500.
"""

from __future__ import annotations

import hmac
import json
import logging
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import TypeVar

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from lab.foundry.routes import foundry_routes
from lab.lakehouse import payloads
from lab.lakehouse.columns import Column
from lab.lakehouse.errors import LakehouseError
from lab.lakehouse.import_routes import import_routes
from lab.lakehouse.names import check_name
from lab.lakehouse.query import QueryEngine
from lab.lakehouse.store import Lakehouse

log = logging.getLogger("lab.lakehouse")
T = TypeVar("T")
TOKEN_HEADER = "x-lab-token"


class TokenGuard:
    """Refuses every call without the shared ``X-Lab-Token`` (ASGI middleware)."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self.token = token.encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            sent = dict(scope["headers"]).get(TOKEN_HEADER.encode(), b"")
            if not hmac.compare_digest(sent, self.token):
                await JSONResponse({"detail": "missing or wrong X-Lab-Token"}, status_code=401)(
                    scope, receive, send
                )
                return
        await self.app(scope, receive, send)


async def _blocking(fn: Callable[..., T], *args: object) -> T:
    return await run_in_threadpool(fn, *args)


async def _json(request: Request) -> object:
    try:
        return await request.json()
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise LakehouseError("bad_request", "the request body must be JSON") from None


def _rows(columns: list[Column], rows: list[list[object]]) -> JSONResponse:
    return JSONResponse({"columns": [c.as_json() for c in columns], "rows": rows})


def create_app(
    lakehouse: Lakehouse, engine: QueryEngine, *, warehouse: str, token: str | None = None
) -> ASGIApp:
    """The gateway app; closes ``engine`` when the server shuts down."""

    def ns_param(request: Request) -> str:
        return check_name("namespace", request.path_params["ns"])

    def table_params(request: Request) -> tuple[str, str]:
        return ns_param(request), check_name("table", request.path_params["table"])

    async def health(_: Request) -> Response:
        return JSONResponse({"status": "ok", "catalog": "sql", "engine": engine.name, "warehouse": warehouse})

    async def list_namespaces(_: Request) -> Response:
        return JSONResponse({"namespaces": await _blocking(lakehouse.list_namespaces)})

    async def create_namespace(request: Request) -> Response:
        ns = payloads.namespace_body(await _json(request))
        created = await _blocking(lakehouse.create_namespace, ns)
        return JSONResponse({"namespace": ns, "created": created}, status_code=201 if created else 200)

    async def get_namespace(request: Request) -> Response:
        ns = ns_param(request)
        return JSONResponse(
            {"namespace": ns, "properties": await _blocking(lakehouse.namespace_properties, ns)}
        )

    async def drop_namespace(request: Request) -> Response:
        await _blocking(lakehouse.drop_namespace, ns_param(request))
        return Response(status_code=204)

    async def list_tables(request: Request) -> Response:
        return JSONResponse({"tables": await _blocking(lakehouse.list_tables, ns_param(request))})

    async def schema(request: Request) -> Response:
        columns = await _blocking(lakehouse.columns, *table_params(request))
        return JSONResponse({"columns": [c.as_json() for c in columns]})

    async def preview(request: Request) -> Response:
        raw = request.query_params.get("limit", "100")
        if not raw.isdigit():
            raise LakehouseError("bad_request", "limit must be a positive integer")
        columns, rows = await _blocking(lakehouse.preview, *table_params(request), int(raw))
        return _rows(columns, rows)

    async def snapshot(request: Request) -> Response:
        snapshot_id, props = await _blocking(lakehouse.snapshot, *table_params(request))
        return JSONResponse({"snapshot_id": snapshot_id, "properties": props})

    async def write(request: Request) -> Response:
        ns, table = table_params(request)
        req = payloads.write_body(await _json(request))
        result = await _blocking(lakehouse.write, ns, table, req)
        log.info(
            "lakehouse write",
            extra={"namespace": ns, "table": table, "mode": req.mode, "rows": result.rows_written},
        )
        return JSONResponse({"snapshot_id": result.snapshot_id, "rows_written": result.rows_written})

    async def sql(request: Request) -> Response:
        ns, statement = payloads.sql_body(await _json(request))
        result = await _blocking(engine.query, ns, statement)
        return _rows(result.columns, result.rows)

    async def smoke(request: Request) -> Response:
        await _blocking(lakehouse.smoke, payloads.namespace_body(await _json(request)))
        return JSONResponse({"ok": True})

    async def on_lakehouse_error(_: Request, exc: Exception) -> Response:
        assert isinstance(exc, LakehouseError)
        return JSONResponse({"detail": exc.detail}, status_code=exc.status)

    async def on_http_error(_: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        return JSONResponse({"detail": exc.detail}, status_code=exc.status_code)

    async def on_unexpected(request: Request, exc: Exception) -> Response:
        log.error("lakehouse request failed", exc_info=exc, extra={"path": request.url.path})
        return JSONResponse({"detail": f"internal error: {type(exc).__name__}: {exc}"}, status_code=500)

    @asynccontextmanager
    async def lifespan(_: Starlette) -> AsyncIterator[None]:
        try:
            yield
        finally:
            await _blocking(engine.close)

    table = "/tables/{ns}/{table}"
    app = Starlette(
        routes=[
            Route("/health", health, methods=["GET"]),
            Route("/namespaces", list_namespaces, methods=["GET"]),
            Route("/namespaces", create_namespace, methods=["POST"]),
            Route("/namespaces/{ns}", get_namespace, methods=["GET"]),
            Route("/namespaces/{ns}", drop_namespace, methods=["DELETE"]),
            Route("/namespaces/{ns}/tables", list_tables, methods=["GET"]),
            Route(f"{table}/schema", schema, methods=["GET"]),
            Route(f"{table}/preview", preview, methods=["GET"]),
            Route(f"{table}/snapshot", snapshot, methods=["GET"]),
            Route(f"{table}/write", write, methods=["POST"]),
            Route("/sql", sql, methods=["POST"]),
            Route("/smoke", smoke, methods=["POST"]),
            *import_routes(lakehouse),
            *foundry_routes(lakehouse, engine),
        ],
        exception_handlers={
            LakehouseError: on_lakehouse_error,
            HTTPException: on_http_error,
            Exception: on_unexpected,
        },
        lifespan=lifespan,
    )
    return TokenGuard(app, token) if token else app
