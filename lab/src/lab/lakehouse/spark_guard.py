"""Keeping ``/sql`` on Spark read-only and inside its namespace.

Spark runs commands eagerly inside ``spark.sql``, so statements are vetted before that
call, on the parsed (unresolved) plan: any ``Command`` node (DDL, DML, SET, USE, CALL,
CACHE ...) or ``InsertIntoStatement`` anywhere in the tree, subqueries and CTEs included,
is refused. After analysis, every leaf of the plan must be an Iceberg table of the
request's namespace in the shared catalog (or a constant relation): that keeps one
tenant's SQL off another tenant's namespace and off raw files, which the session also
cannot query directly (``spark.sql.runSQLOnFiles=false``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from pyspark.errors import PySparkException
from pyspark.sql import DataFrame, SparkSession

from lab.lakehouse.errors import LakehouseError

_LEADING = re.compile(r"^(?:\s+|--[^\n]*(?:\n|$)|/\*.*?\*/|\()*", re.S)
_FIRST_WORDS = {"select", "with", "values", "from", "table"}
# Static JVM method calls from SQL; a query has no business making them.
_DENIED_FUNCTIONS = re.compile(r"\b(?:reflect|try_reflect|java_method)\s*\(", re.I)
_CONSTANT_LEAVES = {"OneRowRelation", "LocalRelation", "Range", "CTERelationRef", "EmptyRelation"}
_WRITE_CLASSES = (
    "org.apache.spark.sql.catalyst.plans.logical.Command",
    "org.apache.spark.sql.catalyst.plans.logical.InsertIntoStatement",
)

JavaObject = Any  # a py4j proxy to a Scala LogicalPlan


def _seq(s: JavaObject) -> list[JavaObject]:
    return [s.apply(i) for i in range(s.size())]


def _walk(plan: JavaObject) -> Iterator[JavaObject]:
    """Every node of a logical plan: children, inner children (CTE definitions) and subqueries."""
    stack = [plan]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(_seq(node.children()))
        stack.extend(_seq(node.innerChildren()))
        stack.extend(_seq(node.subqueries()))


def refuse(detail: str) -> LakehouseError:
    return LakehouseError("bad_request", detail)


def check_statement(spark: SparkSession, sql: str) -> None:
    """Raises a 400 unless ``sql`` is one query that writes nothing; parses, never runs."""
    head = _LEADING.sub("", sql, count=1)
    first = re.match(r"[A-Za-z]+", head)
    if first is None or first.group(0).lower() not in _FIRST_WORDS:
        raise refuse("only read-only SELECT statements are allowed")
    if _DENIED_FUNCTIONS.search(sql):
        raise refuse("reflect() and java_method() are not allowed")
    jspark = spark._jsparkSession  # noqa: SLF001 - the parser is only reachable through the JVM session
    try:
        plan = jspark.sessionState().sqlParser().parsePlan(sql)
    except PySparkException as e:
        raise refuse(f"query does not parse: {e}") from None
    jvm = spark.sparkContext._jvm  # noqa: SLF001
    assert jvm is not None
    loader = plan.getClass().getClassLoader()
    writes = [jvm.java.lang.Class.forName(name, False, loader) for name in _WRITE_CLASSES]
    for node in _walk(plan):
        if any(cls.isInstance(node) for cls in writes):
            raise refuse(f"only read-only SELECT statements are allowed ({node.nodeName()})")


def check_relations(df: DataFrame, catalog: str, namespace: str) -> None:
    """Raises a 400 when the analysed query reads anything but ``catalog.namespace`` tables."""
    analyzed = df._jdf.queryExecution().analyzed()  # noqa: SLF001
    for node in _walk(analyzed):
        if not node.children().isEmpty():
            continue
        kind = node.getClass().getSimpleName()
        if kind in _CONSTANT_LEAVES:
            continue
        if kind != "DataSourceV2Relation" or node.identifier().isEmpty() or node.catalog().isEmpty():
            raise refuse(f"queries may only read tables of namespace {namespace} ({kind})")
        ident = node.identifier().get()
        parts = list(ident.namespace())
        # ns.table, or an Iceberg metadata table such as ns.table.snapshots
        if node.catalog().get().name() != catalog or not parts or parts[0] != namespace:
            raise refuse(f"queries may only read tables of namespace {namespace}")
