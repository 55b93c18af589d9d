"""The Spark path of a dataset build (see ``build.py``): temp views for the feature relations,
the SELECT checked like ``/sql`` queries, then an Iceberg replace of the output table."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pyspark.errors import PySparkException

from lab.lakehouse.catalog import CATALOG_NAME
from lab.lakehouse.errors import LakehouseError
from lab.lakehouse.spark_guard import check_relations, check_statement

if TYPE_CHECKING:
    from lab.foundry.build import BuildRequest
    from lab.lakehouse.spark import SparkEngine


def build_spark(engine: SparkEngine, req: BuildRequest) -> int | None:
    """Runs the build on the engine's session; returns the new snapshot id."""
    from lab.foundry.build import _relation_arrow

    session = engine.session
    with engine._lock:  # noqa: SLF001 - one statement at a time on the shared session
        views: list[str] = []
        try:
            for rel in req.relations:
                session.createDataFrame(_relation_arrow(rel)).createOrReplaceTempView(rel.name)
                views.append(rel.name)
            check_statement(session, req.select_spark)
            try:
                df = session.sql(req.select_spark)
                # Feature relations are local data (LocalRelation), which the guard accepts;
                # every table read must be in the tenant's namespace.
                check_relations(df, CATALOG_NAME, req.namespace)
                writer = df.writeTo(f"{CATALOG_NAME}.{req.namespace}.{req.output_table}").using("iceberg")
                for key, value in req.snapshot_properties.items():
                    writer = writer.option(f"snapshot-property.{key}", value).tableProperty(key, value)
                writer.createOrReplace()
            except PySparkException as e:
                raise LakehouseError("bad_request", f"build query failed: {e}") from None
        finally:
            for name in views:
                session.catalog.dropTempView(name)
    table = engine.lakehouse.load(req.namespace, req.output_table)
    snap = table.current_snapshot()
    return snap.snapshot_id if snap else None
