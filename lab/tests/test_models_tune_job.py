"""The ``models.tune`` job on the embedded queue over a real Iceberg table (German credit): 12
trials, at most and at least 2 at a time (read from the study's own trial times), progress per
finished trial reported from the handler's thread; and tuned hyperparameters (TrainOptions.params)
applied by the roster to the estimators a training run builds and recorded per algorithm."""

from __future__ import annotations

import json
import os
import threading
from datetime import datetime
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from lakehouse_support import require_modules

require_modules("sklearn", "optuna", "xgboost", "lightgbm", "catboost", "imblearn", "shap", extra="ml")
require_modules("pyiceberg", "pyarrow", extra="lakehouse")

import pyarrow as pa  # noqa: E402

from lab.jobs.embedded import EmbeddedQueue, process_one  # noqa: E402
from lab.lakehouse.catalog import open_catalog  # noqa: E402
from lab.models.artifacts import load_artifact  # noqa: E402
from lab.models.roster import CLASSIFICATION, Params, with_params  # noqa: E402
from lab.models.run import train_with_artifact  # noqa: E402
from lab.models.tune_job import tune_handler  # noqa: E402
from lab.models.tuning import max_concurrency  # noqa: E402

ML_DATA = Path(__file__).resolve().parents[2] / ".." / "shared" / "data" / "ml"
FAMILIES = ["XGBoost", "LightGBM", "RandomForest"]


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


@pytest.fixture
def catalog(tmp_path: Path) -> dict[str, str]:
    uri = f"sqlite:///{tmp_path / 'catalog.db'}"
    warehouse = str(tmp_path / "warehouse")
    cat = open_catalog(uri, warehouse)
    cat.create_namespace("t_demo")
    arrow = pa.Table.from_pandas(german_credit(), preserve_index=False)
    cat.create_table(("t_demo", "credit"), schema=arrow.schema).append(arrow)
    return {"catalog_uri": uri, "warehouse": warehouse, "namespace": "t_demo", "table": "credit"}


class RecordingQueue(EmbeddedQueue):
    """The real embedded queue; also notes each progress report and the thread that sent it."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.reports: list[tuple[int, Any]] = []

    def progress(self, job: Any, value: Any) -> bool:
        self.reports.append((threading.get_ident(), value))
        return super().progress(job, value)


def test_a_tune_job_runs_twelve_trials_two_wide_with_progress_per_trial(catalog, jobs_db) -> None:
    from conftest import enqueue, job_row

    data = {**catalog, "target_column": "credit", "options": {"families": FAMILIES, "seed": 7}}
    job_id = enqueue(jobs_db, "foundry-train", "models.tune", data, attempts=1)
    queue = RecordingQueue(jobs_db)
    try:
        [job] = queue.claim("foundry-train")
        assert job.name == "models.tune"
        assert process_one(queue, job) is True
    finally:
        queue.close()
    row = job_row(jobs_db, "foundry-train", job_id)
    assert row["status"] == "completed", row["error"]
    result = json.loads(str(row["result"]))
    assert result["status"] == "succeeded" and result["reason"] is None
    assert result["problem_type"] == "classification" and result["metric"] == "val_accuracy"

    # 12 trials, and from their own start/complete times: never more than 2 at once, and 2 did overlap.
    trials = result["trials"]
    assert result["n_trials"] == 12 and [t["number"] for t in trials] == list(range(12))
    assert all(t["state"] == "COMPLETE" for t in trials)
    spans = [
        (
            datetime.fromisoformat(t["datetime_start"]).timestamp(),
            datetime.fromisoformat(t["datetime_complete"]).timestamp(),
        )
        for t in trials
    ]
    assert max_concurrency(spans) == 2 == result["max_concurrency"] == result["parallel"]
    assert {t["algorithm"] for t in trials} == set(FAMILIES) == set(result["families"])

    # The best trial, and the best params of every family measured.
    best = result["best"]
    assert best["value"] == max(t["value"] for t in trials) and best["metric"] == "val_accuracy"
    assert set(result["best_params"]) == set(FAMILIES)
    assert result["best_params"][best["algorithm"]] == best["params"]
    assert result["rows_loaded"] == 1000 and result["rows_truncated"] is False

    # Progress: a start report and one per finished trial, all from the handler's own thread (the
    # queue's SQLite connection is not shared with Optuna's worker threads).
    reports = [v for _, v in queue.reports]
    assert {tid for tid, _ in queue.reports} == {threading.get_ident()}
    assert [r["done"] for r in reports] == list(range(13))
    assert all(r["stage"] == "tuning" and r["total"] == 12 for r in reports)
    assert reports[0]["trial"] is None and reports[0]["best"] is None
    assert sorted(r["trial"]["number"] for r in reports[1:]) == list(range(12))
    assert reports[-1]["best"]["value"] == best["value"]
    assert json.loads(str(row["progress"]))["done"] == 12


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"options": {"n_trials": 13}}, "n_trials"),
        ({"options": {"families": ["SVC"]}}, "unknown tuning families"),
        ({"options": {"bogus": 1}}, "unknown option"),
        ({"problem_type": "timeseries"}, "problem_type"),
        ({"target_column": ""}, "target_column"),
    ],
)
def test_bad_tune_data_fails_with_a_clear_message(catalog, change, message) -> None:
    class Ctx:
        data = {**catalog, "target_column": "credit", **change}

        def progress(self, value: Any) -> None:
            pass

    with pytest.raises(ValueError, match=message):
        tune_handler(Ctx())


def test_the_roster_applies_tuned_params_over_its_own_settings() -> None:
    by_name = {a.name: a for a in CLASSIFICATION}
    p = Params(seed=5, n_jobs=1, n_estimators=300, class_weight=True, n_classes=2)
    xgb = with_params(by_name["XGBoost"], {"max_depth": 3, "learning_rate": 0.05}).build(p)
    got = xgb.get_params()
    assert got["max_depth"] == 3 and got["learning_rate"] == 0.05
    # The roster's fixed settings stay: seed, threads, trees, early stopping.
    assert got["random_state"] == 5 and got["n_jobs"] == 1 and got["n_estimators"] == 300
    assert got["early_stopping_rounds"] == 30
    # Tuning samples LightGBM rows with subsample_freq=1: a tuned subsample brings it along.
    lgbm = with_params(by_name["LightGBM"], {"subsample": 0.7}).build(p).get_params()
    assert lgbm["subsample"] == 0.7 and lgbm["subsample_freq"] == 1 and lgbm["class_weight"] == "balanced"
    rf = with_params(by_name["RandomForest"], {"n_estimators": 50, "max_features": 0.5}).build(p)
    assert rf.n_estimators == 50 and rf.max_features == 0.5 and rf.class_weight == "balanced"
    # Without params the algorithm is the roster's own.
    assert with_params(by_name["XGBoost"], {}) is by_name["XGBoost"]


def test_a_run_with_params_trains_with_them_and_records_them() -> None:
    frame = german_credit()
    params = {"XGBoost": {"max_depth": 2, "n_estimators": 40}, "LightGBM": {"num_leaves": 9}}
    result, blob = train_with_artifact(
        frame,
        "credit",
        options={"algorithms": ["XGBoost", "LogisticRegression"], "params": params, "shap_rows": 50},
    )
    assert result["status"] == "succeeded"
    records = {r["algorithm"]: r for r in result["algorithms"]}
    assert records["XGBoost"]["status"] == "trained"
    assert records["XGBoost"]["params"] == params["XGBoost"]
    assert "params" not in records["LogisticRegression"]  # no tuned params for it
    assert records["XGBoost"]["best_iteration"] < 40  # the tuned tree count bounds early stopping
    # The estimator the child process fitted carries the tuned depth: load it from the artifact when
    # XGBoost won, else train XGBoost alone.
    if result["winner"]["algorithm"] != "XGBoost":
        result, blob = train_with_artifact(
            frame, "credit", options={"algorithms": ["XGBoost"], "params": params, "shap_rows": 50}
        )
    assert blob is not None
    model = load_artifact(blob, result["artifact"]["sha256"])
    assert model.algorithm == "XGBoost"
    assert model.pipeline.named_steps["model"].get_params()["max_depth"] == 2

    with pytest.raises(ValueError, match="params for unknown algorithm"):
        train_with_artifact(frame, "credit", options={"algorithms": ["XGBoost"], "params": {"Nope": {}}})
    with pytest.raises(ValueError, match="option params"):
        train_with_artifact(frame, "credit", options={"params": {"XGBoost": 3}})
