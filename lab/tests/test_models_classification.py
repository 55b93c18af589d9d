"""The classification competition on real data (spec 4.9 rules 1-8).

German credit (1,000 rows, 700:300) gets class_weight='balanced' and the full roster with SVC;
mammography (11,183 rows, 42:1) gets SMOTE on its training split only and no SVC. The real
files live in ../shared/data/ml: missing files skip here and fail under CI=1.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from lakehouse_support import require_modules

require_modules("sklearn", "xgboost", "lightgbm", "catboost", "imblearn", "shap", extra="ml")

from sklearn.datasets import load_iris  # noqa: E402

from lab.models import competition as comp  # noqa: E402
from lab.models.artifacts import load_artifact  # noqa: E402
from lab.models.run import train_with_artifact  # noqa: E402

ML_DATA = Path(__file__).resolve().parents[2] / ".." / "shared" / "data" / "ml"
FAST = {"n_estimators": 60, "parallel": 2, "timeout_s": 120, "shap_rows": 200, "shap_budget_s": 20}
CLASS_WEIGHTED = {"LightGBM", "RandomForest", "ExtraTrees", "LogisticRegression", "SVC"}


def ml_file(rel: str) -> Path:
    path = ML_DATA / rel
    if not path.exists():
        why = f"real data {path} is missing (the shared data set: ../shared/data/ml)"
        if os.environ.get("CI"):
            pytest.fail(f"{why}: the model suites must run under CI", pytrace=False)
        pytest.skip(why)
    return path


def german_credit() -> pd.DataFrame:
    frame = pd.read_csv(ml_file("classification/german_credit.csv"), header=None)
    frame.columns = [f"a{i}" for i in range(1, 21)] + ["credit"]
    return frame


def mammography() -> pd.DataFrame:
    frame = pd.read_csv(ml_file("imbalanced/mammography.csv"), header=None)
    frame.columns = [f"m{i}" for i in range(1, 7)] + ["class"]
    return frame


@pytest.fixture(scope="module")
def german() -> tuple[pd.DataFrame, dict, bytes]:
    frame = german_credit()
    result, blob = train_with_artifact(frame, "credit", options=FAST)  # problem_type omitted
    json.dumps(result)  # the RunResult is JSON as it stands
    return frame, result, blob


def test_german_credit_is_detected_as_classification_and_weighted_balanced(german) -> None:
    _, result, _ = german
    assert result["problem_type"] == "classification" and result["problem_type_detected"] is True
    assert result["classes"] == [1, 2] and result["class_counts"] == {"1": 700, "2": 300}
    assert result["imbalance_ratio"] == pytest.approx(700 / 300, abs=1e-3)
    assert result["class_weight_applied"] is True  # 2.33:1 < 3:1
    assert result["smote_applied"] is False
    split = result["split"]
    assert (split["train"], split["validation"], split["stratified"]) == (800, 200, True)
    assert split["class_counts"]["validation"] == {"1": 140, "2": 60}  # stratified: 70/30 kept
    records = {r["algorithm"]: r for r in result["algorithms"]}
    assert list(records) == [
        "XGBoost",
        "LightGBM",
        "CatBoost",
        "RandomForest",
        "ExtraTrees",
        "GradientBoosting",
        "LogisticRegression",
        "SVC",
    ]
    for name, r in records.items():
        assert r["status"] == "trained", r
        assert r["class_weight"] is (name in CLASS_WEIGHTED), name
        m = r["metrics"]
        assert 0.6 < m["val_accuracy"] <= 1 and 0.5 < m["auc"] <= 1 and m["log_loss"] > 0
    for name in ("XGBoost", "LightGBM", "CatBoost"):  # early stopping recorded its best round
        assert isinstance(records[name]["best_iteration"], int)


def test_the_winner_has_the_highest_validation_accuracy(german) -> None:
    _, result, _ = german
    accuracies = {r["algorithm"]: r["metrics"]["val_accuracy"] for r in result["algorithms"]}
    best = max(accuracies.values())
    first_best = next(a for a, v in accuracies.items() if v == best)
    assert result["winner"] == {"algorithm": first_best, "metric": "val_accuracy", "value": best}
    assert result["metrics"]["val_accuracy"] == best
    importance = result["feature_importance"]
    assert {f["feature"] for f in importance} == {f"a{i}" for i in range(1, 21)}
    assert sum(f["importance"] for f in importance) == pytest.approx(1.0, abs=1e-4)
    shares = [f["importance"] for f in importance]
    assert shares == sorted(shares, reverse=True)


def test_shap_top_20_per_algorithm_with_the_spec_explainer_and_svc_skipped(german) -> None:
    _, result, _ = german
    records = {r["algorithm"]: r for r in result["algorithms"]}
    for name in ("XGBoost", "LightGBM", "CatBoost", "RandomForest", "ExtraTrees", "GradientBoosting"):
        assert records[name]["shap"]["explainer"] == "tree"
    assert records["LogisticRegression"]["shap"]["explainer"] == "linear"
    for name, r in records.items():
        shap = r["shap"]
        if name == "SVC":
            assert shap["status"] == "skipped" and shap["explainer"] is None
            assert "SVC" in shap["reason"]
            continue
        assert shap["status"] == "computed", (name, shap)
        assert 10 <= shap["rows"] <= 200
        values = shap["values"]
        assert len(values) == 20  # 20 features, each one-hot group summed back to its column
        assert {v["feature"] for v in values} == {f"a{i}" for i in range(1, 21)}
        means = [v["mean_abs_shap"] for v in values]
        assert means == sorted(means, reverse=True) and means[0] > 0
    assert result["shap"] == records[result["winner"]["algorithm"]]["shap"]


def test_the_artifact_round_trips_and_predicts_raw_rows_as_in_the_run(german, tmp_path) -> None:
    frame, result, blob = german
    art = result["artifact"]
    assert art["bytes"] == len(blob) and len(art["sha256"]) == 64
    model = load_artifact(blob, art["sha256"])
    sample = result["validation_sample"]
    assert len(sample["rows"]) == 20
    raw_rows = frame.iloc[sample["rows"]].drop(columns=["credit"])  # strings and ints, untransformed
    assert model.predict(raw_rows).tolist() == sample["predictions"]
    proba = model.predict_proba(raw_rows)
    assert proba.shape == (20, 2) and np.allclose(proba.sum(axis=1), 1.0)
    with pytest.raises(ValueError, match="hash mismatch"):
        load_artifact(blob, "0" * 64)
    from lab.models.artifacts import write_artifact

    path = write_artifact(blob, tmp_path)
    assert Path(path).name == f"{art['sha256']}.joblib"
    again = load_artifact(path, art["sha256"])
    assert again.predict(raw_rows).tolist() == sample["predictions"]


def test_drift_baseline_is_the_training_split_deciles(german) -> None:
    frame, result, _ = german
    baseline = result["drift_baseline"]
    assert baseline["rows"] == 800 and baseline["computed_on"] == "training split before SMOTE"
    prep = comp.prepare(frame, "credit", None, None)
    train_pos, _ = comp.split_positions(prep.y, "classification", 42)
    by_feature = {f["feature"]: f for f in baseline["features"]}
    assert list(by_feature) == [f"a{i}" for i in range(1, 21)]
    amount = by_feature["a5"]  # credit amount, numeric
    expected = np.quantile(frame["a5"].to_numpy()[train_pos], np.linspace(0.1, 0.9, 9))
    assert amount["kind"] == "numeric" and np.allclose(amount["deciles"], expected)
    assert sum(amount["bin_fractions"]) == pytest.approx(1.0)
    purpose = by_feature["a4"]  # A40..A410 codes, categorical
    counts = frame["a4"].iloc[train_pos].value_counts(normalize=True)
    assert purpose["kind"] == "categorical"
    assert purpose["frequencies"]["A43"] == pytest.approx(counts["A43"], abs=1e-6)


def test_mammography_42_to_1_gets_smote_on_the_training_split_only() -> None:
    frame = mammography()
    result, _ = train_with_artifact(
        frame, "class", options={**FAST, "algorithms": ["LightGBM", "LogisticRegression", "SVC"]}
    )
    assert result["classes"] == ["'-1'", "'1'"]
    assert result["imbalance_ratio"] == pytest.approx(10923 / 260, abs=1e-3)
    assert result["smote_applied"] is True and result["class_weight_applied"] is False
    split = result["split"]
    counts = split["class_counts"]
    assert split["train"] + split["validation"] == 11183
    assert counts["validation"] == {"'-1'": 2185, "'1'": 52}  # the original 42:1, untouched
    assert counts["train"] == {"'-1'": 8738, "'1'": 208}
    assert counts["train_after_smote"] == {"'-1'": 8738, "'1'": 8738}
    assert split["train_after_smote"] == 2 * 8738
    # The drift baseline saw the 8,946 real training rows, not the SMOTE ones.
    baseline = result["drift_baseline"]
    assert baseline["rows"] == 8946
    prep = comp.prepare(frame, "class", None, None)
    train_pos, _ = comp.split_positions(prep.y, "classification", 42)
    m1 = next(f for f in baseline["features"] if f["feature"] == "m1")
    assert np.allclose(
        m1["deciles"], np.quantile(frame["m1"].to_numpy()[train_pos], np.linspace(0.1, 0.9, 9))
    )
    records = {r["algorithm"]: r for r in result["algorithms"]}
    assert records["SVC"]["status"] == "skipped"
    assert records["SVC"]["reason"] == "SVC runs only on 5,000 rows or fewer; this table has 11,183"
    assert records["LightGBM"]["status"] == "trained" and records["LogisticRegression"]["status"] == "trained"
    assert records["LightGBM"]["class_weight"] is False


def test_multiclass_iris_trains_the_roster_and_scores_auc_one_vs_rest() -> None:
    frame = load_iris(as_frame=True).frame
    frame["species"] = frame.pop("target").map({0: "setosa", 1: "versicolor", 2: "virginica"})
    result, blob = train_with_artifact(
        frame,
        "species",
        options={
            **FAST,
            "algorithms": ["XGBoost", "CatBoost", "GradientBoosting", "LogisticRegression", "SVC"],
        },
    )
    assert result["problem_type"] == "classification" and result["imbalance_ratio"] == 1.0
    for r in result["algorithms"]:
        assert r["status"] == "trained", r
        assert r["metrics"]["val_accuracy"] > 0.8 and r["metrics"]["auc"] > 0.9
        if r["algorithm"] == "GradientBoosting":  # shap's tree explainer reads binary GB only
            assert r["shap"]["status"] == "failed" and "binary" in r["shap"]["reason"]
        elif r["algorithm"] != "SVC":
            assert r["shap"]["status"] == "computed" and len(r["shap"]["values"]) == 4
    model = load_artifact(blob)
    rows = frame.iloc[result["validation_sample"]["rows"]]
    assert model.predict(rows).tolist() == result["validation_sample"]["predictions"]
    assert set(result["validation_sample"]["predictions"]) <= {"setosa", "versicolor", "virginica"}
