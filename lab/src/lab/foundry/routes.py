"""Gateway routes of Foundry: dataset builds, table schemas of a namespace, and previews
moved as Arrow IPC streams (``application/vnd.apache.arrow.stream``)."""

from __future__ import annotations

import json
import logging

import pyarrow as pa
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from lab.foundry.build import Builder, parse_build
from lab.lakehouse import payloads
from lab.lakehouse.columns import arrow_columns, columns_of
from lab.lakehouse.errors import LakehouseError
from lab.lakehouse.names import check_name
from lab.lakehouse.query import QueryEngine
from lab.lakehouse.store import MAX_PREVIEW, Lakehouse

log = logging.getLogger("lab.foundry")
ARROW_STREAM = "application/vnd.apache.arrow.stream"
COLUMNS_METADATA = b"cairn.columns"


def arrow_ipc(data: pa.Table, columns_json: str) -> bytes:
    """The table as one IPC stream; Iceberg column types ride along in the schema metadata."""
    # Decimals travel as text: JavaScript has no decimal type, and text is lossless.
    fields = [
        pa.field(f.name, pa.string(), nullable=True) if pa.types.is_decimal(f.type) else f
        for f in data.schema
    ]
    data = data.cast(pa.schema(fields, metadata={COLUMNS_METADATA: columns_json.encode()}))
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, data.schema) as writer:
        writer.write_table(data)
    return sink.getvalue().to_pybytes()


def foundry_routes(lakehouse: Lakehouse, engine: QueryEngine) -> list[Route]:
    """The Foundry routes over ``lakehouse`` and the gateway's engine."""
    builder = Builder(lakehouse, engine)

    async def build(request: Request) -> Response:
        try:
            body = await request.json()
        except (json.JSONDecodeError, UnicodeDecodeError):
            raise LakehouseError("bad_request", "the request body must be JSON") from None
        req = parse_build(body)
        result = await run_in_threadpool(builder.build, req)
        log.info(
            "dataset built",
            extra={
                "namespace": req.namespace,
                "table": req.output_table,
                "rows": result.rows,
                "engine": result.engine,
            },
        )
        return JSONResponse({"rows": result.rows, "snapshot_id": result.snapshot_id, "engine": result.engine})

    def _schemas(ns: str) -> dict[str, list[dict[str, object]]]:
        return {t: [c.as_json() for c in lakehouse.columns(ns, t)] for t in lakehouse.list_tables(ns)}

    async def schemas(request: Request) -> Response:
        ns = check_name("namespace", request.path_params["ns"])
        return JSONResponse({"tables": await run_in_threadpool(_schemas, ns)})

    def _preview(ns: str, table: str, limit: int) -> bytes:
        tbl = lakehouse.load(ns, table)
        data = tbl.scan(limit=limit).to_arrow().slice(0, limit)
        columns = json.dumps([c.as_json() for c in columns_of(tbl.schema())])
        return arrow_ipc(data, columns)

    async def preview(request: Request) -> Response:
        ns = check_name("namespace", request.path_params["ns"])
        table = check_name("table", request.path_params["table"])
        raw = request.query_params.get("limit", "100")
        if not raw.isdigit() or not 1 <= int(raw) <= MAX_PREVIEW:
            raise LakehouseError("bad_request", f"limit must be between 1 and {MAX_PREVIEW}")
        body = await run_in_threadpool(_preview, ns, table, int(raw))
        return Response(body, media_type=ARROW_STREAM)

    def _sql(ns: str, statement: str) -> bytes:
        data = engine.query_arrow(ns, statement)
        return arrow_ipc(data, json.dumps([c.as_json() for c in arrow_columns(data.schema)]))

    async def sql(request: Request) -> Response:
        try:
            body = await request.json()
        except (json.JSONDecodeError, UnicodeDecodeError):
            raise LakehouseError("bad_request", "the request body must be JSON") from None
        ns, statement = payloads.sql_body(body)
        return Response(await run_in_threadpool(_sql, ns, statement), media_type=ARROW_STREAM)

    def _check_training(body: dict[str, object]) -> dict[str, object]:
        try:
            from lab.models.data import TableRef
            from lab.models.run import check_request
        except ImportError as e:  # the gateway was installed without the ml extra
            raise LakehouseError("unavailable", f"model training is not installed here: {e}") from None
        ns = check_name("namespace", body.get("namespace"))
        table = check_name("table", body.get("table"))
        lakehouse.load(ns, table)  # 404 when absent
        features = body.get("feature_columns") or None
        problem = body.get("problem_type") or None
        target = body.get("target_column")
        if not isinstance(target, str) or (features is not None and not isinstance(features, list)):
            raise LakehouseError("bad_request", "target_column must be a string and feature_columns a list")
        label = body.get("label_column") or None  # anomaly runs only
        if label is not None and not isinstance(label, str):
            raise LakehouseError("bad_request", "label_column must be a string")
        try:
            # timeseries and anomaly: time column, numeric target, enough points (lab.models.series_run)
            return check_request(
                TableRef(lakehouse, ns, table), target, features, problem, label_column=label
            )
        except ValueError as e:
            raise LakehouseError("unprocessable", str(e)) from None

    async def check_training(request: Request) -> Response:
        try:
            body = await request.json()
        except (json.JSONDecodeError, UnicodeDecodeError):
            raise LakehouseError("bad_request", "the request body must be JSON") from None
        if not isinstance(body, dict):
            raise LakehouseError("bad_request", "the request body must be a JSON object")
        return JSONResponse(await run_in_threadpool(_check_training, body))

    return [
        Route("/foundry/build", build, methods=["POST"]),
        Route("/foundry/models/check", check_training, methods=["POST"]),
        Route("/foundry/sql", sql, methods=["POST"]),
        Route("/foundry/schemas/{ns}", schemas, methods=["GET"]),
        Route("/foundry/arrow/{ns}/{table}", preview, methods=["GET"]),
    ]
