"""Gateway routes that import custom tables (CSV, Parquet, JSON rows) into a namespace.

``POST /imports/{ns}/{table}?format=csv|parquet&mode=&header=&columns=&delimiter=&null_values=``
takes the file as the raw request body (streamed to a spooled temporary file, parsed in
the thread pool); ``POST /imports/{ns}/{table}/rows`` takes ``{mode, rows: [{...}]}``.
Both answer ``{name, columns, row_count, mode, snapshot_id}``; bad input is 422
``{detail, loc, type, input}`` (see ``lab.lakehouse.imports``).
``GET /namespaces/{ns}/summaries`` lists every table with columns, row count and source.
"""

from __future__ import annotations

import json
import tempfile
from typing import IO

import pyarrow as pa
from starlette.concurrency import run_in_threadpool
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from lab.lakehouse.errors import LakehouseError
from lab.lakehouse.imports import (
    MODES,
    CsvOptions,
    ImportMode,
    ImportProblem,
    ImportResult,
    import_table,
    parse_upload,
    rows_table,
    summarise,
    to_storable,
)
from lab.lakehouse.names import check_name
from lab.lakehouse.store import Lakehouse

# Uploads larger than this spill from memory to a temporary file while they arrive.
SPOOL_BYTES = 8 * 1024 * 1024


def _mode(raw: str | None) -> ImportMode:
    mode = raw or "create"
    if mode not in MODES:
        raise ImportProblem(["body", "mode"], "Input should be 'create', 'replace' or 'append'", "enum", mode)
    return mode  # type: ignore[return-value]


def _bool(raw: str | None, default: bool) -> bool:
    if raw is None or raw == "":
        return default
    if raw.lower() in ("true", "1", "yes"):
        return True
    if raw.lower() in ("false", "0", "no"):
        return False
    raise ImportProblem(["body", "header"], "Input should be a valid boolean", "bool_parsing", raw)


def _list(raw: str | None) -> list[str] | None:
    if raw is None or raw.strip() == "":
        return None
    return [s.strip() for s in raw.split(",")]


def _result(r: ImportResult) -> dict[str, object]:
    return {
        "name": r.name,
        "columns": [c.as_json() for c in r.columns],
        "row_count": r.row_count,
        "mode": r.mode,
        "snapshot_id": r.snapshot_id,
        "source": "custom",
    }


def import_routes(lakehouse: Lakehouse) -> list[Route]:
    """The import routes over ``lakehouse``."""

    def target(request: Request) -> tuple[str, str]:
        ns = check_name("namespace", request.path_params["ns"])
        table = check_name("table", request.path_params["table"])
        return ns, table

    def write(ns: str, table: str, data: pa.Table, mode: ImportMode) -> ImportResult:
        if not lakehouse.catalog.namespace_exists(ns):
            raise LakehouseError("not_found", f"namespace {ns} does not exist")
        storable, columns = to_storable(data)
        with lakehouse._table_lock(ns, table):  # noqa: SLF001 - the store's per-table writer lock
            return import_table(lakehouse.catalog, (ns, table), storable, columns, mode)

    def parse_and_write(
        ns: str, table: str, fmt: str, body: IO[bytes], opts: CsvOptions, mode: ImportMode
    ) -> ImportResult:
        body.seek(0)
        return write(ns, table, parse_upload(fmt, body, opts), mode)

    async def import_file(request: Request) -> Response:
        ns, table = target(request)
        q = request.query_params
        try:
            fmt = q.get("format", "csv")
            if fmt not in ("csv", "parquet"):
                raise LakehouseError("bad_request", f"unknown format {fmt!r}: csv or parquet")
            mode = _mode(q.get("mode"))
            opts = CsvOptions(
                header=_bool(q.get("header"), True),
                columns=_list(q.get("columns")),
                delimiter=q.get("delimiter") or ",",
                null_values=_list(q.get("null_values")) or [],
            )
            with tempfile.SpooledTemporaryFile(max_size=SPOOL_BYTES) as spool:
                size = 0
                try:
                    async for chunk in request.stream():
                        size += len(chunk)
                        spool.write(chunk)
                except ClientDisconnect:
                    return Response(status_code=499)
                if size == 0:
                    raise ImportProblem(["body", "file"], "The file is empty", "missing")
                result = await run_in_threadpool(parse_and_write, ns, table, fmt, spool, opts, mode)
        except ImportProblem as p:
            return JSONResponse(p.as_json(), status_code=422)
        return JSONResponse(_result(result))

    async def import_rows(request: Request) -> Response:
        ns, table = target(request)
        try:
            try:
                body = json.loads(await request.body())
            except (json.JSONDecodeError, UnicodeDecodeError):
                raise LakehouseError("bad_request", "the request body must be JSON") from None
            if not isinstance(body, dict):
                raise LakehouseError("bad_request", "the request body must be an object")
            mode = _mode(body.get("mode"))
            data = await run_in_threadpool(rows_table, body.get("rows"))
            result = await run_in_threadpool(write, ns, table, data, mode)
        except ImportProblem as p:
            return JSONResponse(p.as_json(), status_code=422)
        return JSONResponse(_result(result))

    async def summaries(request: Request) -> Response:
        ns = check_name("namespace", request.path_params["ns"])

        def run() -> list[dict[str, object]]:
            return summarise(lakehouse.catalog, ns, lakehouse.list_tables(ns))

        return JSONResponse({"tables": await run_in_threadpool(run)})

    return [
        Route("/imports/{ns}/{table}", import_file, methods=["POST"]),
        Route("/imports/{ns}/{table}/rows", import_rows, methods=["POST"]),
        Route("/namespaces/{ns}/summaries", summaries, methods=["GET"]),
    ]
