"""Time-series and anomaly runs through ``lab.models.run`` (the job handler's entry point): the
dispatch by problem type, the RunResult envelope of classification/regression (per-algorithm
records with SHAP skipped and why, winner, metrics, drift baseline, progress), the pre-run checks,
and artifacts that forecast / score after a round trip through their bytes and hash."""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any

import pytest
from lakehouse_support import require_modules

require_modules("pandas", "numpy", "sklearn", "statsmodels", "prophet", extra="ml")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from lab.models.artifacts import load_artifact  # noqa: E402
from lab.models.run import check_request, train_with_artifact  # noqa: E402
from lab.models.series_artifacts import AnomalyModel, ForecastModel  # noqa: E402

DATA = Path(__file__).resolve().parents[2] / ".." / "shared" / "data" / "ml"
TAXI_KEY = "realKnownCause/nyc_taxi.csv"


def data_file(relative: str) -> Path:
    path = DATA / relative
    if path.exists():
        return path
    if os.environ.get("CI"):
        pytest.fail(f"{path} is missing: the real-data model suites must run under CI", pytrace=False)
    pytest.skip(f"{path} is missing (the shared data sets are not laid out here)")


@pytest.fixture(scope="module")
def airline() -> pd.DataFrame:
    """As an Iceberg table arrives: a date column (Python dates) and a numeric series."""
    raw = pd.read_csv(data_file("timeseries/airline_passengers_monthly.csv"))
    return pd.DataFrame({"month": pd.to_datetime(raw["Month"]).dt.date, "passengers": raw["Passengers"]})


@pytest.fixture(scope="module")
def taxi() -> pd.DataFrame:
    """NAB taxi with a 0/1 label per row from the NAB windows (the e2e fixture's table)."""
    raw = pd.read_csv(data_file("anomaly/nab_nyc_taxi.csv"))
    ts = pd.to_datetime(raw["timestamp"])
    windows = json.loads(data_file("anomaly/nab_combined_windows.json").read_text())[TAXI_KEY]
    label = np.zeros(len(raw), dtype=np.int64)
    for lo, hi in windows:
        label[((ts >= pd.Timestamp(lo)) & (ts <= pd.Timestamp(hi))).to_numpy()] = 1
    return pd.DataFrame({"timestamp": ts, "value": raw["value"].astype(float), "is_anomaly": label})


@pytest.fixture(scope="module")
def airline_run(airline: pd.DataFrame, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    reports: list[dict[str, Any]] = []
    out = tmp_path_factory.mktemp("artifacts")
    result, blob = train_with_artifact(
        airline, "passengers", None, "timeseries", {"progress": reports.append, "artifact_dir": str(out)}
    )
    return {"result": result, "blob": blob, "reports": reports}


@pytest.fixture(scope="module")
def taxi_run(taxi: pd.DataFrame) -> dict[str, Any]:
    reports: list[dict[str, Any]] = []
    result, blob = train_with_artifact(
        taxi, "value", None, "anomaly", {"progress": reports.append}, label_column="is_anomaly"
    )
    return {"result": result, "blob": blob, "reports": reports}


def test_timeseries_dispatch_gives_the_run_envelope(airline_run: dict[str, Any]) -> None:
    r = airline_run["result"]
    json.dumps(r)  # the job result is JSON
    assert r["status"] == "succeeded" and r["problem_type"] == "timeseries" and r["reason"] is None
    assert (r["time_column"], r["frequency"], r["horizon"]) == ("month", "MS", 29)
    assert r["features"] == ["month"] and r["target"] == "passengers" and r["rows"] == 144
    records = {x["algorithm"]: x for x in r["algorithms"]}
    assert set(records) == {"Prophet", "ARIMA"}
    for rec in records.values():
        assert rec["status"] == "trained", rec
        assert set(rec["metrics"]) >= {"mae", "rmse", "mase"} and rec["seconds"] > 0
        assert rec["shap"] == {
            "status": "skipped",
            "explainer": None,
            "rows": 0,
            "reason": "SHAP does not apply to a univariate forecast",
            "values": [],
        }
    best = min(records.values(), key=lambda x: x["metrics"]["mae"])
    assert r["winner"] == {"algorithm": best["algorithm"], "metric": "mae", "value": best["metrics"]["mae"]}
    assert r["metrics"] == best["metrics"] and r["criterion"] == {"metric": "mae", "higher_is_better": False}
    assert r["shap"]["status"] == "skipped"
    # Drift baseline: the target's deciles over the series.
    [feature] = r["drift_baseline"]["features"]
    assert feature["feature"] == "passengers" and len(feature["deciles"]) == 9
    assert 104 <= feature["deciles"][0] < feature["deciles"][-1] <= 622
    # Progress: the start, then one report per algorithm with its record.
    reports = airline_run["reports"]
    assert [(p["done"], p["total"]) for p in reports] == [(0, 2), (1, 2), (2, 2)]
    assert reports[-1]["record"]["algorithm"] in records


def test_the_forecast_artifact_continues_the_series(airline_run: dict[str, Any]) -> None:
    r, blob = airline_run["result"], airline_run["blob"]
    art = r["artifact"]
    assert Path(art["path"]).read_bytes() == blob
    model = load_artifact(art["path"], art["sha256"])
    assert isinstance(model, ForecastModel) and model.algorithm == r["winner"]["algorithm"]
    assert (model.freq, model.points, model.target, model.time_column) == ("MS", 144, "passengers", "month")
    assert model.last_timestamp.startswith("1960-12-01")
    forecast = model.forecast(12)
    # Refitted on all 144 months: 1961 follows 1960 (390..622), with July/August the summer peak.
    assert list(forecast["ds"].dt.strftime("%Y-%m")) == [f"1961-{m:02d}" for m in range(1, 13)]
    values = forecast["yhat"].to_numpy()
    assert np.all(np.isfinite(values)) and values.min() > 380 and values.max() < 800
    assert values[6:8].max() == values.max()
    with pytest.raises(ValueError, match="positive integer"):
        model.forecast(0)


def test_anomaly_dispatch_scores_all_three_and_prefers_isolation_forest(taxi_run: dict[str, Any]) -> None:
    r = taxi_run["result"]
    json.dumps(r)
    assert r["status"] == "succeeded" and r["problem_type"] == "anomaly"
    assert r["inference_algorithm"] == "IsolationForest" == r["winner"]["algorithm"]
    assert r["winner"]["preferred"] is True
    assert (r["time_column"], r["label_column"]) == ("timestamp", "is_anomaly")
    # The label is never a feature; the time column gives the derived series features.
    assert r["features"] == ["value", "value_vs_slot", "value_vs_rolling"]
    assert r["labels"] == {"labelled_rows": 1035, "windows": 5}
    records = {x["algorithm"]: x for x in r["algorithms"]}
    assert list(records) == ["IsolationForest", "LOF", "OneClassSVM"]
    for rec in records.values():
        assert rec["status"] == "trained", rec
        m = rec["metrics"]
        assert m["flagged"] == 516 and 0 <= m["precision"] <= 1 and 0 <= m["recall"] <= 1
        assert rec["shap"]["reason"] == "anomaly models are skipped by spec 2.8"
    # Well above the ~0.10 precision of flagging 5% at random (the windows hold 10% of the rows).
    assert r["metrics"]["precision"] > 0.4 and r["metrics"]["windows_detected"] >= 4
    assert r["metrics"] == records["IsolationForest"]["metrics"]
    baseline = {f["feature"]: f for f in r["drift_baseline"]["features"]}
    assert set(baseline) == set(r["features"]) and len(baseline["value"]["deciles"]) == 9
    assert [p["done"] for p in taxi_run["reports"]] == [0, 1, 2, 3]


def test_the_anomaly_artifact_scores_new_rows_like_the_run(
    taxi: pd.DataFrame, taxi_run: dict[str, Any]
) -> None:
    r = taxi_run["result"]
    model = load_artifact(taxi_run["blob"], r["artifact"]["sha256"])
    assert isinstance(model, AnomalyModel) and model.algorithm == "IsolationForest"
    assert model.inputs == ["value"] and model.time_column == "timestamp"
    flags = model.flag(taxi)
    assert int(flags.sum()) == r["metrics"]["flagged"]
    # Rows in another order get the same flags, row for row (the derived features sort by time).
    shuffled = taxi.sample(frac=1.0, random_state=5)
    assert np.array_equal(model.flag(shuffled), flags[shuffled.index.to_numpy()])
    with pytest.raises(ValueError, match="timestamp"):
        model.score(taxi[["value"]])


def test_without_a_time_column_anomaly_scores_the_numeric_columns() -> None:
    rng = np.random.default_rng(3)
    frame = pd.DataFrame({"x": rng.normal(size=300), "y": rng.normal(size=300), "name": ["a"] * 300})
    frame.loc[:4, ["x", "y"]] = 8.0  # five far-out rows
    result, blob = train_with_artifact(frame, "x", None, "anomaly", {"algorithms": ["IsolationForest"]})
    assert result["features"] == ["x", "y"] and result["features_left_out"] == ["name"]
    assert [a["algorithm"] for a in result["algorithms"]] == ["IsolationForest"]
    model = load_artifact(blob)
    assert model.flag(frame)[:5].all()


def test_checks_refuse_what_cannot_train(airline: pd.DataFrame, taxi: pd.DataFrame) -> None:
    def refused(frame: pd.DataFrame, target: str, features: list[str] | None, ptype: str, **kw: Any) -> str:
        with pytest.raises(ValueError) as e:
            check_request(frame, target, features, ptype, **kw)
        return str(e.value)

    info = check_request(airline, "passengers", None, "timeseries")
    assert (info["time_column"], info["points"], info["horizon"]) == ("month", 144, 29)
    no_time = airline.assign(month=airline["month"].astype(str).str.replace("-", "/x"))
    assert "no date or timestamp column" in refused(no_time, "passengers", None, "timeseries")
    two = airline.assign(opened=pd.to_datetime(airline["month"]))
    msg = refused(two, "passengers", None, "timeseries")
    assert "several" in msg and "'month'" in msg and "'opened'" in msg
    # Naming the time column settles it; a string column of dates is parsed.
    assert check_request(two, "passengers", ["opened"], "timeseries")["time_column"] == "opened"
    as_text = airline.assign(month=airline["month"].astype(str))
    assert check_request(as_text, "passengers", ["month"], "timeseries")["frequency"] == "MS"
    named = airline.assign(carrier="PAA")
    assert "holds neither dates nor timestamps" in refused(named, "passengers", ["carrier"], "timeseries")
    assert "only its time column" in refused(two, "passengers", ["month", "opened"], "timeseries")
    assert "'carrier' is not numeric" in refused(named, "carrier", None, "timeseries")
    assert "at least 10 points" in refused(airline.iloc[:9], "passengers", None, "timeseries")

    assert "'carrier' is not numeric" in refused(named, "carrier", None, "anomaly")
    assert "label column 'is_anomaly'" in refused(
        taxi, "value", ["is_anomaly"], "anomaly", label_column="is_anomaly"
    )
    assert "not in the table" in refused(taxi, "value", None, "anomaly", label_column="nope")
    assert "at least 10 rows" in refused(taxi.iloc[:5], "value", None, "anomaly")
    assert math.isfinite(check_request(taxi, "value", None, "anomaly")["rows"])
