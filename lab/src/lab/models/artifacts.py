"""The winning model as an artifact: preprocessing + estimator + label decoding, joblib bytes, sha256.

The service stores the bytes in its object store (local directory or S3) under their content
hash; :func:`load_artifact` checks the hash before unpickling. Unpickling needs this lab's
pinned library versions (the ``ml`` extra): an artifact is data for the lab, not for clients.
"""

from __future__ import annotations

import hashlib
import io
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import joblib
import numpy as np
import pandas as pd

FORMAT = "cairn-lab-model/1"


@dataclass
class TrainedModel:
    """What prediction needs: the fitted pipeline (``preprocess`` then ``model``) and the labels."""

    pipeline: Any  # sklearn Pipeline
    problem_type: str
    target: str
    features: list[str]
    classes: list[Any] | None
    algorithm: str
    format: str = FORMAT

    def _rows(self, frame: pd.DataFrame) -> pd.DataFrame:
        missing = [c for c in self.features if c not in frame.columns]
        if missing:
            raise ValueError(f"rows lack the model's feature column(s) {missing[:10]}")
        return frame[self.features]

    def predict(self, frame: pd.DataFrame) -> np.ndarray:
        """Predicted labels (the original class values) or regression values, one per row."""
        raw = np.asarray(self.pipeline.predict(self._rows(frame))).reshape(-1)
        if self.classes is None:
            return raw.astype(np.float64)
        return np.asarray(self.classes, dtype=object)[raw.astype(np.int64)]

    def predict_proba(self, frame: pd.DataFrame) -> np.ndarray:
        """Class probabilities, columns in the order of ``classes``."""
        if self.classes is None:
            raise ValueError("a regression model has no class probabilities")
        return np.asarray(self.pipeline.predict_proba(self._rows(frame)))


def serialize(model: TrainedModel) -> tuple[bytes, str]:
    """The joblib bytes (compressed) and their sha256 hex digest."""
    buf = io.BytesIO()
    joblib.dump(model, buf, compress=3)
    data = buf.getvalue()
    return data, hashlib.sha256(data).hexdigest()


def write_artifact(data: bytes, directory: str | Path) -> Path:
    """Writes ``<directory>/<sha256>.joblib`` (atomically) and returns its path."""
    digest = hashlib.sha256(data).hexdigest()
    target = Path(directory)
    target.mkdir(parents=True, exist_ok=True)
    path = target / f"{digest}.joblib"
    tmp = target / f".{digest}.joblib.tmp"
    tmp.write_bytes(data)
    tmp.replace(path)
    return path


def load_artifact(source: bytes | str | Path, sha256: str | None = None) -> TrainedModel:
    """The model from bytes or a file; ValueError when the content does not match ``sha256``."""
    data = source if isinstance(source, bytes) else Path(source).read_bytes()
    digest = hashlib.sha256(data).hexdigest()
    if sha256 is not None and digest != sha256:
        raise ValueError(f"artifact hash mismatch: expected {sha256}, got {digest}")
    model = joblib.load(io.BytesIO(data))
    if not isinstance(model, TrainedModel):
        raise ValueError(f"not a lab model artifact: {type(model).__name__}")
    return model
