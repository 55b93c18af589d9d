"""The training job handler over a real Iceberg table (the lab's SQLite catalog), the row limit
of spec 4.9 rule 1 (LAKEHOUSE_ROW_LIMIT), progress reports and the artifact file.
"""

from __future__ import annotations

import base64
import hashlib
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from lakehouse_support import require_modules

require_modules("sklearn", "xgboost", "lightgbm", "catboost", "imblearn", "shap", extra="ml")
require_modules("pyiceberg", "pyarrow", extra="lakehouse")

import pyarrow as pa  # noqa: E402

from lab.lakehouse.catalog import open_catalog  # noqa: E402
from lab.lakehouse.store import Lakehouse  # noqa: E402
from lab.models.artifacts import load_artifact  # noqa: E402
from lab.models.data import TableRef, load_frame, row_limit  # noqa: E402
from lab.models.run import train_handler  # noqa: E402

ML_DATA = Path(__file__).resolve().parents[2] / ".." / "shared" / "data" / "ml"
OPTIONS = {"algorithms": ["LogisticRegression", "RandomForest"], "n_estimators": 30, "parallel": 2}


def german_credit() -> pd.DataFrame:
    path = ML_DATA / "classification" / "german_credit.csv"
    if not path.exists():
        why = f"real data {path} is missing (the shared data set: ../shared/data/ml)"
        if os.environ.get("CI"):
            pytest.fail(f"{why}: the model suites must run under CI", pytrace=False)
        pytest.skip(why)
    frame = pd.read_csv(path, header=None)
    frame.columns = [f"a{i}" for i in range(1, 21)] + ["credit"]
    return frame


@dataclass
class Ctx:
    data: Any
    id: str = "job-1"
    name: str = "models.train"
    attempt: int = 1
    reports: list[Any] = field(default_factory=list)

    def progress(self, value: Any) -> None:
        self.reports.append(value)


@pytest.fixture
def catalog(tmp_path: Path) -> dict[str, str]:
    uri = f"sqlite:///{tmp_path / 'catalog.db'}"
    warehouse = str(tmp_path / "warehouse")
    cat = open_catalog(uri, warehouse)
    cat.create_namespace("t_demo")
    arrow = pa.Table.from_pandas(german_credit(), preserve_index=False)
    table = cat.create_table(("t_demo", "credit"), schema=arrow.schema)
    table.append(arrow)
    return {"catalog_uri": uri, "warehouse": warehouse, "namespace": "t_demo", "table": "credit"}


def test_the_handler_trains_from_an_iceberg_table_within_the_row_limit(
    catalog, tmp_path, monkeypatch
) -> None:
    monkeypatch.setenv("LAKEHOUSE_ROW_LIMIT", "600")
    artifacts = tmp_path / "objects"
    ctx = Ctx({**catalog, "target_column": "credit", "artifact_dir": str(artifacts), "options": OPTIONS})
    result = train_handler(ctx)
    assert result["rows"] == 600 and result["row_limit"] == 600 and result["rows_truncated"] is True
    assert result["split"]["train"] == 480 and result["problem_type"] == "classification"
    art = result["artifact"]
    path = Path(art["path"])
    assert path == artifacts / f"{art['sha256']}.joblib"
    assert hashlib.sha256(path.read_bytes()).hexdigest() == art["sha256"] and "base64" not in art
    model = load_artifact(path, art["sha256"])
    frame = german_credit()
    rows = frame.iloc[result["validation_sample"]["rows"]]
    assert model.predict(rows).tolist() == result["validation_sample"]["predictions"]
    # Progress: a start report, then one per algorithm with its record.
    assert ctx.reports[0] == {"stage": "training", "done": 0, "total": 2, "record": None}
    assert [r["done"] for r in ctx.reports[1:]] == [1, 2]
    assert {r["record"]["algorithm"] for r in ctx.reports[1:]} == {"LogisticRegression", "RandomForest"}
    assert all(r["record"]["status"] == "trained" for r in ctx.reports[1:])


def test_without_an_artifact_dir_the_artifact_comes_back_base64(catalog) -> None:
    ctx = Ctx(
        {**catalog, "target_column": "credit", "options": {**OPTIONS, "algorithms": ["LogisticRegression"]}}
    )
    result = train_handler(ctx)
    assert result["rows"] == 1000 and result["rows_truncated"] is False
    blob = base64.b64decode(result["artifact"]["base64"])
    assert len(blob) == result["artifact"]["bytes"]
    assert load_artifact(blob, result["artifact"]["sha256"]).algorithm == "LogisticRegression"


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"target_column": ""}, "data.target_column"),
        ({"table": None}, "data.table"),
        ({"feature_columns": "a1"}, "feature_columns"),
        ({"options": {"budget": 1}}, "unknown option"),
        ({"options": {"timeout_s": -1}}, "timeout_s"),
        ({"target_column": "nope"}, "target column 'nope' is not in the table"),
        # timeseries and anomaly go to lab.models.series_run, with its own checks
        ({"feature_columns": ["a1", "a2"], "problem_type": "timeseries"}, "only its time column"),
        ({"problem_type": "anomaly", "label_column": 3}, "data.label_column"),
    ],
)
def test_bad_job_data_fails_with_a_clear_message(catalog, change, message) -> None:
    with pytest.raises(ValueError, match=message):
        train_handler(Ctx({**catalog, "target_column": "credit", **change}))


def test_a_missing_table_is_an_error_not_a_run(catalog) -> None:
    from lab.lakehouse.errors import LakehouseError

    with pytest.raises(LakehouseError, match="does not exist"):
        train_handler(Ctx({**catalog, "table": "nope", "target_column": "credit"}))


def test_row_limit_sources(catalog, monkeypatch) -> None:
    monkeypatch.delenv("LAKEHOUSE_ROW_LIMIT", raising=False)
    assert row_limit() == 500_000
    monkeypatch.setenv("LAKEHOUSE_ROW_LIMIT", "1234")
    assert row_limit() == 1234 and row_limit(10) == 10
    monkeypatch.setenv("LAKEHOUSE_ROW_LIMIT", "lots")
    with pytest.raises(ValueError, match="LAKEHOUSE_ROW_LIMIT"):
        row_limit()
    lake = Lakehouse(open_catalog(catalog["catalog_uri"], catalog["warehouse"]))
    loaded = load_frame(TableRef(lake, "t_demo", "credit"), 1000)
    assert len(loaded.frame) == 1000 and loaded.truncated is False
    arrow = pa.Table.from_pandas(german_credit(), preserve_index=False)
    cut = load_frame(arrow, 250)
    assert len(cut.frame) == 250 and cut.truncated is True and list(cut.frame.index) == list(range(250))


def test_a_models_train_job_on_the_embedded_queue_runs_the_registered_handler(catalog, jobs_db) -> None:
    """The worker's handler table knows `models.train`: a queued job completes with the run's result."""
    import json

    from conftest import enqueue, job_row

    from lab.jobs.embedded import run_embedded

    data = {**catalog, "target_column": "credit", "options": OPTIONS}
    job_id = enqueue(jobs_db, "foundry-train", "models.train", data, attempts=1)
    assert run_embedded(jobs_db, "foundry-train", once=True, poll_s=0.01) == 1
    row = job_row(jobs_db, "foundry-train", job_id)
    assert row["status"] == "completed", row["error"]
    result = json.loads(str(row["result"]))
    assert result["problem_type"] == "classification"
    assert result["winner"]["algorithm"] in {"LogisticRegression", "RandomForest"}
    assert len(base64.b64decode(result["artifact"]["base64"])) > 0


def test_the_queued_job_turns_bad_input_into_a_failed_run_not_a_retry(catalog) -> None:
    """``models.train`` as the worker calls it: a ValueError is the run's failed result (the job
    completes, so the queue does not try the same bad input again); other errors still raise."""
    from lab.jobs.handlers import handler_for
    from lab.lakehouse.errors import LakehouseError

    job = handler_for("models.train")
    result = job(Ctx({**catalog, "target_column": "nope"}))
    assert isinstance(result, dict) and result["status"] == "failed"
    assert "target column 'nope' is not in the table" in str(result["reason"])
    with pytest.raises(LakehouseError):
        job(Ctx({**catalog, "table": "nope", "target_column": "credit"}))
