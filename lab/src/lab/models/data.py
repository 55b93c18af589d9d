"""Loading the training table: an Iceberg table through the lakehouse, or a frame handed in.

Spec 4.9 rule 1: at most ``LAKEHOUSE_ROW_LIMIT`` rows (default 500,000) are loaded. A frame
larger than the limit is cut to its first rows the same way a scan with a limit would be.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

import pandas as pd

DEFAULT_ROW_LIMIT = 500_000


def row_limit(explicit: int | None = None) -> int:
    """The row limit: an explicit value, else ``LAKEHOUSE_ROW_LIMIT``, else 500,000."""
    if explicit is not None:
        value = explicit
    else:
        raw = os.environ.get("LAKEHOUSE_ROW_LIMIT", "").strip()
        if not raw:
            return DEFAULT_ROW_LIMIT
        try:
            value = int(raw)
        except ValueError:
            raise ValueError(f"LAKEHOUSE_ROW_LIMIT must be a positive integer, got {raw!r}") from None
    if value < 1:
        raise ValueError(f"the row limit must be a positive integer, got {value}")
    return value


@dataclass(frozen=True)
class TableRef:
    """An Iceberg table of the lab's catalog: ``lakehouse`` is a ``lab.lakehouse.store.Lakehouse``."""

    lakehouse: Any
    namespace: str
    table: str


@dataclass(frozen=True)
class Loaded:
    frame: pd.DataFrame
    limit: int
    truncated: bool


def load_frame(source: Any, limit: int | None = None) -> Loaded:
    """A pandas frame with a fresh 0..n-1 index from a frame, an Arrow table or a :class:`TableRef`."""
    cap = row_limit(limit)
    if isinstance(source, TableRef):
        # One row past the cap tells a full table from one that was cut.
        scan = source.lakehouse.load(source.namespace, source.table).scan(limit=cap + 1)
        frame = scan.to_arrow().to_pandas()
    elif isinstance(source, pd.DataFrame):
        frame = source
    elif hasattr(source, "to_pandas") and hasattr(source, "num_rows"):  # pyarrow.Table
        frame = source.slice(0, cap + 1).to_pandas()
    else:
        raise ValueError(
            f"cannot train from a {type(source).__name__}: give a DataFrame, Arrow table or TableRef"
        )
    truncated = len(frame) > cap
    frame = frame.iloc[:cap].reset_index(drop=True)
    return Loaded(frame=frame, limit=cap, truncated=truncated)
