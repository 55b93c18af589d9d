"""The lakehouse over one Iceberg catalog: namespaces, tables, previews, snapshots, writes.

Every public method takes already-validated names and maps catalog exceptions onto
``LakehouseError`` codes, so the HTTP layer stays a thin translation. Writes to one
table are serialised in-process: the gateway is the only writer in the embedded profile,
and queueing behind a lock beats failing a sync with a commit conflict against itself.
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

import pyarrow as pa
from pyiceberg.catalog import Catalog
from pyiceberg.exceptions import NamespaceAlreadyExistsError, NoSuchNamespaceError, NoSuchTableError
from pyiceberg.table import Table

from lab.lakehouse.columns import Column, columns_of
from lab.lakehouse.errors import LakehouseError
from lab.lakehouse.values import arrow_to_rows
from lab.lakehouse.writes import WriteRequest, WriteResult, write_table

MAX_PREVIEW = 1000


class Lakehouse:
    """Catalog operations with the gateway's error semantics."""

    def __init__(self, catalog: Catalog) -> None:
        self.catalog = catalog
        self._locks: dict[tuple[str, str], threading.Lock] = {}
        self._locks_guard = threading.Lock()

    # -- namespaces -------------------------------------------------------------------------

    def list_namespaces(self) -> list[str]:
        return sorted(ns[0] for ns in self.catalog.list_namespaces() if len(ns) == 1)

    def create_namespace(self, ns: str) -> bool:
        """True when created, False when it already existed (idempotent)."""
        try:
            self.catalog.create_namespace(ns)
        except NamespaceAlreadyExistsError:
            return False
        return True

    def namespace_properties(self, ns: str) -> dict[str, str]:
        try:
            return dict(self.catalog.load_namespace_properties(ns))
        except NoSuchNamespaceError:
            raise LakehouseError("not_found", f"namespace {ns} does not exist") from None

    def drop_namespace(self, ns: str) -> None:
        """Drops the namespace with its tables' data and metadata; absent is already done."""
        try:
            tables = self.catalog.list_tables(ns)
        except NoSuchNamespaceError:
            return
        for ident in tables:
            self._purge(ident)
        with suppress(NoSuchNamespaceError):
            self.catalog.drop_namespace(ns)
        warehouse = self._warehouse_dir()
        if warehouse is not None:
            _prune_empty_dirs(warehouse / ns)

    def list_tables(self, ns: str) -> list[str]:
        try:
            return sorted(ident[-1] for ident in self.catalog.list_tables(ns))
        except NoSuchNamespaceError:
            raise LakehouseError("not_found", f"namespace {ns} does not exist") from None

    # -- tables -----------------------------------------------------------------------------

    def load(self, ns: str, table: str) -> Table:
        try:
            return self.catalog.load_table((ns, table))
        except (NoSuchTableError, NoSuchNamespaceError):
            raise LakehouseError("not_found", f"table {ns}.{table} does not exist") from None

    def columns(self, ns: str, table: str) -> list[Column]:
        return columns_of(self.load(ns, table).schema())

    def preview(self, ns: str, table: str, limit: int) -> tuple[list[Column], list[list[object]]]:
        if not 1 <= limit <= MAX_PREVIEW:
            raise LakehouseError("bad_request", f"limit must be between 1 and {MAX_PREVIEW}")
        tbl = self.load(ns, table)
        data = tbl.scan(limit=limit).to_arrow()
        return columns_of(tbl.schema()), arrow_to_rows(data.slice(0, limit))

    def scan(self, ns: str, table: str) -> pa.Table:
        """The whole current snapshot as Arrow (the embedded SQL engine's input)."""
        return self.load(ns, table).scan().to_arrow()

    def snapshot(self, ns: str, table: str) -> tuple[int | None, dict[str, str]]:
        """The current snapshot's id and summary (operation, counts and the writer's properties)."""
        snap = self.load(ns, table).current_snapshot()
        if snap is None:
            return None, {}
        if snap.summary is None:
            return snap.snapshot_id, {}
        props = {"operation": str(snap.summary.operation.value)}
        props.update({k: str(v) for k, v in snap.summary.additional_properties.items()})
        return snap.snapshot_id, props

    def write(self, ns: str, table: str, req: WriteRequest) -> WriteResult:
        if not self.catalog.namespace_exists(ns):
            raise LakehouseError("not_found", f"namespace {ns} does not exist")
        with self._table_lock(ns, table):
            return write_table(self.catalog, (ns, table), req)

    def drop_table(self, ns: str, table: str) -> None:
        self._purge((ns, table))

    def _purge(self, ident: tuple[str, ...] | str) -> None:
        """Drops a table with its files; purging leaves the emptied directories, so remove them too."""
        try:
            location = self.catalog.load_table(ident).location()
            self.catalog.purge_table(ident)
        except NoSuchTableError:
            return  # dropped by someone else meanwhile
        if location.startswith("file:"):
            _prune_empty_dirs(Path(location.removeprefix("file://").removeprefix("file:")))

    def _warehouse_dir(self) -> Path | None:
        wh = str(self.catalog.properties.get("warehouse", ""))
        return Path(wh.removeprefix("file://")) if wh.startswith("file://") else None

    # -- smoke ------------------------------------------------------------------------------

    def smoke(self, ns: str) -> None:
        """Creates a probe table, writes two rows, reads them back and drops it; raises on any gap."""
        if not self.catalog.namespace_exists(ns):
            raise LakehouseError("not_found", f"namespace {ns} does not exist")
        probe = f"_cairn_smoke_{uuid.uuid4().hex[:12]}"
        token = uuid.uuid4().hex
        req = WriteRequest(
            mode="overwrite",
            columns=[Column("id", "long", False), Column("token", "string")],
            rows=[[1, token], [2, token]],
            snapshot_properties={"cairn.smoke": token},
        )
        try:
            self.write(ns, probe, req)
            _, rows = self.preview(ns, probe, 10)
            _, props = self.snapshot(ns, probe)
            if sorted(map(tuple, rows)) != [(1, token), (2, token)] or props.get("cairn.smoke") != token:
                raise LakehouseError("internal", f"smoke test in {ns}: rows or snapshot did not read back")
        finally:
            self.drop_table(ns, probe)

    @contextmanager
    def _table_lock(self, ns: str, table: str) -> Iterator[None]:
        with self._locks_guard:
            lock = self._locks.setdefault((ns, table), threading.Lock())
        with lock:
            yield


def _prune_empty_dirs(root: Path | None) -> None:
    """Removes ``root`` and the directories under it, bottom-up, where they are empty."""
    if root is None or not root.is_dir():
        return
    for path in sorted((p for p in root.rglob("*") if p.is_dir()), key=lambda p: len(p.parts), reverse=True):
        with suppress(OSError):
            path.rmdir()
    with suppress(OSError):
        root.rmdir()
