"""Spark SQL over the shared Iceberg catalog (the ``--engine spark`` path of ``/sql``).

The session is local (``local[2]``, a small driver, no UI, loopback only) and loads the
Iceberg runtime and the SQLite JDBC driver from jars fetched from Maven Central by
``scripts/setup.sh --spark-jars``; nothing is resolved over the network at run time.
Its ``cairn`` catalog is Iceberg's ``JdbcCatalog`` on the very SQLite file and warehouse
PyIceberg's ``SqlCatalog`` uses, so both see each other's commits; Spark's table cache
is off for the same reason (a cached table would hide PyIceberg commits for 30 s).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Mapping
from pathlib import Path

import pyarrow as pa
from pyspark.errors import PySparkException
from pyspark.sql import SparkSession

from lab.lakehouse.catalog import CATALOG_NAME, sqlite_path, warehouse_path
from lab.lakehouse.columns import arrow_columns
from lab.lakehouse.errors import LakehouseError
from lab.lakehouse.query import DEFAULT_MAX_ROWS, QueryResult, too_many_rows
from lab.lakehouse.spark_guard import check_relations, check_statement
from lab.lakehouse.store import Lakehouse
from lab.lakehouse.values import arrow_to_rows

JARS_ENV = "CAIRN_SPARK_JARS"
# File name prefixes of the jars the session cannot start without (versions live in setup.sh).
REQUIRED_JARS = ("iceberg-spark-runtime-4.1_2.13-", "sqlite-jdbc-")
_DEFAULT_JARS_DIR = Path(__file__).resolve().parents[3] / ".jars"  # lab/.jars in a source checkout


class SparkUnavailable(RuntimeError):
    """Spark cannot start here: jars or PySpark are missing. The message says how to fix it."""


def find_jars(env: Mapping[str, str] = os.environ) -> list[Path]:
    """The jars named by ``CAIRN_SPARK_JARS`` (directories and/or files, comma-separated),
    or those in ``lab/.jars``; raises ``SparkUnavailable`` when a required one is missing."""
    raw = env.get(JARS_ENV) or str(_DEFAULT_JARS_DIR)
    jars: list[Path] = []
    for entry in filter(None, (p.strip() for p in raw.split(","))):
        path = Path(entry)
        jars.extend(sorted(path.glob("*.jar")) if path.is_dir() else [path] if path.is_file() else [])
    missing = [p for p in REQUIRED_JARS if not any(j.name.startswith(p) for j in jars)]
    if missing:
        raise SparkUnavailable(
            f"Spark jars missing ({', '.join(m + '*.jar' for m in missing)}) in {raw}: "
            f"run scripts/setup.sh --spark-jars and set {JARS_ENV}"
        )
    return jars


def spark_conf(catalog_uri: str, warehouse: str, jars: list[Path]) -> dict[str, str]:
    """Session settings; a dict so tests and the gateway build identical sessions."""
    cat = f"spark.sql.catalog.{CATALOG_NAME}"
    return {
        "spark.master": "local[2]",
        "spark.app.name": "cairn-lakehouse",
        "spark.driver.memory": "1g",
        "spark.driver.host": "127.0.0.1",
        "spark.driver.bindAddress": "127.0.0.1",
        "spark.ui.enabled": "false",
        "spark.ui.showConsoleProgress": "false",
        "spark.jars": ",".join(str(j) for j in jars),
        "spark.sql.catalogImplementation": "in-memory",
        "spark.sql.extensions": "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions",
        "spark.sql.defaultCatalog": CATALOG_NAME,
        "spark.sql.shuffle.partitions": "2",
        "spark.sql.session.timeZone": "UTC",
        "spark.sql.runSQLOnFiles": "false",
        cat: "org.apache.iceberg.spark.SparkCatalog",
        f"{cat}.type": "jdbc",
        f"{cat}.uri": f"jdbc:sqlite:{sqlite_path(catalog_uri)}",
        f"{cat}.warehouse": warehouse_path(warehouse).as_uri(),
        f"{cat}.cache-enabled": "false",
    }


def build_session(catalog_uri: str, warehouse: str, jars: list[Path] | None = None) -> SparkSession:
    """A local session on the shared catalog; the JVM starts here (seconds)."""
    builder = SparkSession.builder
    for key, value in spark_conf(catalog_uri, warehouse, jars or find_jars()).items():
        builder = builder.config(key, value)
    session = builder.getOrCreate()
    session.sparkContext.setLogLevel("ERROR")
    return session


class SparkEngine:
    """``/sql`` through Spark SQL. Queries run one at a time: ``USE <ns>`` is session state,
    and one query already uses both local cores."""

    name = "spark"

    def __init__(
        self,
        lakehouse: Lakehouse,
        session: SparkSession,
        *,
        owns_session: bool,
        max_rows: int = DEFAULT_MAX_ROWS,
    ) -> None:
        self.lakehouse = lakehouse
        self.session = session
        self.owns_session = owns_session
        self.max_rows = max_rows
        self._lock = threading.Lock()

    def query(self, namespace: str, sql: str) -> QueryResult:
        result = self.query_arrow(namespace, sql)
        return QueryResult(arrow_columns(result.schema), arrow_to_rows(result))

    def query_arrow(self, namespace: str, sql: str) -> pa.Table:
        """The result as Arrow (``/foundry/sql`` streams it as Arrow IPC)."""
        self.lakehouse.list_tables(namespace)  # 404 for an unknown namespace, as with DuckDB
        with self._lock:
            check_statement(self.session, sql)
            try:
                self.session.sql(f"USE {CATALOG_NAME}.{namespace}")
                df = self.session.sql(sql)
                check_relations(df, CATALOG_NAME, namespace)
                result = df.limit(self.max_rows + 1).toArrow()
            except PySparkException as e:
                raise LakehouseError("bad_request", f"query failed: {e}") from None
        if result.num_rows > self.max_rows:
            raise too_many_rows(self.max_rows)
        return result

    def close(self) -> None:
        if self.owns_session:
            self.session.stop()
