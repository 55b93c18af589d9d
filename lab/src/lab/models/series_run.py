"""Time-series and anomaly runs (spec 4.9 roster) from a table to the RunResult envelope of
classification/regression (``lab.models.run``) and an artifact prediction can load.

``run.train_with_artifact`` and ``run.check_request`` hand these problem types here. The request
is read as docs/foundry-models.md says:

- **timeseries**: ``target`` is the numeric series; the time column is ``feature_columns[0]`` when
  given (the only entry allowed: the forecast is univariate), else the table's single date or
  timestamp column. ``timeseries.run_timeseries`` scores Prophet and ARIMA on the last 20%, the
  winner (lowest MAE) is refitted on the whole series and saved as a ``ForecastModel``.
- **anomaly**: ``target`` is the value column scored; the other inputs are ``feature_columns``
  (numeric), by default every other numeric column; a date/timestamp column (the one named in
  ``feature_columns``, else the table's single one) adds the derived series features of
  ``anomaly.SeriesFeaturizer``. ``label_column`` (optional; non-zero = anomaly) gives
  precision/recall at the labels and is never a feature. All three detectors are scored;
  IsolationForest is saved as an ``AnomalyModel`` for inference.

Each algorithm runs in its own process under its own timeout (``runner.process_executor``).
"""

from __future__ import annotations

import datetime as dt
import shutil
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from lab.models import anomaly as an
from lab.models import timeseries as tsm
from lab.models.artifacts import serialize, write_artifact
from lab.models.competition import drift_baseline
from lab.models.data import load_frame
from lab.models.preprocess import ColumnKinds
from lab.models.runner import default_memory_limit_mb, process_executor
from lab.models.series_artifacts import AnomalyModel

if TYPE_CHECKING:
    from lab.models.run import TrainOptions

SERIES_TYPES = ("timeseries", "anomaly")
SHAP_REASON = {
    "timeseries": "SHAP does not apply to a univariate forecast",
    "anomaly": "anomaly models are skipped by spec 2.8",
}
ROSTER = {"timeseries": tsm.ALGORITHMS, "anomaly": an.ALGORITHMS}
ANOMALY_MIN_ROWS = 10


# -- reading the request ------------------------------------------------------------------------


def is_time(s: pd.Series) -> bool:
    """A date or timestamp column (Iceberg date arrives as Python dates, timestamps as datetime64)."""
    if pd.api.types.is_datetime64_any_dtype(s):
        return True
    if s.dtype == object:
        present = s.dropna().iloc[:200]
        return len(present) > 0 and all(isinstance(v, dt.date) for v in present)
    return False


def _numeric(s: pd.Series) -> bool:
    return pd.api.types.is_numeric_dtype(s) and not pd.api.types.is_bool_dtype(s)


def _column(frame: pd.DataFrame, name: str, role: str) -> pd.Series:
    if name not in frame.columns:
        cols = ", ".join(repr(c) for c in list(frame.columns)[:20])
        raise ValueError(f"{role} {name!r} is not in the table (columns: {cols})")
    return frame[name]


def _numeric_target(frame: pd.DataFrame, target: str, what: str) -> None:
    if not isinstance(target, str) or not target:
        raise ValueError("target_column is required")
    s = _column(frame, target, "target column")
    if not _numeric(s):
        raise ValueError(f"target column {target!r} is not numeric ({s.dtype}): {what}")
    if s.notna().sum() == 0:
        raise ValueError(f"target column {target!r} has no values")


def timeseries_time_column(frame: pd.DataFrame, target: str, feature_columns: list[str] | None) -> str:
    """``feature_columns[0]``, else the table's single date/timestamp column (ValueError otherwise)."""
    if feature_columns:
        if len(feature_columns) > 1:
            raise ValueError(
                "a time-series run forecasts one series: feature_columns may name only its time column, "
                f"got {list(feature_columns)[:10]}"
            )
        col = feature_columns[0]
        s = _column(frame, col, "time column")
        if col == target:
            raise ValueError(f"the time column {col!r} cannot also be the target")
        if not is_time(s):
            parsed = pd.to_datetime(s.dropna().astype(str), errors="coerce", format="mixed")
            if s.notna().sum() == 0 or parsed.notna().mean() < 0.9:
                raise ValueError(f"time column {col!r} holds neither dates nor timestamps")
        return col
    candidates = [c for c in frame.columns if c != target and is_time(frame[c])]
    if not candidates:
        raise ValueError(
            "the table has no date or timestamp column to order the series by: "
            "name the time column as feature_columns[0]"
        )
    if len(candidates) > 1:
        raise ValueError(
            f"the table has several date/timestamp columns {candidates[:10]}: "
            "name the time column as feature_columns[0]"
        )
    return candidates[0]


def anomaly_columns(
    frame: pd.DataFrame, target: str, feature_columns: list[str] | None, label_column: str | None
) -> tuple[list[str], str | None, list[str]]:
    """(inputs with the target first, the time column or None, columns left out as non-numeric)."""
    _numeric_target(frame, target, "anomaly detection scores a numeric value column")
    named = list(feature_columns or [])
    if label_column is not None:
        s = _column(frame, label_column, "label column")
        if label_column == target or label_column in named:
            raise ValueError(f"label column {label_column!r} cannot also be the target or a feature")
        if not (pd.api.types.is_numeric_dtype(s) or pd.api.types.is_bool_dtype(s)):
            raise ValueError(f"label column {label_column!r} must be 0/1 or boolean, not {s.dtype}")
    for c in named:
        _column(frame, c, "feature column")
    if target in named:
        raise ValueError(f"target column {target!r} cannot also be a feature")
    times = [c for c in named if is_time(frame[c])]
    if times:
        time_col: str | None = times[0]
    else:
        found = [c for c in frame.columns if c not in (target, label_column) and is_time(frame[c])]
        time_col = found[0] if len(found) == 1 else None
    left_out: list[str] = []
    if named:
        extra = [c for c in named if c not in times]
        bad = [c for c in extra if not (_numeric(frame[c]) or pd.api.types.is_bool_dtype(frame[c]))]
        if bad:
            raise ValueError(
                f"feature column(s) {bad[:10]} are not numeric (anomaly detection scores numbers)"
            )
    else:
        rest = [c for c in frame.columns if c not in (target, label_column, time_col)]
        extra = [c for c in rest if _numeric(frame[c]) or pd.api.types.is_bool_dtype(frame[c])]
        left_out = [c for c in rest if c not in extra]
    return [target, *extra], time_col, left_out


def _anomaly_frame(
    frame: pd.DataFrame, target: str, inputs: list[str], time_col: str | None
) -> tuple[pd.DataFrame, list[str], Any, np.ndarray]:
    """The frame the detectors score, its feature names, the fitted featurizer and the positions
    of its rows in ``frame`` (time order when there is a time column)."""
    if time_col is None:
        rows = np.arange(len(frame))
        return frame[inputs].astype(float), list(inputs), None, rows
    timed = frame[pd.to_datetime(frame[time_col], errors="coerce").notna()]
    featurizer = an.SeriesFeaturizer.fit(timed, time_col, target)
    derived = featurizer.transform(timed)
    rows = timed.index.to_numpy()[derived["_row"].to_numpy()]
    extra = [c for c in inputs if c != target]
    scored = derived.drop(columns=["_row", time_col]).reset_index(drop=True)
    for c in extra:
        scored[c] = pd.to_numeric(frame[c]).astype(float).to_numpy()[rows]
    return scored, [*featurizer.names, *extra], featurizer, rows


def check_series(
    frame: pd.DataFrame,
    target: str,
    feature_columns: list[str] | None,
    problem_type: str,
    label_column: str | None = None,
) -> dict[str, Any]:
    """The pre-run checks of a time-series or anomaly request (ValueError with the reason)."""
    if problem_type == "timeseries":
        _numeric_target(frame, target, "a time-series run forecasts a numeric series")
        time_col = timeseries_time_column(frame, target, feature_columns)
        _, info = tsm.prepare_series(frame, time_col, target)
        return {
            "problem_type": "timeseries",
            "problem_type_detected": False,
            "rows": len(frame),
            "time_column": time_col,
            "features": [time_col],
            "points": info["points"],
            "frequency": info["freq"],
            "horizon": tsm.holdout_size(info["points"]),
        }
    inputs, time_col, left_out = anomaly_columns(frame, target, feature_columns, label_column)
    scored, names, _, _ = _anomaly_frame(frame, target, inputs, time_col)
    if len(scored) < ANOMALY_MIN_ROWS:
        raise ValueError(f"anomaly detection needs at least {ANOMALY_MIN_ROWS} rows; got {len(scored)}")
    an.numeric_features(scored, names)  # all-null columns
    return {
        "problem_type": "anomaly",
        "problem_type_detected": False,
        "rows": len(scored),
        "time_column": time_col,
        "label_column": label_column,
        "features": names,
        "features_left_out": left_out,
    }


# -- the run ------------------------------------------------------------------------------------


def _roster_options(problem_type: str, opts: TrainOptions) -> tuple[list[str], dict[str, Any]]:
    """The algorithms and params of this roster. The operator's algorithm list spans every problem
    type: names of other rosters are ignored, and a list without any of this roster's runs it all."""
    roster = ROSTER[problem_type]
    wanted = [a for a in (opts.algorithms or []) if a in roster] or list(roster)
    params = {k: dict(v) for k, v in (getattr(opts, "params", None) or {}).items() if k in roster}
    return wanted, params


def _shap_skipped(problem_type: str) -> dict[str, Any]:
    return {
        "status": "skipped",
        "explainer": None,
        "rows": 0,
        "reason": SHAP_REASON[problem_type],
        "values": [],
    }


def train_series(
    source: Any,
    target: str,
    feature_columns: list[str] | None,
    problem_type: str,
    opts: TrainOptions,
    label_column: str | None = None,
) -> tuple[dict[str, Any], bytes | None]:
    """The RunResult and the artifact's bytes (None when no algorithm trained)."""
    started = time.monotonic()
    loaded = load_frame(source, opts.row_limit)
    frame = loaded.frame
    check_series(frame, target, feature_columns, problem_type, label_column)
    wanted, params = _roster_options(problem_type, opts)
    memory_mb = opts.memory_limit_mb or default_memory_limit_mb(1)
    progress = opts.progress

    def on_record(record: dict[str, Any], done: int, total: int) -> None:
        record["shap"] = _shap_skipped(problem_type)
        if progress is not None:
            progress({"stage": "training", "done": done, "total": total, "record": record})

    if progress is not None:
        progress({"stage": "training", "done": 0, "total": len(wanted), "record": None})
    run_dir = Path(tempfile.mkdtemp(prefix="lab-series-run-"))
    options: dict[str, Any] = {
        "seed": opts.seed,
        "algorithms": wanted,
        "params": params,
        "timeout_s": opts.timeout_s,
        "algorithm_timeouts": dict(opts.algorithm_timeouts),
        "executor": process_executor(run_dir, memory_mb),
        "on_record": on_record,
    }
    try:
        if problem_type == "timeseries":
            result, model = _timeseries(frame, target, feature_columns, options)
        else:
            result, model = _anomaly(frame, target, feature_columns, label_column, options)
    finally:
        shutil.rmtree(run_dir, ignore_errors=True)
    result = {
        "status": "succeeded" if model is not None else "failed",
        "reason": None if model is not None else "no algorithm trained",
        "problem_type": problem_type,
        "problem_type_detected": False,
        "detection_rule": None,
        "target": target,
        "rows": len(frame),
        "row_limit": loaded.limit,
        "rows_truncated": loaded.truncated,
        "classes": None,
        "class_counts": None,
        "imbalance_ratio": None,
        "smote_applied": None,
        "class_weight_applied": None,
        "timeout_s": opts.timeout_s,
        "algorithm_timeouts": dict(opts.algorithm_timeouts),
        "memory_limit_mb": memory_mb,
        "feature_importance": None,
        "feature_importance_method": None,
        "shap": _shap_skipped(problem_type),
        "validation_sample": None,
        **result,
        "artifact": None,
    }
    data: bytes | None = None
    if model is not None:
        data, digest = serialize(model)
        result["artifact"] = {"sha256": digest, "bytes": len(data), "format": model.format}
        if opts.artifact_dir is not None:
            result["artifact"]["path"] = str(write_artifact(data, opts.artifact_dir))
    result["seconds"] = round(time.monotonic() - started, 3)
    return result, data


def _timeseries(
    frame: pd.DataFrame, target: str, feature_columns: list[str] | None, options: dict[str, Any]
) -> tuple[dict[str, Any], Any]:
    time_col = timeseries_time_column(frame, target, feature_columns)
    run = tsm.run_timeseries(frame, time_col, target, {**options, "final_models": True})
    trained = [r for r in run["algorithms"] if r["status"] == "trained"]
    winner = next((r for r in trained if r["algorithm"] == run["winner"]), None)
    model = run["final_models"].get(run["winner"]) if winner is not None else None
    if model is not None:
        model.target, model.time_column = target, time_col
    series, info = tsm.prepare_series(frame, time_col, target)
    values = pd.DataFrame({target: series["y"]})
    baseline = drift_baseline(values, ColumnKinds(numeric=[target], categorical=[]))
    baseline["computed_on"] = "the whole series (what the saved model was fitted on)"
    return {
        "features": [time_col],
        "feature_kinds": {"numeric": [], "categorical": [], "time": [time_col]},
        "time_column": time_col,
        "frequency": info["freq"],
        "horizon": run["holdout"]["points"],
        "series": run["series"],
        "holdout": run["holdout"],
        "baselines": run["baselines"],
        "split": {
            "train": run["holdout"]["train_points"],
            "validation": run["holdout"]["points"],
            "stratified": False,
            "seed": options["seed"],
            "rule": "the last 20% of the points are the holdout",
        },
        "criterion": {"metric": "mae", "higher_is_better": False},
        "algorithms": run["algorithms"],
        "winner": None
        if winner is None
        else {"algorithm": winner["algorithm"], "metric": "mae", "value": winner["metrics"]["mae"]},
        "metrics": None if winner is None else winner["metrics"],
        "drift_baseline": baseline,
    }, model


def _anomaly(
    frame: pd.DataFrame,
    target: str,
    feature_columns: list[str] | None,
    label_column: str | None,
    options: dict[str, Any],
) -> tuple[dict[str, Any], Any]:
    inputs, time_col, left_out = anomaly_columns(frame, target, feature_columns, label_column)
    scored, names, featurizer, rows = _anomaly_frame(frame, target, inputs, time_col)
    labels = None
    if label_column is not None:
        labels = frame[label_column].fillna(0).to_numpy(dtype=float)[rows] != 0
    run = an.run_anomaly(scored, names, options, labels=labels)
    by_name = {r["algorithm"]: r for r in run["algorithms"]}
    chosen = run["winner"]
    model = None
    if chosen is not None:
        model = AnomalyModel(
            algorithm=chosen,
            pipeline=run["models"][chosen],
            threshold=float(by_name[chosen]["threshold"]),
            target=target,
            inputs=inputs,
            features=names,
            time_column=time_col,
            featurizer=featurizer,
            contamination=run["contamination"],
        )
    baseline = drift_baseline(scored[names], ColumnKinds(numeric=names, categorical=[]))
    return {
        "features": names,
        "feature_kinds": {"numeric": names, "categorical": [], "time": [time_col] if time_col else []},
        "inputs": inputs,
        "features_left_out": left_out,
        "derived_features": featurizer.names[1:] if featurizer is not None else [],
        "time_column": time_col,
        "label_column": label_column,
        "labels": run["labels"],
        "contamination": run["contamination"],
        "preprocessing": run["preprocessing"],
        "split": None,
        "criterion": {
            "metric": None,
            "higher_is_better": None,
            "rule": "IsolationForest preferred (spec 4.9)",
        },
        "algorithms": run["algorithms"],
        "preferred": run["preferred"],
        "inference_algorithm": chosen,
        "winner": None
        if chosen is None
        else {"algorithm": chosen, "metric": None, "value": None, "preferred": chosen == run["preferred"]},
        "metrics": None if chosen is None else by_name[chosen]["metrics"],
        "drift_baseline": baseline,
    }, model
