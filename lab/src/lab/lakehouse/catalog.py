"""Opening the Iceberg catalog both engines share.

PyIceberg's ``SqlCatalog`` and Iceberg's Java ``JdbcCatalog`` keep the same two tables
(``iceberg_tables``, ``iceberg_namespace_properties``) keyed by a catalog name, so one
SQLite file and one warehouse directory serve PyIceberg writes and Spark SQL alike as
long as both use ``CATALOG_NAME``. Only SQLite catalog URIs are accepted: the embedded
profile is the one this module serves (a REST catalog would be a second adapter).
"""

from __future__ import annotations

from pathlib import Path

from pyiceberg.catalog.sql import SqlCatalog

CATALOG_NAME = "cairn"
_SQLITE_PREFIX = "sqlite:///"


def sqlite_path(catalog_uri: str) -> Path:
    """The absolute catalog file of a ``sqlite:////abs/path.db`` URI; ValueError otherwise."""
    if not catalog_uri.startswith(_SQLITE_PREFIX):
        raise ValueError(f"catalog URI must be sqlite:////absolute/path.db, got {catalog_uri!r}")
    path = Path(catalog_uri[len(_SQLITE_PREFIX) :])
    if not path.is_absolute():
        raise ValueError(f"catalog URI must name an absolute path (four slashes), got {catalog_uri!r}")
    return path


def warehouse_path(warehouse: str) -> Path:
    """The absolute warehouse directory, given as a path or as a ``file:`` URI."""
    if warehouse.startswith("file:"):
        warehouse = warehouse.removeprefix("file://").removeprefix("file:")
    return Path(warehouse).resolve()


def open_catalog(catalog_uri: str, warehouse: str) -> SqlCatalog:
    """The shared catalog; creates the catalog file's directory and the warehouse when missing."""
    db = sqlite_path(catalog_uri)
    db.parent.mkdir(parents=True, exist_ok=True)
    wh = warehouse_path(warehouse)
    wh.mkdir(parents=True, exist_ok=True)
    return SqlCatalog(CATALOG_NAME, uri=f"{_SQLITE_PREFIX}{db}", warehouse=wh.as_uri())
