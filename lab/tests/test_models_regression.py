"""The regression competition: California housing (20,640 rows, a categorical column, missing
values; SVR skipped above 10,000 rows) and the diabetes set scikit-learn ships (the full roster,
SVR included), plus auto-detection and the input errors that must stop a run before it starts.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from lakehouse_support import require_modules

require_modules("sklearn", "xgboost", "lightgbm", "catboost", "imblearn", "shap", extra="ml")

from sklearn.datasets import load_diabetes  # noqa: E402

from lab.models import competition as comp  # noqa: E402
from lab.models.artifacts import load_artifact  # noqa: E402
from lab.models.competition import detect_problem_type  # noqa: E402
from lab.models.run import train, train_with_artifact  # noqa: E402

ML_DATA = Path(__file__).resolve().parents[2] / ".." / "shared" / "data" / "ml"
FAST = {"n_estimators": 60, "parallel": 2, "timeout_s": 120, "shap_rows": 100, "shap_budget_s": 15}


def ml_file(rel: str) -> Path:
    path = ML_DATA / rel
    if not path.exists():
        why = f"real data {path} is missing (the shared data set: ../shared/data/ml)"
        if os.environ.get("CI"):
            pytest.fail(f"{why}: the model suites must run under CI", pytrace=False)
        pytest.skip(why)
    return path


def test_california_housing_is_regression_with_svr_skipped_and_the_pipeline_saved() -> None:
    frame = pd.read_csv(ml_file("regression/california_housing.csv"))
    assert frame["total_bedrooms"].isna().sum() == 207
    result, blob = train_with_artifact(
        frame,
        "median_house_value",
        # Seed 42 happens to put all 207 gaps in the validation split; seed 1 spreads them.
        options={**FAST, "seed": 1, "algorithms": ["LightGBM", "Ridge", "SVR"]},
    )
    assert result["problem_type"] == "regression" and result["problem_type_detected"] is True
    assert result["imbalance_ratio"] is None and result["smote_applied"] is False
    assert result["class_weight_applied"] is False
    assert result["feature_kinds"]["categorical"] == ["ocean_proximity"]
    assert result["split"] == {
        "train": 16512,
        "validation": 4128,
        "stratified": False,
        "seed": 1,
        "train_after_smote": None,
        "class_counts": None,
    }
    records = {r["algorithm"]: r for r in result["algorithms"]}
    assert records["SVR"]["status"] == "skipped"
    assert records["SVR"]["reason"] == "SVR runs only on 10,000 rows or fewer; this table has 20,640"
    assert records["SVR"]["shap"]["status"] == "skipped"
    for name in ("LightGBM", "Ridge"):
        m = records[name]["metrics"]
        assert records[name]["status"] == "trained"
        assert set(m) == {"mae", "rmse", "r2"} and 0 < m["mae"] < m["rmse"] and 0.5 < m["r2"] < 1
    assert records["LightGBM"]["metrics"]["mae"] < records["Ridge"]["metrics"]["mae"]
    assert result["winner"]["algorithm"] == "LightGBM" and result["winner"]["metric"] == "mae"
    assert records["Ridge"]["shap"]["explainer"] == "linear"
    shap_features = [v["feature"] for v in records["LightGBM"]["shap"]["values"]]
    assert len(shap_features) == 9 and "ocean_proximity" in shap_features and "median_income" in shap_features
    # The saved pipeline imputes and encodes raw rows, gaps and unseen categories included.
    model = load_artifact(blob, result["artifact"]["sha256"])
    rows = frame.iloc[result["validation_sample"]["rows"]]
    assert np.allclose(model.predict(rows), result["validation_sample"]["predictions"])
    odd = frame.iloc[:3].copy()
    odd.loc[odd.index[0], "total_bedrooms"] = np.nan
    odd.loc[odd.index[1], "ocean_proximity"] = "ON THE MOON"
    assert np.isfinite(model.predict(odd)).all()
    num = next(f for f in result["drift_baseline"]["features"] if f["feature"] == "total_bedrooms")
    prep = comp.prepare(frame, "median_house_value", None, None)
    train_pos, _ = comp.split_positions(prep.y, "regression", 1)
    gaps = frame["total_bedrooms"].iloc[train_pos].isna().mean()
    assert num["missing"] == pytest.approx(gaps, abs=1e-6) and 0 < gaps < 0.02 and len(num["deciles"]) == 9


def test_the_full_regression_roster_trains_on_a_small_set_svr_included() -> None:
    frame = load_diabetes(as_frame=True).frame  # 442 rows, 10 numeric features
    result = train(frame, "target", problem_type="regression", options=FAST)
    assert result["problem_type_detected"] is False
    records = {r["algorithm"]: r for r in result["algorithms"]}
    assert list(records) == [
        "XGBoost",
        "LightGBM",
        "CatBoost",
        "RandomForest",
        "ExtraTrees",
        "GradientBoosting",
        "Ridge",
        "Lasso",
        "ElasticNet",
        "SVR",
    ]
    for name, r in records.items():
        assert r["status"] == "trained", r
        assert r["metrics"]["mae"] > 0
        expected = (
            None if name == "SVR" else ("linear" if name in ("Ridge", "Lasso", "ElasticNet") else "tree")
        )
        assert r["shap"]["explainer"] == expected
        if expected is not None:
            assert r["shap"]["status"] == "computed" and len(r["shap"]["values"]) == 10
    best = min(r["metrics"]["mae"] for r in records.values())
    assert result["winner"]["value"] == best and result["metrics"]["mae"] == best


@pytest.mark.parametrize(
    ("values", "expected"),
    [
        (["yes", "no", "yes"], "classification"),
        ([True, False, True], "classification"),
        ([1, 2, 1, 2], "classification"),
        ([-1.0, 1.0, 1.0], "classification"),  # whole numbers as floats
        (list(range(20)) * 2, "classification"),  # 20 distinct whole numbers
        (list(range(21)) * 2, "regression"),  # 21
        ([0.5, 1.0, 2.0], "regression"),
        ([1.0, None, 3.5], "regression"),
    ],
)
def test_problem_type_auto_detection(values, expected) -> None:
    assert detect_problem_type(pd.Series(values)) == expected


def _frame() -> pd.DataFrame:
    rng = np.random.default_rng(0)
    return pd.DataFrame({"x": rng.normal(size=60), "c": ["a", "b", "c"] * 20, "y": [0, 1] * 30})


@pytest.mark.parametrize(
    ("change", "kwargs", "message"),
    [
        (None, {"target": "nope"}, "target column 'nope' is not in the table"),
        (lambda f: f.assign(y=1), {}, "has a single class"),
        (lambda f: f.assign(y=None), {}, "has no values"),
        (lambda f: f.assign(x=np.nan, c=None), {}, r"contain only nulls"),
        (lambda f: f.assign(x=np.nan), {"feature_columns": ["x"]}, r"'x' contain only nulls"),
        (None, {"feature_columns": ["x", "zz"]}, "not in the table"),
        (None, {"feature_columns": ["x", "y"]}, "cannot also be a feature"),
        (None, {"problem_type": "clustering"}, "problem_type must be"),
        (None, {"problem_type": "timeseries"}, "no date or timestamp column"),
        (lambda f: f.assign(y=["a", "b"] * 30), {"problem_type": "regression"}, "numeric target"),
        (lambda f: f.assign(y=[0] * 59 + [1]), {}, "single row"),
    ],
)
def test_input_errors_raise_before_any_work(change, kwargs, message) -> None:
    frame = _frame() if change is None else change(_frame())
    target = kwargs.pop("target", "y")
    with pytest.raises(ValueError, match=message):
        train(frame, target, **kwargs, options={"timeout_s": 1})


def test_free_text_detection_needs_many_distinct_values() -> None:
    frame = pd.DataFrame({"note": [f"text {i}" for i in range(150)], "y": [0, 1] * 75})
    with pytest.raises(ValueError, match="'note' hold free text"):
        train(frame, "y")


def test_mixed_column_types_go_through_the_one_pipeline() -> None:
    rng = np.random.default_rng(3)
    n = 300
    x = rng.normal(size=n)
    frame = pd.DataFrame(
        {
            "when": pd.date_range("2024-01-01", periods=n, freq="D", tz="Europe/Paris"),
            "flag": pd.array(rng.random(n) > 0.5, dtype="boolean"),
            "count": pd.array(rng.integers(0, 5, n), dtype="Int64"),
            "x": x,
            "colour": pd.Series(rng.choice(["red", "green", None], n), dtype="string"),
        }
    )
    frame.loc[::7, "count"] = pd.NA
    frame["y"] = 3 * x + frame["flag"].astype(float) + rng.normal(scale=0.1, size=n)
    result, blob = train_with_artifact(frame, "y", options={**FAST, "algorithms": ["Ridge"]})
    assert result["feature_kinds"] == {"numeric": ["when", "flag", "count", "x"], "categorical": ["colour"]}
    assert result["metrics"]["r2"] > 0.9
    model = load_artifact(blob)
    rows = frame.iloc[result["validation_sample"]["rows"]]
    assert np.allclose(model.predict(rows), result["validation_sample"]["predictions"])
    colour = next(f for f in result["drift_baseline"]["features"] if f["feature"] == "colour")
    assert colour["kind"] == "categorical" and 0.2 < colour["missing"] < 0.45


def test_check_request_runs_the_input_checks_without_training() -> None:
    from lab.models.run import check_request

    frame = _frame()
    seen = check_request(frame, "y")
    assert seen["problem_type"] == "classification" and seen["problem_type_detected"] is True
    assert seen["rows"] == 60 and seen["imbalance_ratio"] == 1.0 and seen["classes"] == [0, 1]
    assert seen["feature_kinds"] == {"numeric": ["x"], "categorical": ["c"]}
    with pytest.raises(ValueError, match="single class"):
        check_request(frame.assign(y=1), "y")
