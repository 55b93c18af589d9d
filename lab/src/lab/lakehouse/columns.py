"""Column types as the contract spells them, mapped to Iceberg and back.

The service names Iceberg primitive types in lower case (``long``, ``decimal(10,2)``,
``timestamptz`` ...; see ``LakehouseColumn`` in ``domain/lakehouse/ports.ts``). This module is
the only place that knows how those strings map onto PyIceberg types, so tables created
by Spark or by PyIceberg read back with the same names.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

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
    NestedField,
    StringType,
    TimestampType,
    TimestamptzType,
)

from lab.lakehouse.errors import LakehouseError

_PRIMITIVES: dict[str, IcebergType] = {
    "boolean": BooleanType(),
    "int": IntegerType(),
    "long": LongType(),
    "float": FloatType(),
    "double": DoubleType(),
    "date": DateType(),
    "timestamp": TimestampType(),
    "timestamptz": TimestamptzType(),
    "string": StringType(),
    "binary": BinaryType(),
}
_DECIMAL_RE = re.compile(r"^decimal\((\d{1,2}),(\d{1,2})\)$")


@dataclass(frozen=True)
class Column:
    """One column of a write request or of a table schema."""

    name: str
    type: str
    nullable: bool = True

    def as_json(self) -> dict[str, object]:
        return {"name": self.name, "type": self.type, "nullable": self.nullable}


def parse_type(text: str) -> IcebergType:
    """The Iceberg type for a contract type string; 400 for anything else."""
    key = text.strip().lower().replace(" ", "")
    if key in _PRIMITIVES:
        return _PRIMITIVES[key]
    m = _DECIMAL_RE.fullmatch(key)
    if m:
        precision, scale = int(m.group(1)), int(m.group(2))
        if 1 <= precision <= 38 and scale <= precision:
            return DecimalType(precision, scale)
    allowed = ", ".join([*_PRIMITIVES, "decimal(p,s)"])
    raise LakehouseError("bad_request", f"unsupported column type {text!r}: use one of {allowed}")


def type_name(t: IcebergType) -> str:
    """The contract spelling of an Iceberg type (``decimal(10,2)``, not PyIceberg's ``decimal(10, 2)``)."""
    if isinstance(t, DecimalType):
        return f"decimal({t.precision},{t.scale})"
    return str(t)


def schema_for(columns: list[Column]) -> Schema:
    """A new table's schema; field ids are assigned in request order starting at 1."""
    fields = [
        NestedField(field_id=i, name=c.name, field_type=parse_type(c.type), required=not c.nullable)
        for i, c in enumerate(columns, start=1)
    ]
    return Schema(*fields)


def columns_of(schema: Schema) -> list[Column]:
    """A table schema as contract columns (top-level fields only; nested types keep PyIceberg's name)."""
    return [Column(f.name, type_name(f.field_type), not f.required) for f in schema.fields]


def arrow_type_name(t: pa.DataType) -> str:
    """The contract spelling of an Arrow result column (DuckDB or Spark query output)."""
    if pa.types.is_boolean(t):
        return "boolean"
    if pa.types.is_int8(t) or pa.types.is_int16(t) or pa.types.is_int32(t):
        return "int"
    if pa.types.is_integer(t):
        return "long"
    if pa.types.is_float32(t):
        return "float"
    if pa.types.is_floating(t):
        return "double"
    if pa.types.is_decimal(t):
        return f"decimal({t.precision},{t.scale})"
    if pa.types.is_date(t):
        return "date"
    if pa.types.is_timestamp(t):
        return "timestamptz" if t.tz else "timestamp"
    if pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_string_view(t):
        return "string"
    if pa.types.is_binary(t) or pa.types.is_large_binary(t) or pa.types.is_fixed_size_binary(t):
        return "binary"
    return str(t)


def arrow_columns(schema: pa.Schema) -> list[Column]:
    return [Column(f.name, arrow_type_name(f.type), f.nullable) for f in schema]
