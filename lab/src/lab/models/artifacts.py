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


def write_artifact(data: bytes, directory: str | Path, suffix: str = ".joblib") -> str:
    """Writes ``<directory>/<sha256><suffix>`` (a joblib model, or ``.onnx``) and returns where it went.

    ``directory`` is a local folder (written to a temporary name, then renamed) or an
    ``s3://bucket/prefix`` URL of the service's object store (one upload, visible only once it
    completes). The lab reads the store's endpoint and credentials from its own environment,
    under the service's names (CAIRN_S3_ENDPOINT, CAIRN_S3_REGION, CAIRN_S3_ACCESS_KEY_ID,
    CAIRN_S3_SECRET_ACCESS_KEY): job data never carries a secret.
    """
    digest = hashlib.sha256(data).hexdigest()
    if isinstance(directory, str) and directory.startswith("s3://"):
        fs, root = _s3(directory)
        key = f"{root.rstrip('/')}/{digest}{suffix}"
        with fs.open_output_stream(key) as out:
            out.write(data)
        return f"s3://{key}"
    target = Path(directory)
    target.mkdir(parents=True, exist_ok=True)
    path = target / f"{digest}{suffix}"
    tmp = target / f".{digest}{suffix}.tmp"
    tmp.write_bytes(data)
    tmp.replace(path)
    return str(path)


def _s3(url: str) -> tuple[Any, str]:
    """A pyarrow S3 filesystem from the CAIRN_S3_* environment, and ``bucket/prefix`` of ``url``."""
    import os

    from pyarrow import fs

    # The AWS SDK's default (a checksum on every request, streamed uploads) is refused by several
    # S3-compatible stores (S3Proxy answers XAmzContentSHA256Mismatch); checksums only where the
    # operation requires one works with AWS and with them. An operator's own setting wins.
    os.environ.setdefault("AWS_REQUEST_CHECKSUM_CALCULATION", "when_required")
    os.environ.setdefault("AWS_RESPONSE_CHECKSUM_VALIDATION", "when_required")
    endpoint = os.environ.get("CAIRN_S3_ENDPOINT")
    options: dict[str, Any] = {"region": os.environ.get("CAIRN_S3_REGION", "us-east-1")}
    if endpoint:
        scheme, _, host = endpoint.partition("://")
        options.update(endpoint_override=host or scheme, scheme=scheme if host else "https")
    key_id = os.environ.get("CAIRN_S3_ACCESS_KEY_ID")
    if key_id:
        options.update(access_key=key_id, secret_key=os.environ.get("CAIRN_S3_SECRET_ACCESS_KEY", ""))
    return fs.S3FileSystem(**options), url[len("s3://") :]


def read_artifact_bytes(location: str | Path) -> bytes:
    """The bytes at a path returned by :func:`write_artifact` (local file or ``s3://`` URL)."""
    if isinstance(location, str) and location.startswith("s3://"):
        fs, key = _s3(location)
        with fs.open_input_stream(key) as src:
            return src.read()
    return Path(location).read_bytes()


def load_artifact(source: bytes | str | Path, sha256: str | None = None) -> Any:
    """The model from bytes, a file or an ``s3://`` URL.

    ValueError when the content does not match ``sha256``.
    """
    data = source if isinstance(source, bytes) else read_artifact_bytes(source)
    digest = hashlib.sha256(data).hexdigest()
    if sha256 is not None and digest != sha256:
        raise ValueError(f"artifact hash mismatch: expected {sha256}, got {digest}")
    model = joblib.load(io.BytesIO(data))
    from lab.models.series_artifacts import AnomalyModel, ForecastModel  # they import FORMAT from here

    if not isinstance(model, (TrainedModel, ForecastModel, AnomalyModel)):
        raise ValueError(f"not a lab model artifact: {type(model).__name__}")
    return model
