"""Gateway routes of Foundry: dataset builds and Arrow IPC previews."""

from __future__ import annotations

from starlette.routing import Route

from lab.lakehouse.query import QueryEngine
from lab.lakehouse.store import Lakehouse


def foundry_routes(lakehouse: Lakehouse, engine: QueryEngine) -> list[Route]:
    """The Foundry routes over ``lakehouse`` and the gateway's engine."""
    del lakehouse, engine
    return []
