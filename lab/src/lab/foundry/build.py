"""Dataset builds (spec 4.9): run the service's generated SELECT and replace the output table.

The service compiles a dataset spec into one logical plan rendered twice (Spark SQL and
DuckDB SQL, ``domain/foundry/sql.ts``); the lab runs the rendering of its engine:

- DuckDB (embedded): a throwaway in-memory database with file access off, in which only
  the namespace tables the plan reads exist (as views over their Iceberg scans, under
  ``"<namespace>"."<table>"``), plus the feature relations the service computed. The
  result is written back as an Iceberg table.
- Spark (at scale): the feature relations become temporary views, the SELECT is checked
  to read nothing but the namespace's tables and those views, and the result replaces
  the table through ``DataFrameWriterV2.createOrReplace`` (an Iceberg replace transaction).

Either way the output table changes in exactly one catalog commit: readers see the old
rows or the new rows, never a half-written table, and a crash before the commit leaves
the previous table untouched.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

import duckdb
import pyarrow as pa
from pyiceberg.catalog import Catalog
from pyiceberg.exceptions import CommitFailedException, NoSuchTableError
from pyiceberg.io.pyarrow import _ConvertToIcebergWithoutIDs, visit_pyarrow

from lab.lakehouse.columns import Column, parse_type, schema_for
from lab.lakehouse.errors import LakehouseError
from lab.lakehouse.names import check_name
from lab.lakehouse.query import isolated_duckdb
from lab.lakehouse.store import Lakehouse
from lab.lakehouse.values import rows_to_arrow

SOURCE_PROPERTY = "cairn.source"


@dataclass(frozen=True)
class Relation:
    name: str
    columns: list[Column]
    rows: list[list[object]]


@dataclass(frozen=True)
class BuildRequest:
    namespace: str
    output_table: str
    select_duckdb: str
    select_spark: str
    tables: list[str]
    relations: list[Relation]
    snapshot_properties: dict[str, str]


@dataclass(frozen=True)
class BuildResult:
    rows: int
    snapshot_id: int | None
    engine: str


def _relation_name(name: object) -> str:
    if (
        not isinstance(name, str)
        or not name.startswith(("__graph_", "__rt_"))
        or not name[2:].replace("_", "").isalnum()
    ):
        raise LakehouseError("bad_request", "relation names must be __graph_<n> or __rt_<n>")
    return name


def parse_build(body: object) -> BuildRequest:
    """Validates the build body (``DatasetBuildRequest`` in domain/foundry/ports.ts)."""
    if not isinstance(body, dict):
        raise LakehouseError("bad_request", "the build body must be a JSON object")
    b: dict[str, Any] = body
    select = b.get("select")
    if not isinstance(select, dict) or not all(isinstance(select.get(k), str) for k in ("duckdb", "spark")):
        raise LakehouseError("bad_request", "select must carry the duckdb and spark statements")
    tables = b.get("tables")
    if not isinstance(tables, list) or not tables:
        raise LakehouseError("bad_request", "tables must list the namespace tables the build reads")
    relations: list[Relation] = []
    for rel in b.get("relations") or []:
        if (
            not isinstance(rel, dict)
            or not isinstance(rel.get("columns"), list)
            or not isinstance(rel.get("rows"), list)
        ):
            raise LakehouseError("bad_request", "each relation needs name, columns and rows")
        cols = [Column(str(c["name"]), str(c["type"]), bool(c.get("nullable", True))) for c in rel["columns"]]
        for c in cols:
            parse_type(c.type)
        relations.append(Relation(_relation_name(rel.get("name")), cols, rel["rows"]))
    props = b.get("snapshot_properties") or {}
    if not isinstance(props, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in props.items()
    ):
        raise LakehouseError("bad_request", "snapshot_properties must map strings to strings")
    return BuildRequest(
        namespace=check_name("namespace", b.get("namespace")),
        output_table=check_name("table", b.get("output_table")),
        select_duckdb=select["duckdb"],
        select_spark=select["spark"],
        tables=[check_name("table", t) for t in tables],
        relations=relations,
        snapshot_properties={**props, SOURCE_PROPERTY: "foundry"},
    )


def _relation_arrow(rel: Relation) -> pa.Table:
    return rows_to_arrow(schema_for(rel.columns), [c.name for c in rel.columns], rel.rows)


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def run_duckdb_select(lakehouse: Lakehouse, req: BuildRequest) -> pa.Table:
    """The dataset's rows by DuckDB over Arrow scans of the namespace tables it reads."""
    existing = set(lakehouse.list_tables(req.namespace))
    missing = [t for t in req.tables if t not in existing]
    if missing:
        raise LakehouseError("bad_request", f"tables missing from {req.namespace}: {', '.join(missing)}")
    con = isolated_duckdb()
    try:
        statements = con.extract_statements(req.select_duckdb)
        if len(statements) != 1 or statements[0].type != duckdb.StatementType.SELECT:
            raise LakehouseError("bad_request", "the build statement must be exactly one SELECT")
        con.execute(f"CREATE SCHEMA {_quote(req.namespace)}")
        for i, table in enumerate(req.tables):
            con.register(f"__src_{i}", lakehouse.scan(req.namespace, table))
            con.execute(f"CREATE VIEW {_quote(req.namespace)}.{_quote(table)} AS SELECT * FROM __src_{i}")
        for rel in req.relations:
            con.register(rel.name, _relation_arrow(rel))
        con.execute("SET lock_configuration = true")
        try:
            return con.execute(req.select_duckdb).fetch_arrow_table()
        except duckdb.Error as e:
            raise LakehouseError("bad_request", f"build query failed: {e}") from None
    finally:
        con.close()


def _iceberg_safe(data: pa.Table) -> pa.Table:
    """Types Iceberg cannot store become ones it can (DuckDB's HUGEINT, unsigned, nanoseconds...)."""
    fields = []
    for f in data.schema:
        t = f.type
        if pa.types.is_unsigned_integer(t) or (pa.types.is_integer(t) and t.bit_width < 32):
            t = pa.int64() if t.bit_width >= 32 else pa.int32()
        elif pa.types.is_decimal(t) and t.precision > 38:
            t = pa.float64()
        elif pa.types.is_timestamp(t) and t.unit == "ns":
            t = pa.timestamp("us", tz=t.tz)
        elif pa.types.is_large_string(t) or pa.types.is_null(t):
            t = pa.string()
        fields.append(pa.field(f.name, t, nullable=True))
    return data.cast(pa.schema(fields))


def replace_table(
    catalog: Catalog, ident: tuple[str, str], data: pa.Table, props: dict[str, str]
) -> int | None:
    """Replaces the table's schema and rows in one commit (creates it when absent); the snapshot id."""
    data = _iceberg_safe(data)
    schema = visit_pyarrow(data.schema, _ConvertToIcebergWithoutIDs())
    try:
        table = catalog.load_table(ident)
    except NoSuchTableError:
        table = None
    if table is None:
        tx = catalog.create_table_transaction(ident, schema=data.schema)
    else:
        tx = table.transaction()
        with tx.update_schema(allow_incompatible_changes=True) as update:
            for f in table.schema().fields:
                update.delete_column(f.name)
            for f in schema.fields:
                update.add_column(f.name, f.field_type, required=False)
    tx.overwrite(data, snapshot_properties=props)
    try:
        committed = tx.commit_transaction()
    except CommitFailedException as e:
        raise LakehouseError("conflict", f"concurrent commit to {'.'.join(ident)}: {e}") from None
    snap = committed.current_snapshot()
    return snap.snapshot_id if snap else None


class Builder:
    """Runs builds on the gateway's engine; one build per output table at a time."""

    def __init__(self, lakehouse: Lakehouse, engine: object) -> None:
        self.lakehouse = lakehouse
        self.engine = engine
        self._locks: dict[tuple[str, str], threading.Lock] = {}
        self._guard = threading.Lock()

    def build(self, req: BuildRequest) -> BuildResult:
        if not self.lakehouse.catalog.namespace_exists(req.namespace):
            raise LakehouseError("not_found", f"namespace {req.namespace} does not exist")
        with self._guard:
            lock = self._locks.setdefault((req.namespace, req.output_table), threading.Lock())
        with lock:
            if getattr(self.engine, "name", "") == "spark":
                from lab.foundry.spark_build import build_spark

                snapshot_id = build_spark(self.engine, req)
                name = "spark"
            else:
                data = run_duckdb_select(self.lakehouse, req)
                snapshot_id = replace_table(
                    self.lakehouse.catalog, (req.namespace, req.output_table), data, req.snapshot_properties
                )
                name = "duckdb"
        _, summary = self.lakehouse.snapshot(req.namespace, req.output_table)
        return BuildResult(rows=int(summary.get("total-records", "0")), snapshot_id=snapshot_id, engine=name)
