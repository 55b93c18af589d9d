"""A model artifact written to and read back from the S3-compatible object store (S3Proxy).

The service passes ``artifact_dir = s3://<bucket>/<prefix>/models/<tenant>`` when its object
store is S3; the lab takes the endpoint and credentials from CAIRN_S3_* in its environment.
"""

from __future__ import annotations

import hashlib
import uuid
from urllib.parse import urlsplit

import numpy as np
import pandas as pd
import pytest

from lab.models.artifacts import load_artifact, read_artifact_bytes, write_artifact
from lab.models.run import TrainOptions, train_with_artifact


@pytest.fixture
def s3_env(s3_url: str, monkeypatch: pytest.MonkeyPatch) -> str:
    """Sets CAIRN_S3_* from the test store's URL; returns the bucket."""
    u = urlsplit(s3_url)
    monkeypatch.setenv("CAIRN_S3_ENDPOINT", f"{u.scheme}://{u.hostname}:{u.port}")
    monkeypatch.setenv("CAIRN_S3_ACCESS_KEY_ID", u.username or "")
    monkeypatch.setenv("CAIRN_S3_SECRET_ACCESS_KEY", u.password or "")
    return u.path.strip("/")


def test_artifact_round_trips_through_s3(s3_env: str) -> None:
    rng = np.random.default_rng(7)
    frame = pd.DataFrame({"x": rng.normal(size=300), "c": rng.choice(["a", "b"], size=300)})
    frame["y"] = (frame["x"] + (frame["c"] == "a") > 0.5).astype(int)
    prefix = f"s3://{s3_env}/t{uuid.uuid4().hex[:8]}/models/tenant-a"
    opts = TrainOptions(algorithms=["LogisticRegression"], artifact_dir=prefix)
    result, blob = train_with_artifact(frame, "y", options=opts)
    assert blob is not None
    art = result["artifact"]
    assert art["path"] == f"{prefix}/{art['sha256']}.joblib"
    stored = read_artifact_bytes(art["path"])
    assert stored == blob and hashlib.sha256(stored).hexdigest() == art["sha256"]
    model = load_artifact(art["path"], art["sha256"])
    assert model.predict(frame.head(5)).tolist() == load_artifact(blob).predict(frame.head(5)).tolist()


def test_a_missing_object_is_an_error_not_an_empty_model(s3_env: str) -> None:
    with pytest.raises(OSError):
        read_artifact_bytes(f"s3://{s3_env}/missing-{uuid.uuid4().hex}/x.joblib")


def test_write_is_content_addressed(s3_env: str) -> None:
    prefix = f"s3://{s3_env}/t{uuid.uuid4().hex[:8]}"
    first = write_artifact(b"same bytes", prefix)
    assert first == write_artifact(b"same bytes", prefix)
    assert first.endswith(hashlib.sha256(b"same bytes").hexdigest() + ".joblib")
