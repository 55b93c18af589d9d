"""Spark SQL and PyIceberg on one Iceberg catalog (SQLite, JDBC catalog in Spark).

One SparkSession for the module (the JVM takes seconds to start). Skipped locally when
PySpark or the jars are missing; under CI those are installed by scripts/test.sh and a
missing piece fails the suite.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

import pytest
from lakehouse_support import Client, gateway_process, require_modules

require_modules("pyiceberg", "duckdb", "starlette", "uvicorn", extra="lakehouse")
require_modules("pyspark", extra="spark")

from pyspark.sql import SparkSession  # noqa: E402

from lab.lakehouse.catalog import open_catalog  # noqa: E402
from lab.lakehouse.columns import Column  # noqa: E402
from lab.lakehouse.errors import LakehouseError  # noqa: E402
from lab.lakehouse.spark import JARS_ENV, SparkEngine, SparkUnavailable, build_session, find_jars  # noqa: E402
from lab.lakehouse.store import Lakehouse  # noqa: E402
from lab.lakehouse.writes import WriteRequest  # noqa: E402

try:
    JARS = find_jars()
except SparkUnavailable as e:
    if os.environ.get("CI"):
        pytest.fail(f"{e}: the Spark suite must run under CI", pytrace=False)
    pytest.skip(str(e), allow_module_level=True)

COLUMNS = [Column("id", "long", False), Column("name", "string"), Column("amount", "decimal(10,2)")]


@dataclass
class Shared:
    dir: Path
    catalog_uri: str
    warehouse: str
    lakehouse: Lakehouse


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Shared:
    d = tmp_path_factory.mktemp("spark-lake")
    uri, wh = f"sqlite:///{d / 'catalog.db'}", str(d / "warehouse")
    return Shared(d, uri, wh, Lakehouse(open_catalog(uri, wh)))


@pytest.fixture(scope="module")
def spark(shared: Shared) -> Iterator[SparkSession]:
    session = build_session(shared.catalog_uri, shared.warehouse, JARS)
    yield session
    session.stop()


def new_namespace(lakehouse: Lakehouse) -> str:
    ns = f"svc_tenant_{uuid.uuid4().hex[:8]}"
    assert lakehouse.create_namespace(ns)
    return ns


def test_spark_reads_what_pyiceberg_wrote(shared: Shared, spark: SparkSession) -> None:
    ns = new_namespace(shared.lakehouse)
    rows: list[list[object]] = [[1, "a", "1.50"], [2, "b", None]]
    shared.lakehouse.write(
        ns, "orders", WriteRequest("overwrite", COLUMNS, rows, snapshot_properties={"wm": "7"})
    )

    got = spark.sql(f"SELECT id, name, amount FROM cairn.{ns}.orders ORDER BY id").collect()
    assert [tuple(r) for r in got] == [(1, "a", Decimal("1.50")), (2, "b", None)]
    assert [r.namespace for r in spark.sql("SHOW NAMESPACES IN cairn").collect()].count(ns) == 1
    summary = spark.sql(
        f"SELECT summary FROM cairn.{ns}.orders.snapshots ORDER BY committed_at DESC LIMIT 1"
    ).first()
    assert summary is not None and summary.summary["wm"] == "7"

    # A later PyIceberg commit is visible at once: Spark's catalog cache is off.
    shared.lakehouse.write(ns, "orders", WriteRequest("append", COLUMNS, [[3, "c", "3.00"]]))
    assert spark.sql(f"SELECT count(*) AS n FROM cairn.{ns}.orders").first().n == 3


def test_pyiceberg_reads_what_spark_wrote(shared: Shared, spark: SparkSession) -> None:
    ns = new_namespace(shared.lakehouse)
    shared.lakehouse.write(ns, "orders", WriteRequest("append", COLUMNS, [[1, "a", "1.00"]]))
    spark.sql(f"INSERT INTO cairn.{ns}.orders VALUES (2, 'from spark', 2.25)")
    _, rows = shared.lakehouse.preview(ns, "orders", 100)
    assert sorted(rows) == [[1, "a", "1.00"], [2, "from spark", "2.25"]]

    # Tables Spark creates are ordinary catalog tables to PyIceberg, and the other way round.
    spark.sql(f"CREATE TABLE cairn.{ns}.events (id BIGINT, at TIMESTAMP) USING iceberg")
    spark.sql(f"INSERT INTO cairn.{ns}.events VALUES (10, TIMESTAMP '2024-05-01 12:00:00')")
    assert shared.lakehouse.list_tables(ns) == ["events", "orders"]
    columns, rows = shared.lakehouse.preview(ns, "events", 10)
    assert [c.type for c in columns] == ["long", "timestamptz"]
    assert rows == [[10, "2024-05-01T12:00:00+00:00"]]

    # An upsert through PyIceberg on top of Spark's commit keeps Spark's other rows.
    upsert = WriteRequest("upsert", COLUMNS, [[2, "updated", "9.00"]], key_columns=["id"])
    shared.lakehouse.write(ns, "orders", upsert)
    got = spark.sql(f"SELECT id, name FROM cairn.{ns}.orders ORDER BY id").collect()
    assert [tuple(r) for r in got] == [(1, "a"), (2, "updated")]


def test_spark_engine_is_read_only_and_bound_to_its_namespace(shared: Shared, spark: SparkSession) -> None:
    ns = new_namespace(shared.lakehouse)
    other = new_namespace(shared.lakehouse)
    shared.lakehouse.write(
        ns, "orders", WriteRequest("append", COLUMNS, [[1, "a", "1.50"], [2, "a", "2.00"]])
    )
    shared.lakehouse.write(other, "secrets", WriteRequest("append", COLUMNS, [[1, "s", "0"]]))
    engine = SparkEngine(shared.lakehouse, spark, owns_session=False, max_rows=10)

    result = engine.query(ns, "SELECT name, sum(amount) AS total FROM orders GROUP BY name")
    assert [(c.name, c.type) for c in result.columns] == [("name", "string"), ("total", "decimal(20,2)")]
    assert result.rows == [["a", "3.50"]]
    with_cte = engine.query(ns, f"WITH x AS (SELECT id FROM cairn.{ns}.orders) SELECT count(*) AS n FROM x")
    assert with_cte.rows == [[2]]

    refused = [
        "DROP TABLE orders",
        "INSERT INTO orders VALUES (3, 'c', 3)",
        "WITH x AS (SELECT 1) INSERT INTO orders SELECT 4, 'd', 4",
        "FROM orders INSERT INTO orders SELECT *",
        "SELECT 1; DROP TABLE orders",
        "DELETE FROM orders WHERE id = 1",
        "SET spark.sql.runSQLOnFiles=true",
        "CACHE TABLE orders",
        f"CALL cairn.system.expire_snapshots('{ns}.orders')",
        "SELECT reflect('java.lang.System', 'getenv', 'HOME')",
        "SELECT * FROM secrets",
        f"SELECT * FROM {other}.secrets",
        f"SELECT * FROM orders WHERE id IN (SELECT id FROM cairn.{other}.secrets)",
        "SELECT * FROM csv.`/etc/passwd`",
        "SELECT * FROM range(11)",
    ]
    for statement in refused:
        with pytest.raises(LakehouseError) as err:
            engine.query(ns, statement)
        assert err.value.status == 400, statement
    with pytest.raises(LakehouseError) as err:
        engine.query("no_such_ns", "SELECT 1")
    assert err.value.status == 404
    assert sorted(shared.lakehouse.preview(ns, "orders", 10)[1]) == [[1, "a", "1.50"], [2, "a", "2.00"]]


def test_gateway_command_line_with_the_spark_engine(shared: Shared, spark: SparkSession) -> None:
    ns = new_namespace(shared.lakehouse)
    shared.lakehouse.write(ns, "orders", WriteRequest("append", COLUMNS, [[1, "a", "1.50"]]))
    env = {JARS_ENV: ",".join(str(j) for j in JARS)}
    with gateway_process(shared.dir, "--engine", "spark", "--token", "t0k", env=env) as url:
        c = Client(url, token="t0k")
        status, health = c.get("/health")
        assert status == 200 and health["engine"] == "spark"
        status, body = c.post("/sql", {"namespace": ns, "sql": "SELECT id, name, amount FROM orders"})
        assert status == 200, body
        assert body["rows"] == [[1, "a", "1.50"]]
        assert [col["type"] for col in body["columns"]] == ["long", "string", "decimal(10,2)"]
        # Writes go through PyIceberg in the gateway and Spark in the gateway sees them.
        cols = [{"name": "id", "type": "long", "nullable": False}, {"name": "name", "type": "string"}]
        assert (
            c.post(f"/tables/{ns}/people/write", {"mode": "append", "columns": cols, "rows": [[7, "g"]]})[0]
            == 200
        )
        assert c.post("/sql", {"namespace": ns, "sql": "SELECT * FROM people"})[1]["rows"] == [[7, "g"]]
        status, body = c.post("/sql", {"namespace": ns, "sql": "DROP TABLE orders"})
        assert status == 400, body
    # ... and so does this process's Spark session, through the shared catalog.
    assert spark.sql(f"SELECT count(*) AS n FROM cairn.{ns}.people").first().n == 1
