"""Spec 4.9 training rules 1-8 for classification and regression.

The parent prepares the data once (checks, problem type, split, preprocessing, SMOTE, drift
baseline) and writes the transformed arrays to a run directory; each algorithm then trains in
its own process (``runner``) through :func:`train_one`, which writes its metrics, its fitted
estimator and its SHAP values next to them. See docs/foundry-models.md.
"""

from __future__ import annotations

import json
import math
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from sklearn.model_selection import train_test_split

from lab.models.preprocess import (
    ColumnKinds,
    _to_float,
    aggregate,
    build_preprocessor,
    classify_columns,
    output_groups,
)
from lab.models.roster import Algorithm, Params, best_iteration, fit

VALIDATION_SHARE = 0.2
SMOTE_ABOVE = 10.0  # imbalance ratio above which SMOTE oversamples the training split
CLASS_WEIGHT_BELOW = 3.0  # imbalance ratio below which class_weight='balanced' applies
AUTO_MAX_CLASSES = 20  # a whole-number target with at most this many values is a class label
SHAP_TOP = 20
SHAP_MAX_ROWS = 500
PROBLEM_TYPES = ("classification", "regression")

AUTO_RULE = (
    "classification when the target is text, boolean or categorical, or numeric with only whole-number "
    f"values and at most {AUTO_MAX_CLASSES} distinct values; regression otherwise"
)


# -- rule 2: the problem type --------------------------------------------------------------------


def detect_problem_type(target: pd.Series) -> str:
    """Classification or regression by :data:`AUTO_RULE` (nulls ignored)."""
    s = target.dropna()
    if pd.api.types.is_bool_dtype(s) or not pd.api.types.is_numeric_dtype(s):
        return "classification"
    values = s.to_numpy(dtype=np.float64)
    whole = bool(np.all(np.isfinite(values)) and np.all(np.floor(values) == values))
    return "classification" if whole and s.nunique() <= AUTO_MAX_CLASSES else "regression"


# -- checks and the prepared data --------------------------------------------------------------


@dataclass
class Prepared:
    problem_type: str
    detected: bool
    target: str
    features: list[str]
    kinds: ColumnKinds
    frame: pd.DataFrame  # rows with a target, 0..n-1 index
    y: np.ndarray  # encoded: class indices, or floats
    classes: list[Any] | None
    class_counts: dict[str, int] | None
    imbalance_ratio: float | None
    dropped_null_target: int


def _native(value: Any) -> Any:
    return value.item() if isinstance(value, np.generic) else value


def prepare(
    frame: pd.DataFrame, target: str, feature_columns: list[str] | None, problem_type: str | None
) -> Prepared:
    """Checks the request against the table; ValueError with a clear message when it cannot train."""
    if not isinstance(target, str) or not target:
        raise ValueError("target_column is required")
    if target not in frame.columns:
        cols = ", ".join(repr(c) for c in list(frame.columns)[:20])
        raise ValueError(f"target column {target!r} is not in the table (columns: {cols})")
    features = list(feature_columns or [c for c in frame.columns if c != target])
    if target in features:
        raise ValueError(f"target column {target!r} cannot also be a feature")
    unknown = [c for c in features if c not in frame.columns]
    if unknown:
        raise ValueError(f"feature column(s) {unknown[:10]} are not in the table")
    if len(set(features)) != len(features):
        raise ValueError("feature_columns lists a column twice")
    if not features:
        raise ValueError("the table has no feature column besides the target")
    if problem_type in (None, "", "auto"):
        ptype, detected = None, True
    elif problem_type in PROBLEM_TYPES:
        ptype, detected = problem_type, False
    elif problem_type in ("timeseries", "anomaly"):
        raise ValueError(
            f"problem_type {problem_type!r} is not trained by the classification/regression competition"
        )
    else:
        raise ValueError(
            "problem_type must be classification, regression, timeseries, anomaly or auto, "
            f"not {problem_type!r}"
        )

    has_target = frame[target].notna()
    dropped = int((~has_target).sum())
    frame = frame.loc[has_target, [*features, target]].reset_index(drop=True)
    if len(frame) == 0:
        raise ValueError(f"target column {target!r} has no values")
    if ptype is None:
        ptype = detect_problem_type(frame[target])
    kinds = classify_columns(frame, features)

    if ptype == "classification":
        labels = frame[target]
        codes, uniques = pd.factorize(labels, sort=True)
        classes = [_native(v) for v in uniques]
        counts = np.bincount(codes, minlength=len(classes))
        if len(classes) < 2:
            raise ValueError(
                f"target column {target!r} has a single class ({classes[0]!r}); a classifier needs two"
            )
        if counts.min() < 2:
            rare = [classes[i] for i in np.flatnonzero(counts < 2)][:10]
            raise ValueError(
                f"class(es) {rare} of {target!r} have a single row; "
                "the stratified split needs two rows per class"
            )
        n_val = math.ceil(VALIDATION_SHARE * len(frame))
        if n_val < len(classes) or len(frame) - n_val < len(classes):
            raise ValueError(
                f"{len(frame)} rows are too few for a stratified 80/20 split of {len(classes)} classes"
            )
        return Prepared(
            problem_type=ptype,
            detected=detected,
            target=target,
            features=features,
            kinds=kinds,
            frame=frame,
            y=codes.astype(np.int64),
            classes=classes,
            class_counts={str(c): int(n) for c, n in zip(classes, counts, strict=True)},
            imbalance_ratio=round(float(counts.max() / counts.min()), 4),
            dropped_null_target=dropped,
        )

    values = pd.to_numeric(frame[target], errors="coerce")
    if values.isna().any() or pd.api.types.is_bool_dtype(frame[target]):
        raise ValueError(f"regression needs a numeric target; {target!r} holds non-numeric values")
    if len(frame) < 10:
        raise ValueError(f"{len(frame)} rows are too few to train and validate a regression")
    return Prepared(
        problem_type=ptype,
        detected=detected,
        target=target,
        features=features,
        kinds=kinds,
        frame=frame,
        y=values.to_numpy(dtype=np.float64),
        classes=None,
        class_counts=None,
        imbalance_ratio=None,
        dropped_null_target=dropped,
    )


# -- rule 4: the split ---------------------------------------------------------------------------


def split_positions(y: np.ndarray, problem_type: str, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Row positions of the 80/20 split: stratified for classification, seeded for both."""
    positions = np.arange(len(y))
    train, val = train_test_split(
        positions,
        test_size=VALIDATION_SHARE,
        random_state=seed,
        stratify=y if problem_type == "classification" else None,
    )
    return np.sort(train), np.sort(val)


# -- rule 8: the drift baseline ------------------------------------------------------------------


def drift_baseline(train: pd.DataFrame, kinds: ColumnKinds) -> dict[str, Any]:
    """Decile distributions of every feature on the training split (called before SMOTE)."""
    features: list[dict[str, Any]] = []
    n = len(train)
    for c in kinds.numeric:
        values = _to_float(train[[c]])[:, 0]
        present = values[~np.isnan(values)]
        edges = np.quantile(present, np.linspace(0.0, 1.0, 11)) if len(present) else np.array([])
        fractions = np.histogram(present, bins=edges)[0] / len(present) if len(present) else np.array([])
        features.append(
            {
                "feature": c,
                "kind": "numeric",
                "rows": n,
                "missing": round(float(1 - len(present) / n), 6) if n else 0.0,
                "deciles": [float(v) for v in edges[1:-1]],
                "bin_edges": [float(v) for v in edges],
                "bin_fractions": [round(float(v), 6) for v in fractions],
            }
        )
    for c in kinds.categorical:
        s = train[c]
        present = s.dropna().astype(str)
        freq = present.value_counts(normalize=True)
        top = freq.iloc[:32]
        entry: dict[str, float] = {str(k): round(float(v), 6) for k, v in top.items()}
        if len(freq) > 32:
            entry["__other__"] = round(float(freq.iloc[32:].sum()), 6)
        features.append(
            {
                "feature": c,
                "kind": "categorical",
                "rows": n,
                "missing": round(float(s.isna().mean()), 6) if n else 0.0,
                "frequencies": entry,
            }
        )
    order = {c: i for i, c in enumerate(train.columns)}
    features.sort(key=lambda f: order.get(f["feature"], 0))
    return {"computed_on": "training split before SMOTE", "rows": n, "features": features}


# -- what each algorithm process does ------------------------------------------------------------


def write_data(run_dir: Path, arrays: dict[str, np.ndarray], meta: dict[str, Any]) -> Path:
    data_dir = run_dir / "data"
    data_dir.mkdir(parents=True, exist_ok=True)
    np.savez(data_dir / "arrays.npz", **arrays)
    (data_dir / "meta.json").write_text(json.dumps(meta))
    return data_dir


def _write_json(path: Path, value: Any) -> None:
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(value))
    tmp.replace(path)


def classification_metrics(
    y: np.ndarray, pred: np.ndarray, proba: np.ndarray | None, k: int
) -> dict[str, Any]:
    from sklearn.metrics import accuracy_score, balanced_accuracy_score, f1_score, log_loss, roc_auc_score

    out: dict[str, Any] = {
        "val_accuracy": float(accuracy_score(y, pred)),
        "balanced_accuracy": float(balanced_accuracy_score(y, pred)),
        "f1_macro": float(f1_score(y, pred, average="macro")),
        "auc": None,
        "log_loss": None,
    }
    if proba is not None:
        proba = np.clip(proba, 1e-15, 1.0)
        proba = proba / proba.sum(axis=1, keepdims=True)
        try:
            if k == 2:
                out["auc"] = float(roc_auc_score(y, proba[:, 1]))
            else:
                out["auc"] = float(roc_auc_score(y, proba, multi_class="ovr", labels=list(range(k))))
        except ValueError:
            out["auc"] = None
        out["log_loss"] = float(log_loss(y, proba, labels=list(range(k))))
    return out


def regression_metrics(y: np.ndarray, pred: np.ndarray) -> dict[str, Any]:
    from sklearn.metrics import mean_absolute_error, mean_squared_error, r2_score

    return {
        "mae": float(mean_absolute_error(y, pred)),
        "rmse": float(math.sqrt(mean_squared_error(y, pred))),
        "r2": float(r2_score(y, pred)),
    }


def _shap_matrix(raw: Any) -> np.ndarray:
    if isinstance(raw, list):
        raw = np.stack([np.asarray(r) for r in raw], axis=-1)
    values = np.asarray(raw, dtype=np.float64)
    if values.ndim not in (2, 3):
        raise ValueError(f"unexpected SHAP output shape {values.shape}")
    return values


def shap_summary(
    algorithm: Algorithm,
    estimator: Any,
    x_background: np.ndarray,
    x_rows: np.ndarray,
    groups: list[tuple[str, int, int]],
    budget_s: float,
) -> dict[str, Any]:
    """Mean |SHAP| per original feature, top 20, with the explainer the spec names (rule 7)."""
    if algorithm.explainer is None:
        return {
            "status": "skipped",
            "explainer": None,
            "reason": f"the spec computes no SHAP values for {algorithm.name}",
        }
    import shap

    if algorithm.explainer == "tree":
        explainer = shap.TreeExplainer(estimator)

        def explain(x: np.ndarray) -> np.ndarray:
            return _shap_matrix(explainer.shap_values(x, check_additivity=False))

    else:
        explainer = shap.LinearExplainer(estimator, x_background)

        def explain(x: np.ndarray) -> np.ndarray:
            return _shap_matrix(explainer.shap_values(x))

    # Exact tree SHAP on deep forests costs seconds a row: time a first batch and take as many
    # of the (up to 500) validation rows as the budget allows.
    first = min(10, len(x_rows))
    started = time.monotonic()
    parts = [explain(x_rows[:first])]
    per_row = (time.monotonic() - started) / max(1, first)
    n = len(x_rows) if per_row == 0 else min(len(x_rows), max(first, int(budget_s / per_row)))
    if n > first:
        parts.append(explain(x_rows[first:n]))
    values = np.concatenate(parts, axis=0)
    per_feature = np.abs(aggregate(values, groups))  # rows x features [x classes]
    means = per_feature.reshape(per_feature.shape[0], per_feature.shape[1], -1).mean(axis=(0, 2))
    order = np.argsort(-means, kind="stable")[:SHAP_TOP]
    return {
        "status": "computed",
        "explainer": algorithm.explainer,
        "rows": int(n),
        "reason": None if n == len(x_rows) else f"time budget of {budget_s:g} s allowed {n} rows",
        "values": [{"feature": groups[i][0], "mean_abs_shap": float(means[i])} for i in order],
    }


def train_one(out_dir: Path, algorithm: Algorithm, data_dir: Path, settings: dict[str, Any]) -> None:
    """The body of one algorithm's process: fit, score, save; then SHAP (``shap.json``)."""
    import warnings

    import joblib

    # shap announces on every LightGBM binary model that its output is a list; _shap_matrix copes.
    warnings.filterwarnings("ignore", message="LightGBM binary classifier with TreeExplainer")
    arrays = np.load(data_dir / "arrays.npz")
    meta = json.loads((data_dir / "meta.json").read_text())
    x_train, y_train = arrays["x_train"], arrays["y_train"]
    x_val, y_val = arrays["x_val"], arrays["y_val"]
    k = meta["n_classes"]
    params = Params(
        seed=settings["seed"],
        n_jobs=settings["n_jobs"],
        n_estimators=settings["n_estimators"],
        class_weight=bool(settings["class_weight"] and algorithm.class_weight),
        n_classes=k,
    )
    estimator = algorithm.build(params)
    started = time.monotonic()
    fit(algorithm, estimator, x_train, y_train, settings["seed"])
    fit_seconds = time.monotonic() - started
    pred = np.asarray(estimator.predict(x_val)).reshape(-1)
    if meta["problem_type"] == "classification":
        pred = pred.astype(np.int64)
        proba = np.asarray(estimator.predict_proba(x_val)) if hasattr(estimator, "predict_proba") else None
        metrics = classification_metrics(y_val, pred, proba, k)
    else:
        pred = pred.astype(np.float64)
        metrics = regression_metrics(y_val, pred)
    joblib.dump(estimator, out_dir / "model.joblib")
    sample = int(settings["sample_predictions"])
    _write_json(
        out_dir / "result.json",
        {
            "metrics": metrics,
            "fit_seconds": round(fit_seconds, 3),
            "class_weight": params.class_weight,
            "best_iteration": best_iteration(estimator) if algorithm.early_stopping else None,
            "sample_predictions": pred[:sample].tolist(),
        },
    )
    groups = [tuple(g) for g in meta["groups"]]
    try:
        summary = shap_summary(
            algorithm, estimator, arrays["x_background"], arrays["x_shap"], groups, settings["shap_budget_s"]
        )
    except Exception as e:  # noqa: BLE001 - an explainer that cannot read this model is recorded
        summary = {
            "status": "failed",
            "explainer": algorithm.explainer,
            "reason": f"{type(e).__name__}: {e}"[:500],
        }
    _write_json(out_dir / "shap.json", summary)


__all__ = [
    "AUTO_RULE",
    "Prepared",
    "build_preprocessor",
    "detect_problem_type",
    "drift_baseline",
    "output_groups",
    "prepare",
    "split_positions",
    "train_one",
]
