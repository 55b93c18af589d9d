"""The ONNX fast path (lab.models.onnx_export): the converted graph scores as the lab does.

For every supported algorithm: fit the lab's own preprocessing and the roster's estimator on
German credit (classification, 13 categorical + 7 numeric columns, the real fixture file) and on
a 3,000-row sample of California housing (regression, with its text column ocean_proximity),
convert, run the graph with onnxruntime on the whole validation split (plus gaps and an unseen
category put into it) and compare with TrainedModel: probabilities to 1e-5 absolute, values to
1e-5 relative.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from lakehouse_support import require_modules

require_modules(
    "sklearn", "xgboost", "lightgbm", "onnx", "onnxruntime", "skl2onnx", "onnxmltools", extra="ml"
)

from sklearn.pipeline import Pipeline  # noqa: E402

from lab.models import competition as comp  # noqa: E402
from lab.models.artifacts import TrainedModel  # noqa: E402
from lab.models.onnx_export import export, onnx_record, run  # noqa: E402
from lab.models.preprocess import build_preprocessor  # noqa: E402
from lab.models.roster import Params, fit, roster  # noqa: E402
from lab.models.run import train_with_artifact  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
GERMAN = ROOT / "fixtures" / "ml" / "german_credit.csv"
CALIFORNIA = ROOT / ".." / "shared" / "data" / "ml" / "regression" / "california_housing.csv"
CLASSIFIERS = [
    "XGBoost",
    "LightGBM",
    "CatBoost",
    "RandomForest",
    "ExtraTrees",
    "GradientBoosting",
    "LogisticRegression",
]
REGRESSORS = [
    "XGBoost",
    "LightGBM",
    "CatBoost",
    "RandomForest",
    "ExtraTrees",
    "GradientBoosting",
    "Ridge",
    "Lasso",
    "ElasticNet",
]
TREES = 40  # enough trees for real depth and early stopping, few enough for a 2-core machine


def german_credit() -> pd.DataFrame:
    frame = pd.read_csv(GERMAN, header=None)
    frame.columns = [f"a{i}" for i in range(1, 21)] + ["credit"]
    # Gaps in the training rows too, so the imputers learn missing indicators.
    frame.loc[[3, 40, 77], "a2"] = np.nan
    frame.loc[[5, 50], "a1"] = None
    return frame


def california() -> pd.DataFrame:
    if not CALIFORNIA.exists():
        pytest.skip(f"real data {CALIFORNIA} is missing (the shared data set)")
    frame = pd.read_csv(CALIFORNIA).sample(3000, random_state=7).reset_index(drop=True)
    frame.loc[[2, 9], "total_bedrooms"] = np.nan
    return frame


def fitted(
    frame: pd.DataFrame, target: str, problem_type: str, name: str
) -> tuple[TrainedModel, pd.DataFrame]:
    """The lab's pipeline for one algorithm, fitted as a training run fits it; the validation rows."""
    prep = comp.prepare(frame, target, None, problem_type)
    train_pos, val_pos = comp.split_positions(prep.y, prep.problem_type, 42)
    x = prep.frame[prep.features]
    preprocessor = build_preprocessor(prep.kinds).fit(x.iloc[train_pos])
    algo = next(a for a in roster(prep.problem_type) if a.name == name)
    k = len(prep.classes) if prep.classes else None
    estimator = algo.build(
        Params(seed=42, n_jobs=2, n_estimators=TREES, class_weight=algo.class_weight, n_classes=k)
    )
    fit(algo, estimator, preprocessor.transform(x.iloc[train_pos]), prep.y[train_pos], 42)
    model = TrainedModel(
        Pipeline([("preprocess", preprocessor), ("model", estimator)]),
        prep.problem_type,
        target,
        prep.features,
        prep.classes,
        name,
    )
    return model, x.iloc[val_pos].reset_index(drop=True)


def with_gaps(val: pd.DataFrame, categorical: list[str], numeric: list[str]) -> pd.DataFrame:
    """The validation rows with a missing value in every column kind and an unseen category."""
    val = val.copy()
    for c in categorical:
        val[c] = val[c].astype(object)
    val.loc[0, categorical[0]] = "NEVER-SEEN"
    val.loc[1, categorical[0]] = None
    val.loc[2, numeric[0]] = np.nan
    val.loc[3, numeric[-1]] = np.nan
    val.loc[4, categorical[-1]] = ""  # the empty string is a category of its own (unseen here)
    return val


@pytest.fixture(scope="module")
def german() -> pd.DataFrame:
    return german_credit()


@pytest.mark.parametrize("name", CLASSIFIERS)
def test_classifier_probabilities_match_on_german_credit(german: pd.DataFrame, name: str) -> None:
    model, val = fitted(german, "credit", "classification", name)
    val = with_gaps(val, ["a1", "a4"], ["a2", "a5"])
    result = export(model, val)
    assert result.onnx is not None, result.reason
    got = run(result.onnx, result.inputs, val)
    want = model.predict_proba(val)
    assert got.shape == want.shape == (200, 2)
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-5)
    # The contract: one input per feature, strings for categoricals, doubles for numbers.
    kinds = {i["name"]: i["type"] for i in result.inputs}
    assert list(kinds) == model.features
    assert kinds["a1"] == "string" and kinds["a2"] == "float64"
    assert result.outputs == [{"name": "probabilities", "type": "float64", "shape": [None, 2]}]


@pytest.mark.parametrize("name", REGRESSORS)
def test_regressor_values_match_on_california_housing(name: str) -> None:
    model, val = fitted(california(), "median_house_value", "regression", name)
    val = with_gaps(val, ["ocean_proximity"], ["longitude", "total_bedrooms"])
    result = export(model, val)
    assert result.onnx is not None, result.reason
    got = run(result.onnx, result.inputs, val)
    want = model.predict(val)
    assert got.shape == want.shape == (600,)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=0)
    assert {i["name"]: i["type"] for i in result.inputs}["ocean_proximity"] == "string"


def test_unsupported_algorithms_are_refused_with_the_reason(german: pd.DataFrame, tmp_path: Path) -> None:
    model, val = fitted(german, "credit", "classification", "LogisticRegression")
    model.algorithm = "SVC"
    result = export(model, val)
    assert result.onnx is None and "SVC has no ONNX fast path" in (result.reason or "")
    record = onnx_record(model, val, str(tmp_path))
    assert record["status"] == "unsupported" and "SVC" in record["reason"]
    assert list(tmp_path.iterdir()) == []
    # A run that stores no artifact does not convert at all.
    model.algorithm = "LogisticRegression"
    assert onnx_record(model, val, None)["status"] == "skipped"


def test_a_conversion_past_its_time_bound_is_refused(german: pd.DataFrame) -> None:
    model, val = fitted(german, "credit", "classification", "RandomForest")
    result = export(model, val, timeout_s=0.001)
    assert result.onnx is None and "longer than" in (result.reason or "")


def test_an_ensemble_past_the_node_bound_is_refused_before_converting(
    german: pd.DataFrame, monkeypatch: pytest.MonkeyPatch
) -> None:
    import lab.models.onnx_export as onnx_export

    model, val = fitted(german, "credit", "classification", "ExtraTrees")
    monkeypatch.setattr(onnx_export, "MAX_TREE_NODES", 1000)
    result = export(model, val)
    assert result.onnx is None and "tree nodes exceed" in (result.reason or "")


def test_a_model_that_would_score_differently_is_never_exported(
    german: pd.DataFrame, monkeypatch: pytest.MonkeyPatch
) -> None:
    from onnx import numpy_helper

    import lab.models.onnx_export as onnx_export

    model, val = fitted(german, "credit", "classification", "LogisticRegression")
    real = onnx_export.preprocess_graph

    def off_by_a_bit(*args, **kwargs):  # a graph-building bug: one scaler mean shifted by 0.01
        nodes, inits, inputs, width = real(*args, **kwargs)
        i = next(k for k, t in enumerate(inits) if t.name.endswith("_mean"))
        inits[i] = numpy_helper.from_array(numpy_helper.to_array(inits[i]) + 0.01, inits[i].name)
        return nodes, inits, inputs, width

    monkeypatch.setattr(onnx_export, "preprocess_graph", off_by_a_bit)
    result = export(model, val)
    assert result.onnx is None and "differs from the model" in (result.reason or "")


def test_a_training_run_writes_the_onnx_beside_the_artifact(german: pd.DataFrame, tmp_path: Path) -> None:
    options = {"algorithms": ["LogisticRegression"], "n_estimators": 20, "shap_rows": 50, "timeout_s": 120}
    result, blob = train_with_artifact(german, "credit", options={**options, "artifact_dir": str(tmp_path)})
    json.dumps(result)
    record = result["artifact"]["onnx"]
    assert record["status"] == "converted", record
    path = Path(record["path"])
    assert path.parent == Path(result["artifact"]["path"]).parent == tmp_path
    assert path.name == f"{record['sha256']}.onnx"
    assert [i["name"] for i in record["inputs"]] == result["features"]
    assert record["outputs"][0]["name"] == "probabilities"
    import hashlib

    assert hashlib.sha256(path.read_bytes()).hexdigest() == record["sha256"]
    assert blob is not None


@pytest.fixture
def s3_prefix(s3_url: str, monkeypatch: pytest.MonkeyPatch) -> str:
    """CAIRN_S3_* from the test store's URL (as test_models_artifacts_s3.py); a fresh prefix."""
    import uuid
    from urllib.parse import urlsplit

    u = urlsplit(s3_url)
    monkeypatch.setenv("CAIRN_S3_ENDPOINT", f"{u.scheme}://{u.hostname}:{u.port}")
    monkeypatch.setenv("CAIRN_S3_ACCESS_KEY_ID", u.username or "")
    monkeypatch.setenv("CAIRN_S3_SECRET_ACCESS_KEY", u.password or "")
    return f"s3://{u.path.strip('/')}/t{uuid.uuid4().hex[:8]}/models/tenant-a"


def test_the_onnx_goes_to_the_s3_object_store_beside_the_artifact(
    german: pd.DataFrame, s3_prefix: str
) -> None:
    import hashlib

    from lab.models.artifacts import read_artifact_bytes

    model, val = fitted(german, "credit", "classification", "GradientBoosting")
    record = onnx_record(model, val, s3_prefix)
    assert record["status"] == "converted", record
    assert record["path"] == f"{s3_prefix}/{record['sha256']}.onnx"
    stored = read_artifact_bytes(record["path"])
    assert hashlib.sha256(stored).hexdigest() == record["sha256"] and len(stored) == record["bytes"]
    np.testing.assert_allclose(
        run(stored, record["inputs"], val), model.predict_proba(val), rtol=0, atol=1e-5
    )
