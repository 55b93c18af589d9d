"""Custom tables: CSV, Parquet or JSON rows parsed with PyArrow and written as one Iceberg commit.

Parsing infers the schema (``pyarrow.csv`` type inference; a Parquet file's own schema) and
runs in the gateway's thread pool, never on the event loop. Column names are normalised to
Iceberg-safe names (``normalise_columns``): lower case, every character outside
``[a-z0-9_]`` (dots, spaces, dashes ...) becomes ``_``, runs of ``_`` collapse, leading
and trailing ``_`` are stripped, a name starting with a digit (or left empty) gets a
``c_`` prefix, names are cut at 63 characters, and duplicates get ``_2``, ``_3`` ...

Modes: ``create`` (409 when the table exists), ``replace`` (the table takes the upload's
schema and rows, in one commit) and ``append`` (columns the table lacks are added,
promotable types widened; created when absent). Every import stamps ``cairn.source`` on the
table's properties and on the snapshot summary, so listing can say where rows came from.

Bad input raises ``ImportProblem`` with a location the service turns into a section-7
validation body: ``["body", "file", "row", N]`` (N = the line of the file, 1-based, the
header included) or ``["body", "file", "column", NAME]``.
"""

from __future__ import annotations

import contextlib
import io
import re
from dataclasses import dataclass, field
from typing import IO, Literal

import pyarrow as pa
import pyarrow.csv as pa_csv
import pyarrow.parquet as pq
from pyiceberg.catalog import Catalog
from pyiceberg.exceptions import (
    CommitFailedException,
    NoSuchTableError,
    TableAlreadyExistsError,
    ValidationException,
)
from pyiceberg.table import Table, Transaction

from lab.lakehouse.columns import Column, arrow_type_name, columns_of, parse_type, schema_for
from lab.lakehouse.errors import LakehouseError
from lab.lakehouse.writes import _evolve, _promotable

ImportMode = Literal["create", "replace", "append"]
MODES: tuple[ImportMode, ...] = ("create", "replace", "append")
SOURCE_PROPERTY = "cairn.source"
MAX_COLUMN = 63
EXCERPT = 200


class ImportProblem(Exception):
    """Bad input: answered 422 with ``loc`` (section-7 location) and a short ``input`` excerpt."""

    def __init__(self, loc: list[str | int], msg: str, kind: str, input_: object = None) -> None:
        super().__init__(msg)
        self.loc = loc
        self.msg = msg
        self.kind = kind
        self.input = input_

    def as_json(self) -> dict[str, object]:
        return {"detail": self.msg, "loc": self.loc, "type": self.kind, "input": self.input}


@dataclass(frozen=True)
class CsvOptions:
    header: bool = True
    columns: list[str] | None = None
    delimiter: str = ","
    null_values: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class ImportResult:
    name: str
    columns: list[Column]
    row_count: int
    mode: ImportMode
    snapshot_id: int | None


# -- names ------------------------------------------------------------------------------------

_UNSAFE = re.compile(r"[^a-z0-9_]")
_RUNS = re.compile(r"_+")


def normalise_column(raw: str) -> str:
    """One column name made Iceberg-safe (see the module docstring for the rule)."""
    name = _RUNS.sub("_", _UNSAFE.sub("_", raw.strip().lower())).strip("_")
    if not name or name[0].isdigit():
        name = f"c_{name}" if name else "c"
    return name[:MAX_COLUMN]


def normalise_columns(raw: list[str]) -> list[str]:
    """Every name normalised, duplicates de-duplicated with ``_2``, ``_3`` ... in order."""
    out: list[str] = []
    seen: set[str] = set()
    for r in raw:
        base = normalise_column(r)
        name, n = base, 1
        while name in seen:
            n += 1
            suffix = f"_{n}"
            name = base[: MAX_COLUMN - len(suffix)] + suffix
        seen.add(name)
        out.append(name)
    return out


# -- parsing ----------------------------------------------------------------------------------


def _excerpt(text: str) -> str:
    return text if len(text) <= EXCERPT else text[:EXCERPT] + "..."


def _csv_options(opts: CsvOptions, *, threads: bool) -> tuple[pa_csv.ReadOptions, pa_csv.ParseOptions]:
    if len(opts.delimiter) != 1 or opts.delimiter in '\r\n"':
        raise ImportProblem(
            ["body", "delimiter"],
            "The delimiter must be one character (not a quote or newline)",
            "value_error",
            opts.delimiter,
        )
    read = pa_csv.ReadOptions(
        use_threads=threads,
        column_names=opts.columns or None,
        autogenerate_column_names=not opts.header and not opts.columns,
        # A header row that the caller replaces with its own names is skipped.
        skip_rows=1 if opts.header and opts.columns else 0,
    )
    return read, pa_csv.ParseOptions(delimiter=opts.delimiter)


def read_csv(source: IO[bytes], opts: CsvOptions) -> pa.Table:
    """The CSV as Arrow with inferred types; a row with the wrong field count names its line."""
    read, parse = _csv_options(opts, threads=True)
    null_values = [*pa_csv.ConvertOptions().null_values, *opts.null_values]
    convert = pa_csv.ConvertOptions(null_values=null_values, strings_can_be_null=True)
    try:
        table = pa_csv.read_csv(source, read_options=read, parse_options=parse, convert_options=convert)
    except pa.ArrowInvalid as e:
        _locate_csv_error(source, opts, convert, e)
        raise  # unreachable: _locate_csv_error always raises
    except UnicodeDecodeError as e:
        raise ImportProblem(
            ["body", "file"], f"The CSV is not UTF-8 text: {e.reason}", "csv_encoding"
        ) from None
    if table.num_columns == 0:
        raise ImportProblem(["body", "file"], "The CSV has no columns", "csv_empty")
    return table


def _locate_csv_error(
    source: IO[bytes], opts: CsvOptions, convert: pa_csv.ConvertOptions, err: pa.ArrowInvalid
) -> None:
    """Re-reads single-threaded (so PyArrow knows line numbers) and raises the first bad row."""
    bad: list[pa_csv.InvalidRow] = []

    def on_invalid(row: pa_csv.InvalidRow) -> str:
        bad.append(row)
        return "error"

    read, _ = _csv_options(opts, threads=False)
    parse = pa_csv.ParseOptions(delimiter=opts.delimiter, invalid_row_handler=on_invalid)
    source.seek(0)
    with contextlib.suppress(pa.ArrowInvalid):
        pa_csv.read_csv(source, read_options=read, parse_options=parse, convert_options=convert)
    if bad:
        row = bad[0]
        line = row.number if row.number is not None else -1
        raise ImportProblem(
            ["body", "file", "row", line],
            f"Line {line} of the CSV has {row.actual_columns} fields; the header has {row.expected_columns}",
            "csv_field_count",
            _excerpt(row.text),
        ) from None
    message = str(err)
    m = re.search(r"In CSV column #(\d+): Row #(\d+): (.*)", message)
    if m:
        raise ImportProblem(
            ["body", "file", "row", int(m.group(2))],
            f"Column {int(m.group(1)) + 1}: {_excerpt(m.group(3))}",
            "csv_value",
        ) from None
    raise ImportProblem(
        ["body", "file"], f"The CSV could not be parsed: {_excerpt(message)}", "csv_invalid"
    ) from None


def read_parquet(source: IO[bytes]) -> pa.Table:
    try:
        return pq.read_table(source)
    except (pa.ArrowInvalid, OSError) as e:
        raise ImportProblem(
            ["body", "file"],
            f"The file is not a readable Parquet file: {_excerpt(str(e))}",
            "parquet_invalid",
        ) from None


def rows_table(rows: object) -> pa.Table:
    """JSON rows (objects) as Arrow; every row's keys form the columns, missing keys are null."""
    if not isinstance(rows, list) or not rows:
        raise ImportProblem(["body", "rows"], "rows must be a non-empty array of objects", "value_error")
    names: dict[str, None] = {}
    for i, row in enumerate(rows):
        if not isinstance(row, dict):
            raise ImportProblem(
                ["body", "rows", i], "Each row must be an object", "dict_type", _excerpt(repr(row))
            )
        for k in row:
            names.setdefault(str(k), None)
    arrays: dict[str, pa.Array] = {}
    for name in names:
        values = [row.get(name) for row in rows]
        try:
            arrays[name] = pa.array(values)
        except (pa.ArrowInvalid, pa.ArrowTypeError) as e:
            raise ImportProblem(
                ["body", "rows", "column", name],
                f"Column {name!r} mixes value types: {_excerpt(str(e))}",
                "value_error",
            ) from None
    return pa.table(arrays)


# -- Arrow -> Iceberg ------------------------------------------------------------------------


def _iceberg_arrow(t: pa.DataType) -> tuple[pa.DataType, str] | None:
    """The Arrow type to store and its contract type name; None when not storable."""
    if pa.types.is_dictionary(t):
        return _iceberg_arrow(t.value_type)
    if pa.types.is_null(t):
        return pa.string(), "string"
    if pa.types.is_boolean(t):
        return pa.bool_(), "boolean"
    if pa.types.is_int8(t) or pa.types.is_int16(t) or pa.types.is_int32(t):
        return pa.int32(), "int"
    if pa.types.is_uint8(t) or pa.types.is_uint16(t):
        return pa.int32(), "int"
    if pa.types.is_integer(t):
        return pa.int64(), "long"
    if pa.types.is_float16(t) or pa.types.is_float32(t):
        return pa.float32(), "float"
    if pa.types.is_floating(t):
        return pa.float64(), "double"
    if pa.types.is_decimal(t) and t.precision <= 38:
        return pa.decimal128(t.precision, t.scale), f"decimal({t.precision},{t.scale})"
    if pa.types.is_date(t):
        return pa.date32(), "date"
    if pa.types.is_timestamp(t):
        return (pa.timestamp("us", "UTC"), "timestamptz") if t.tz else (pa.timestamp("us"), "timestamp")
    if pa.types.is_time(t):
        return pa.string(), "string"
    if pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_string_view(t):
        return pa.string(), "string"
    if pa.types.is_binary(t) or pa.types.is_large_binary(t) or pa.types.is_fixed_size_binary(t):
        return pa.binary(), "binary"
    return None


def to_storable(table: pa.Table) -> tuple[pa.Table, list[Column]]:
    """Normalised names and Iceberg-storable types; 422 naming a column that cannot be stored."""
    names = normalise_columns([str(n) for n in table.column_names])
    arrays: list[pa.ChunkedArray] = []
    columns: list[Column] = []
    for raw, name, col in zip(table.column_names, names, table.columns, strict=True):
        mapped = _iceberg_arrow(col.type)
        if mapped is None:
            raise ImportProblem(
                ["body", "file", "column", str(raw)],
                f"Column {raw!r} has type {col.type}, which a table cannot store (nested or unsupported)",
                "column_type",
            )
        arrow_type, type_name = mapped
        if pa.types.is_dictionary(col.type):
            col = col.cast(col.type.value_type)
        try:
            arrays.append(col.cast(arrow_type) if col.type != arrow_type else col)
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as e:
            raise ImportProblem(
                ["body", "file", "column", str(raw)],
                f"Column {raw!r} cannot be stored as {type_name}: {_excerpt(str(e))}",
                "column_type",
            ) from None
        columns.append(Column(name, type_name, True))
    schema = pa.schema(
        [pa.field(c.name, a.type, nullable=True) for c, a in zip(columns, arrays, strict=True)]
    )
    return pa.Table.from_arrays(arrays, schema=schema), columns


def arrow_columns_of(table: pa.Table) -> list[Column]:
    return [Column(f.name, arrow_type_name(f.type), True) for f in table.schema]


# -- writing -----------------------------------------------------------------------------------


def _conform(data: pa.Table, tx: Transaction) -> pa.Table:
    """The upload in the table's column order and types; absent columns become nulls."""
    target = tx.table_metadata.schema().as_arrow()
    arrays = []
    for f in target:
        if f.name in data.column_names:
            arrays.append(data.column(f.name).cast(f.type))
        else:
            arrays.append(pa.nulls(data.num_rows, f.type))
    return pa.Table.from_arrays(arrays, schema=target)


def _replace_schema(tx: Transaction, columns: list[Column]) -> None:
    """The table's schema becomes ``columns``: stale columns dropped, new ones added, order set."""
    fields = {f.name: f for f in tx.table_metadata.schema().fields}
    wanted = {c.name: c for c in columns}
    drops = [
        name
        for name, f in fields.items()
        if name not in wanted
        or (
            f.field_type != parse_type(wanted[name].type)
            and not _promotable(f.field_type, parse_type(wanted[name].type))
        )
    ]
    if drops:
        with tx.update_schema(allow_incompatible_changes=True) as update:
            for name in drops:
                update.delete_column(name)
    kept = {f.name: f for f in tx.table_metadata.schema().fields}
    with tx.update_schema(allow_incompatible_changes=True) as update:
        for c in columns:
            want = parse_type(c.type)
            f = kept.get(c.name)
            if f is None:
                update.add_column(c.name, want, required=False)
            else:
                if f.required:
                    update.make_column_optional(c.name)
                if f.field_type != want:
                    update.update_column(c.name, field_type=want)
    with tx.update_schema() as update:
        previous: str | None = None
        for c in columns:
            if previous is None:
                update.move_first(c.name)
            else:
                update.move_after(c.name, previous)
            previous = c.name


def import_table(
    catalog: Catalog,
    identifier: tuple[str, str],
    data: pa.Table,
    columns: list[Column],
    mode: ImportMode,
    source: str = "custom",
) -> ImportResult:
    """Writes ``data`` (already storable, see ``to_storable``) as exactly one catalog commit."""
    try:
        table = catalog.load_table(identifier)
    except NoSuchTableError:
        table = None
    if table is not None and mode == "create":
        raise LakehouseError(
            "conflict", f"table {identifier[1]} already exists: send mode=replace or mode=append"
        )
    props = {SOURCE_PROPERTY: source, "cairn.import.mode": mode}
    tx: Transaction
    if table is None:
        tx = catalog.create_table_transaction(
            identifier, schema_for(columns), properties={SOURCE_PROPERTY: source}
        )
    else:
        tx = table.transaction()
        if mode == "replace":
            _replace_schema(tx, columns)
        else:
            _evolve(tx, columns)
        tx.set_properties({SOURCE_PROPERTY: source})
    conformed = _conform(data, tx)
    if mode == "append" and table is not None:
        tx.append(conformed, snapshot_properties=props)
    else:
        tx.overwrite(conformed, snapshot_properties=props)
    try:
        committed = tx.commit_transaction()
    except TableAlreadyExistsError:
        raise LakehouseError("conflict", f"table {identifier[1]} was created meanwhile") from None
    except (CommitFailedException, ValidationException) as e:
        raise LakehouseError("conflict", f"concurrent commit to {'.'.join(identifier)}: {e}") from None
    snap = committed.current_snapshot()
    return ImportResult(
        name=identifier[1],
        columns=columns_of(committed.schema()),
        row_count=_total_records(committed),
        mode=mode,
        snapshot_id=snap.snapshot_id if snap else None,
    )


def _total_records(table: Table) -> int:
    snap = table.current_snapshot()
    if snap is None or snap.summary is None:
        return 0
    return int(snap.summary.additional_properties.get("total-records", 0))


def summarise(catalog: Catalog, ns: str, names: list[str]) -> list[dict[str, object]]:
    """Every named table's columns, row count (snapshot ``total-records``) and source."""
    out: list[dict[str, object]] = []
    for name in names:
        try:
            table = catalog.load_table((ns, name))
        except NoSuchTableError:
            continue  # dropped while listing
        snap = table.current_snapshot()
        summary: dict[str, str] = {}
        if snap is not None and snap.summary is not None:
            summary = {k: str(v) for k, v in snap.summary.additional_properties.items()}
        rows = summary.get("total-records")
        source = table.properties.get(SOURCE_PROPERTY) or summary.get(SOURCE_PROPERTY)
        if not source:
            source = (
                "foundry"
                if name.startswith("foundry_")
                else "sync"
                if "cairn.sync.target" in summary
                else "unknown"
            )
        out.append(
            {
                "name": name,
                "columns": [c.as_json() for c in columns_of(table.schema())],
                "row_count": int(rows) if rows is not None else (0 if snap is None else None),
                "source": source,
            }
        )
    return out


def parse_upload(fmt: str, source: IO[bytes], opts: CsvOptions) -> pa.Table:
    if fmt == "csv":
        return read_csv(source, opts)
    if fmt == "parquet":
        return read_parquet(source)
    raise LakehouseError("bad_request", f"unknown format {fmt!r}: csv or parquet")


def bytes_source(data: bytes) -> IO[bytes]:
    return io.BytesIO(data)
