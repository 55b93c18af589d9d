"""Writing request rows to an Iceberg table as exactly one catalog commit.

Every mode runs inside one PyIceberg transaction: data files are written first and the
table's metadata pointer moves once, at ``commit_transaction``. A failure anywhere before
that leaves the previous snapshot current (orphan data files, if any, are unreferenced).
A missing table is created in the same transaction (``create_table_transaction``), and
request columns the table lacks are added by a schema update in that transaction too.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import Literal

from pyiceberg.catalog import Catalog
from pyiceberg.exceptions import (
    CommitFailedException,
    NoSuchTableError,
    TableAlreadyExistsError,
    ValidationException,
)
from pyiceberg.table import Transaction
from pyiceberg.types import DecimalType, DoubleType, FloatType, IcebergType, IntegerType, LongType

from lab.lakehouse.columns import Column, parse_type, schema_for, type_name
from lab.lakehouse.errors import LakehouseError
from lab.lakehouse.values import rows_to_arrow

# Overwriting or upserting into an empty table is routine (every first sync); PyIceberg
# warns about it each time, on stderr, as if it were a problem.
warnings.filterwarnings("ignore", message="Delete operation did not match any records")

WriteMode = Literal["overwrite", "append", "upsert"]


@dataclass(frozen=True)
class WriteRequest:
    """A validated write (see ``WriteRequest`` in ``domain/lakehouse/ports.ts``)."""

    mode: WriteMode
    columns: list[Column]
    rows: list[list[object]]
    key_columns: list[str] = field(default_factory=list)
    snapshot_properties: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class WriteResult:
    snapshot_id: int | None
    rows_written: int


def _promotable(old: IcebergType, new: IcebergType) -> bool:
    """Iceberg's allowed widenings: int->long, float->double, decimal(P,S)->decimal(P',S) with P' > P."""
    if isinstance(old, IntegerType) and isinstance(new, LongType):
        return True
    if isinstance(old, FloatType) and isinstance(new, DoubleType):
        return True
    return (
        isinstance(old, DecimalType)
        and isinstance(new, DecimalType)
        and old.scale == new.scale
        and new.precision > old.precision
    )


def _evolve(tx: Transaction, columns: list[Column]) -> None:
    """Adds request columns the table lacks and widens promotable types; 409 on a real conflict."""
    fields = {f.name: f for f in tx.table_metadata.schema().fields}
    adds: list[Column] = []
    widens: list[tuple[str, IcebergType]] = []
    for col in columns:
        want = parse_type(col.type)
        existing = fields.get(col.name)
        if existing is None:
            adds.append(col)
        elif existing.field_type != want:
            if not _promotable(existing.field_type, want):
                raise LakehouseError(
                    "conflict",
                    f"column {col.name!r} is {type_name(existing.field_type)} in the table, "
                    f"not {type_name(want)}",
                )
            widens.append((col.name, want))
    if not adds and not widens:
        return
    with tx.update_schema() as update:
        for col in adds:
            # Iceberg only allows optional columns to be added to a table with data.
            update.add_column(col.name, parse_type(col.type), required=False)
        for name, t in widens:
            update.update_column(name, field_type=t)


def _apply(tx: Transaction, req: WriteRequest) -> None:
    data = rows_to_arrow(tx.table_metadata.schema(), [c.name for c in req.columns], req.rows)
    props = req.snapshot_properties
    if req.mode == "append":
        tx.append(data, snapshot_properties=props)
    elif req.mode == "overwrite":
        tx.overwrite(data, snapshot_properties=props)
    else:
        try:
            tx.upsert(data, join_cols=req.key_columns, snapshot_properties=props)
        except ValueError as e:  # duplicate keys in the request, schema mismatch
            raise LakehouseError("bad_request", f"upsert refused: {e}") from None


def write_table(catalog: Catalog, identifier: tuple[str, str], req: WriteRequest) -> WriteResult:
    """Runs ``req`` against the table as one commit; creates the table when it is absent."""
    try:
        table = catalog.load_table(identifier)
    except NoSuchTableError:
        table = None
    tx: Transaction
    if table is None:
        tx = catalog.create_table_transaction(identifier, schema_for(req.columns))
    else:
        tx = table.transaction()
        _evolve(tx, req.columns)
    _apply(tx, req)
    try:
        committed = tx.commit_transaction()
    except (CommitFailedException, TableAlreadyExistsError, ValidationException) as e:
        raise LakehouseError("conflict", f"concurrent commit to {'.'.join(identifier)}: {e}") from None
    snap = committed.current_snapshot()
    return WriteResult(snapshot_id=snap.snapshot_id if snap else None, rows_written=len(req.rows))
