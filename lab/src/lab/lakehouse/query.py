"""Read-only SQL over one namespace: the engine interface and its embedded (DuckDB) adapter.

DuckDB never sees the catalog or the warehouse. Each query gets a fresh in-memory
database with file system access switched off, and only the namespace's tables the
statement names are scanned from Iceberg and registered as views under their table
names. That makes a tenant's SQL unable to reach another namespace or any file, even
if the statement check below were fooled; the check itself refuses anything but a
single SELECT so callers get a clear 400 instead of a DuckDB permission error.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import duckdb
import pyarrow as pa

from lab.lakehouse.columns import Column, arrow_columns
from lab.lakehouse.errors import LakehouseError
from lab.lakehouse.store import Lakehouse
from lab.lakehouse.values import arrow_to_rows

DEFAULT_MAX_ROWS = 100_000


@dataclass(frozen=True)
class QueryResult:
    columns: list[Column]
    rows: list[list[object]]


class QueryEngine(Protocol):
    """What the gateway's ``/sql`` needs from an engine."""

    name: str

    def query(self, namespace: str, sql: str) -> QueryResult: ...

    def query_arrow(self, namespace: str, sql: str) -> pa.Table: ...

    def close(self) -> None: ...


def isolated_duckdb() -> duckdb.DuckDBPyConnection:
    """A throwaway in-memory database that can reach no file, network or extension."""
    return duckdb.connect(
        ":memory:",
        config={
            "enable_external_access": False,
            "autoinstall_known_extensions": False,
            "autoload_known_extensions": False,
        },
    )


def too_many_rows(max_rows: int) -> LakehouseError:
    return LakehouseError("bad_request", f"the result has more than {max_rows} rows: add a LIMIT")


class DuckDbEngine:
    """Embedded engine: Iceberg scans as Arrow, queried by a throwaway DuckDB database."""

    name = "duckdb"

    def __init__(self, lakehouse: Lakehouse, max_rows: int = DEFAULT_MAX_ROWS) -> None:
        self.lakehouse = lakehouse
        self.max_rows = max_rows

    def query(self, namespace: str, sql: str) -> QueryResult:
        result = self.query_arrow(namespace, sql)
        return QueryResult(arrow_columns(result.schema), arrow_to_rows(result))

    def query_arrow(self, namespace: str, sql: str) -> pa.Table:
        """The result as Arrow (``/foundry/sql`` streams it as Arrow IPC)."""
        tables = set(self.lakehouse.list_tables(namespace))  # 404 for an unknown namespace
        con = isolated_duckdb()
        try:
            self._check_read_only(con, sql)
            for name in self._referenced(sql, tables):
                con.register(name, self.lakehouse.scan(namespace, name))
            con.execute("SET lock_configuration = true")
            try:
                reader = con.execute(sql).to_arrow_reader(batch_size=10_000)
                batches: list[pa.RecordBatch] = []
                count = 0
                for batch in reader:
                    count += batch.num_rows
                    if count > self.max_rows:
                        raise too_many_rows(self.max_rows)
                    batches.append(batch)
                result = pa.Table.from_batches(batches, schema=reader.schema)
            except duckdb.Error as e:
                raise LakehouseError("bad_request", f"query failed: {e}") from None
        finally:
            con.close()
        return result

    def close(self) -> None:
        """Nothing is held between queries."""

    @staticmethod
    def _check_read_only(con: duckdb.DuckDBPyConnection, sql: str) -> None:
        try:
            statements = con.extract_statements(sql)
        except duckdb.Error as e:
            raise LakehouseError("bad_request", f"query does not parse: {e}") from None
        if len(statements) != 1:
            raise LakehouseError("bad_request", "send exactly one SQL statement")
        if statements[0].type != duckdb.StatementType.SELECT:
            raise LakehouseError("bad_request", "only read-only SELECT statements are allowed")

    @staticmethod
    def _referenced(sql: str, tables: set[str]) -> set[str]:
        """The namespace's tables the statement names; every table when DuckDB cannot tell."""
        try:
            names = duckdb.get_table_names(sql, qualified=False)
        except duckdb.Error:
            return tables
        return {n.lower() for n in names if n.lower() in tables}
