"""Namespace and table names: one rule, checked at the edge before any catalog call.

The same pattern is enforced by the service (``ICEBERG_NAME_RE`` in
``domain/lakehouse/catalog.ts``); keeping names to lower-case identifiers means they
need no quoting in DuckDB or Spark SQL and map one-to-one onto warehouse directories.
"""

from __future__ import annotations

import re

from lab.lakehouse.errors import LakehouseError

NAME_RE = re.compile(r"^[a-z_][a-z0-9_]{0,127}$")


def check_name(kind: str, value: object) -> str:
    """Returns ``value`` when it is a valid name, else raises a 400 naming what was wrong."""
    if not isinstance(value, str) or not NAME_RE.fullmatch(value):
        raise LakehouseError("bad_request", f"invalid {kind} name {value!r}: must match {NAME_RE.pattern}")
    return value


# Column names may keep a source's capitals (``CustomerID``); SQL engines compare them
# case-insensitively, so uniqueness is checked that way by the request parser.
COLUMN_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,127}$")


def check_column(value: object) -> str:
    if not isinstance(value, str) or not COLUMN_RE.fullmatch(value):
        raise LakehouseError("bad_request", f"invalid column name {value!r}: must match {COLUMN_RE.pattern}")
    return value
