"""The lakehouse the service reaches over HTTP (docs/lakehouse-gateway.md).

Embedded profile: Iceberg tables in a local warehouse under PyIceberg's SQL catalog on
SQLite, queried with DuckDB. ``--engine spark`` answers ``/sql`` with Spark SQL over the
same catalog. Modules: ``catalog`` (opening it), ``store`` (namespaces, tables,
snapshots), ``writes`` (one-commit writes), ``query``/``spark`` (read-only SQL),
``app``/``gateway`` (HTTP and command line).
"""

from lab.lakehouse.catalog import CATALOG_NAME, open_catalog
from lab.lakehouse.errors import LakehouseError
from lab.lakehouse.store import Lakehouse
from lab.lakehouse.writes import WriteRequest, WriteResult

__all__ = ["CATALOG_NAME", "Lakehouse", "LakehouseError", "WriteRequest", "WriteResult", "open_catalog"]
