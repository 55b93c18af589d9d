"""Row values between JSON and Arrow.

Requests carry rows as JSON arrays aligned with ``columns``; JSON has no dates, decimals
or bytes, so the contract spells them as strings (ISO 8601 dates and timestamps, decimal
strings or numbers, base64 bytes). Conversion is strict and names the row and column of
the first bad value: a silently coerced watermark or amount is worse than a 400.
Answers go the other way with the same spellings.
"""

from __future__ import annotations

import base64
import binascii
import datetime as dt
import decimal
import math
import uuid
from collections.abc import Callable, Sequence

import pyarrow as pa
from pyiceberg.schema import Schema
from pyiceberg.types import (
    BinaryType,
    BooleanType,
    DateType,
    DecimalType,
    DoubleType,
    FloatType,
    IcebergType,
    IntegerType,
    LongType,
    StringType,
    TimestampType,
    TimestamptzType,
)

from lab.lakehouse.errors import LakehouseError

Converter = Callable[[object], object]
_INT32 = (-(2**31), 2**31 - 1)
_INT64 = (-(2**63), 2**63 - 1)


def _integer(bounds: tuple[int, int]) -> Converter:
    def conv(v: object) -> object:
        if isinstance(v, bool) or not isinstance(v, int | str):
            raise ValueError("expected an integer")
        try:
            n = int(v)  # a decimal-digit string carries longs past 2**53 from JavaScript intact
        except ValueError:
            raise ValueError(f"expected an integer, got {v!r}") from None
        if not bounds[0] <= n <= bounds[1]:
            raise ValueError(f"{n} is out of range")
        return n

    return conv


def _floating(v: object) -> object:
    if isinstance(v, bool) or not isinstance(v, int | float | str):
        raise ValueError("expected a number")
    return float(v)


def _boolean(v: object) -> object:
    if not isinstance(v, bool):
        raise ValueError("expected true or false")
    return v


def _string(v: object) -> object:
    if not isinstance(v, str):
        raise ValueError("expected a string")
    return v


def _binary(v: object) -> object:
    if not isinstance(v, str):
        raise ValueError("expected a base64 string")
    try:
        return base64.b64decode(v, validate=True)
    except binascii.Error as e:
        raise ValueError("expected a base64 string") from e


def _decimal(t: DecimalType) -> Converter:
    exp = decimal.Decimal(1).scaleb(-t.scale)

    def conv(v: object) -> object:
        if isinstance(v, bool) or not isinstance(v, int | float | str):
            raise ValueError("expected a decimal string or number")
        d = decimal.Decimal(str(v))
        if not d.is_finite() or d != d.quantize(exp):
            raise ValueError(f"{v!r} does not fit decimal({t.precision},{t.scale}) without rounding")
        if len(d.quantize(exp).as_tuple().digits) > t.precision:
            raise ValueError(f"{v!r} has more than {t.precision} digits")
        return d

    return conv


def _date(v: object) -> object:
    if not isinstance(v, str):
        raise ValueError("expected an ISO date string")
    return dt.date.fromisoformat(v)


def _timestamp(with_zone: bool) -> Converter:
    def conv(v: object) -> object:
        if not isinstance(v, str):
            raise ValueError("expected an ISO 8601 timestamp string")
        ts = dt.datetime.fromisoformat(v)
        if with_zone:
            # A zoneless instant is read as UTC, the service's clock.
            return ts if ts.tzinfo else ts.replace(tzinfo=dt.UTC)
        # A zoned instant stored in a zoneless column keeps its UTC wall time.
        return ts.astimezone(dt.UTC).replace(tzinfo=None) if ts.tzinfo else ts

    return conv


def converter_for(t: IcebergType) -> Converter:
    """The JSON -> Python converter for one Iceberg type; 400 for types writes do not support."""
    match t:
        case BooleanType():
            return _boolean
        case IntegerType():
            return _integer(_INT32)
        case LongType():
            return _integer(_INT64)
        case FloatType() | DoubleType():
            return _floating
        case DecimalType():
            return _decimal(t)
        case DateType():
            return _date
        case TimestamptzType():
            return _timestamp(True)
        case TimestampType():
            return _timestamp(False)
        case StringType():
            return _string
        case BinaryType():
            return _binary
    raise LakehouseError("bad_request", f"writing columns of type {t} is not supported")


def rows_to_arrow(schema: Schema, names: Sequence[str], rows: Sequence[object]) -> pa.Table:
    """Request rows (aligned with ``names``) as an Arrow table shaped exactly like ``schema``.

    Table columns the request leaves out are written as nulls; a required one is a 400.
    """
    index = {n: i for i, n in enumerate(names)}
    for r, row in enumerate(rows):
        if not isinstance(row, list) or len(row) != len(names):
            raise LakehouseError("bad_request", f"row {r}: expected an array of {len(names)} values")
    arrow_schema = schema.as_arrow()
    arrays: list[pa.Array] = []
    for field, arrow_field in zip(schema.fields, arrow_schema, strict=True):
        i = index.get(field.name)
        if i is None:
            if field.required and rows:
                raise LakehouseError("bad_request", f"column {field.name!r} is required by the table")
            arrays.append(pa.nulls(len(rows), type=arrow_field.type))
            continue
        conv = converter_for(field.field_type)
        values: list[object] = []
        for r, row in enumerate(rows):
            v = row[i]  # type: ignore[index]  # rows were checked to be lists above
            if v is None:
                if field.required:
                    raise LakehouseError(
                        "bad_request", f"row {r}, column {field.name!r}: null in a required column"
                    )
                values.append(None)
                continue
            try:
                values.append(conv(v))
            except (ValueError, TypeError, decimal.InvalidOperation) as e:
                raise LakehouseError("bad_request", f"row {r}, column {field.name!r}: {e}") from None
        arrays.append(pa.array(values, type=arrow_field.type))
    return pa.Table.from_arrays(arrays, schema=arrow_schema)


def to_json(v: object) -> object:
    """One Arrow-produced Python value in the contract's JSON spelling."""
    if v is None or isinstance(v, bool | int | str):
        return v
    if isinstance(v, float):
        return v if math.isfinite(v) else None  # JSON has no NaN or infinities
    if isinstance(v, decimal.Decimal):
        return str(v)
    if isinstance(v, dt.datetime | dt.date | dt.time):
        return v.isoformat()
    if isinstance(v, dt.timedelta):
        return v.total_seconds()
    if isinstance(v, bytes):
        return base64.b64encode(v).decode("ascii")
    if isinstance(v, uuid.UUID):
        return str(v)
    if isinstance(v, dict):
        return {str(k): to_json(x) for k, x in v.items()}
    if isinstance(v, list | tuple):
        return [to_json(x) for x in v]
    return str(v)


def arrow_to_rows(table: pa.Table) -> list[list[object]]:
    """An Arrow table as JSON-ready rows, in column order."""
    # Column-wise, so duplicate result names (``SELECT 1 AS a, 2 AS a``) survive.
    cols = [c.to_pylist() for c in table.columns]
    return [[to_json(c[i]) for c in cols] for i in range(table.num_rows)]
