"""Gateway routes that import custom tables (CSV, Parquet, JSON rows) into a namespace."""

from __future__ import annotations

from starlette.routing import Route

from lab.lakehouse.store import Lakehouse


def import_routes(lakehouse: Lakehouse) -> list[Route]:
    """The import routes over ``lakehouse``."""
    del lakehouse
    return []
