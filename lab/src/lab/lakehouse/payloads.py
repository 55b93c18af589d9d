"""Request bodies checked at the HTTP edge and turned into typed values.

Inner code trusts what comes out of here: names match the name rule, column types are
known, rows are arrays, properties are strings. Each failure is a 400 that names the
field, mirroring the zod checks on the service side.
"""

from __future__ import annotations

from typing import cast

from lab.lakehouse.columns import Column, parse_type
from lab.lakehouse.errors import LakehouseError
from lab.lakehouse.names import check_column, check_name
from lab.lakehouse.writes import WriteMode, WriteRequest

_MODES: tuple[WriteMode, ...] = ("overwrite", "append", "upsert")
# Iceberg writes these summary keys itself; a caller's value would be overwritten or clash.
_RESERVED_PROPERTIES = {"operation"}


def _bad(detail: str) -> LakehouseError:
    return LakehouseError("bad_request", detail)


def _object(body: object) -> dict[str, object]:
    if not isinstance(body, dict):
        raise _bad("the request body must be a JSON object")
    return cast(dict[str, object], body)


def namespace_body(body: object) -> str:
    """``{namespace}`` bodies (POST /namespaces, /smoke)."""
    return check_name("namespace", _object(body).get("namespace"))


def sql_body(body: object) -> tuple[str, str]:
    """``{namespace, sql}`` -> (namespace, statement)."""
    obj = _object(body)
    sql = obj.get("sql")
    if not isinstance(sql, str) or not sql.strip():
        raise _bad("sql must be a non-empty string")
    return check_name("namespace", obj.get("namespace")), sql


def _columns(raw: object) -> list[Column]:
    if not isinstance(raw, list) or not raw:
        raise _bad("columns must be a non-empty array")
    out: list[Column] = []
    for i, c in enumerate(raw):
        if not isinstance(c, dict) or not isinstance(c.get("type"), str):
            raise _bad(f"columns[{i}] must be an object with name and type")
        nullable = c.get("nullable", True)
        if not isinstance(nullable, bool):
            raise _bad(f"columns[{i}].nullable must be a boolean")
        name = check_column(c.get("name"))
        parse_type(c["type"])  # 400 for unknown types, before any catalog work
        out.append(Column(name, c["type"].strip().lower().replace(" ", ""), nullable))
    names = [c.name.lower() for c in out]
    if len(set(names)) != len(names):
        raise _bad("column names must be unique (case-insensitively)")
    return out


def _properties(raw: object) -> dict[str, str]:
    if raw is None:
        return {}
    if not isinstance(raw, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in raw.items()
    ):
        raise _bad("snapshot_properties must be an object of string values")
    clash = _RESERVED_PROPERTIES.intersection(raw)
    if clash:
        raise _bad(f"snapshot_properties may not set {sorted(clash)}")
    return cast(dict[str, str], dict(raw))


def write_body(body: object) -> WriteRequest:
    """A ``WriteRequest`` (``domain/lakehouse/ports.ts``)."""
    obj = _object(body)
    mode = obj.get("mode")
    if mode not in _MODES:
        raise _bad(f"mode must be one of {', '.join(_MODES)}")
    columns = _columns(obj.get("columns"))
    rows = obj.get("rows")
    if not isinstance(rows, list):
        raise _bad("rows must be an array of arrays")
    keys_raw = obj.get("key_columns") or []
    if not isinstance(keys_raw, list) or not all(isinstance(k, str) for k in keys_raw):
        raise _bad("key_columns must be an array of column names")
    keys = cast(list[str], keys_raw)
    if mode == "upsert":
        if not keys:
            raise _bad("upsert needs key_columns")
        unknown = [k for k in keys if k not in {c.name for c in columns}]
        if unknown or len(set(keys)) != len(keys):
            raise _bad(f"key_columns must be distinct request columns (unknown: {unknown})")
    return WriteRequest(
        mode=mode,
        columns=columns,
        rows=cast(list[list[object]], rows),
        key_columns=keys,
        snapshot_properties=_properties(obj.get("snapshot_properties")),
    )
