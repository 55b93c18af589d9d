"""Anomaly competition (spec 4.9 roster: IsolationForest, LOF, OneClassSVM; all three scored,
IsolationForest preferred for inference).

Features are numeric: one preprocessing pipeline (median imputation, standard scaling) sits in front
of every detector, so a saved model scores new rows with exactly the same transformation. Each
detector is fitted on all rows and flags the ``contamination`` fraction (default 5%) with the lowest
scores; the score threshold is stored on the record so inference flags new rows the same way.

- LOF is built with ``novelty=True`` so the saved model can score new rows; the rows it was fitted on
  are scored with their own ``negative_outlier_factor_`` (sklearn's in-sample LOF), not by
  ``score_samples`` (which would count every row as its own neighbour).
- OneClassSVM is fitted on a random subsample of at most ``ocsvm_max_rows`` rows (default 5,000; its
  cost is quadratic) and then scores every row; the record says so under ``notes``.

When labels are given, each detector also gets precision/recall/F1 at the labels (row level) and the
share of labelled windows that contain at least one flagged row (``window_recall``, NAB's notion of
detecting an anomaly). Labels are either one 0/1 value per row, or windows ``[[start, end], ...]`` /
timestamps matched against ``options["time_column"]`` (a timestamp becomes a window of
``label_window`` rows, default 1, around it).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from lab.models.runner import AlgorithmFailed, Executor, call_in_process

ALGORITHMS = ("IsolationForest", "LOF", "OneClassSVM")
PREFERRED = "IsolationForest"


class AnomalyInputError(ValueError):
    """Features that cannot be scored (missing, non-numeric, all null, too few rows)."""


def _preprocessor() -> Any:
    from sklearn.impute import SimpleImputer
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import StandardScaler

    return Pipeline([("impute", SimpleImputer(strategy="median")), ("scale", StandardScaler())])


def numeric_features(frame: pd.DataFrame, feature_columns: Sequence[str]) -> pd.DataFrame:
    """The feature columns as floats (booleans as 0/1); anything else is a clear error."""
    if not feature_columns:
        raise AnomalyInputError("anomaly detection needs at least one feature column")
    missing = [c for c in feature_columns if c not in frame.columns]
    if missing:
        raise AnomalyInputError(f"feature columns not in the frame: {missing}")
    out = {}
    for col in feature_columns:
        values = frame[col]
        if pd.api.types.is_bool_dtype(values):
            values = values.astype(float)
        elif not pd.api.types.is_numeric_dtype(values):
            raise AnomalyInputError(f"feature {col!r} is not numeric (anomaly detection scores numbers)")
        if values.notna().sum() == 0:
            raise AnomalyInputError(f"feature {col!r} has no values")
        out[col] = values.astype(float)
    return pd.DataFrame(out, index=frame.index)


def _slots(ts: pd.Series, intraday: bool) -> pd.Series:
    if intraday:
        return ts.dt.day_of_week * 10_000 + (ts.dt.hour * 60 + ts.dt.minute)
    return ts.dt.day_of_week


@dataclass
class SeriesFeaturizer:
    """The derived features of a value series, fitted once (on the training rows) so a saved model
    derives them for new rows the same way: the slot profile (median value per slot of the week)
    and the rolling window are kept."""

    time_column: str
    value_column: str
    period: int  # rolling window in points (one day of an intraday grid, else 7)
    intraday: bool  # slots are weekday + time of day (else weekday)
    profile: dict[int, float]  # median value per slot
    overall: float  # for a slot the training rows never had

    @classmethod
    def fit(
        cls, frame: pd.DataFrame, time_col: str, value_col: str, period: int | None = None
    ) -> SeriesFeaturizer:
        ts = pd.to_datetime(frame[time_col]).sort_values()
        values = pd.to_numeric(frame[value_col], errors="coerce").astype(float).loc[ts.index]
        step = ts.diff().median()
        intraday = bool(step and step < pd.Timedelta(days=1))
        if period is None:
            period = int(pd.Timedelta(days=1) / step) if intraday else 7
        profile = values.groupby(_slots(ts, intraday).to_numpy()).median()
        return cls(
            time_column=time_col,
            value_column=value_col,
            period=max(int(period), 2),
            intraday=intraday,
            profile={int(k): float(v) for k, v in profile.items()},
            overall=float(values.median()),
        )

    @property
    def names(self) -> list[str]:
        v = self.value_column
        return [v, f"{v}_vs_slot", f"{v}_vs_rolling"]

    def transform(self, frame: pd.DataFrame) -> pd.DataFrame:
        """One row per input row, sorted by time: the time, the value, its deviation from its slot's
        median and from a centred rolling mean of one period; ``_row`` is the row's position in
        ``frame``."""
        ts = pd.to_datetime(frame[self.time_column]).reset_index(drop=True)
        values = pd.to_numeric(frame[self.value_column], errors="coerce").astype(float).reset_index(drop=True)
        order = np.argsort(ts.to_numpy(), kind="stable")
        ts, values = ts.iloc[order].reset_index(drop=True), values.iloc[order].reset_index(drop=True)
        slot = _slots(ts, self.intraday)
        profile = slot.map(self.profile).astype(float).fillna(self.overall)
        rolling = values.rolling(self.period, min_periods=1, center=True).mean()
        value, vs_slot, vs_rolling = self.names
        return pd.DataFrame(
            {
                "_row": order,
                self.time_column: ts,
                value: values,
                vs_slot: values - profile,
                vs_rolling: values - rolling,
            }
        )


def series_features(
    frame: pd.DataFrame, time_col: str, value_col: str, period: int | None = None
) -> pd.DataFrame:
    """Contextual features for a univariate series (one row per timestamp, sorted): the value, its
    deviation from the median of the same slot of the week (or of ``period``), and its deviation
    from a rolling one-period mean. A value that is ordinary for the series but not for its hour and
    weekday (the NAB taxi holidays) stands out in the second column."""
    featurizer = SeriesFeaturizer.fit(frame, time_col, value_col, period)
    return featurizer.transform(frame).drop(columns="_row")


# ---------------------------------------------------------------------------------------------
# Labels
# ---------------------------------------------------------------------------------------------


def label_mask(
    frame: pd.DataFrame, labels: Any, time_column: str | None, label_window: int = 1
) -> tuple[np.ndarray, list[np.ndarray]]:
    """A boolean per row (inside some labelled anomaly) and the row indices of each labelled event."""
    n = len(frame)
    if labels is None:
        raise ValueError("no labels")
    if isinstance(labels, (pd.Series, np.ndarray)) or (
        isinstance(labels, Sequence)
        and len(labels) == n
        and all(isinstance(v, (int, bool, np.integer)) for v in labels)
    ):
        mask = np.asarray(labels, dtype=bool)
        if mask.shape != (n,):
            raise ValueError(f"row labels must have one value per row ({n}); got {mask.shape}")
        # Consecutive flagged rows form one event.
        events: list[np.ndarray] = []
        idx = np.flatnonzero(mask)
        if len(idx):
            breaks = np.flatnonzero(np.diff(idx) > 1) + 1
            events = [np.asarray(g) for g in np.split(idx, breaks)]
        return mask, events
    if not time_column or time_column not in frame.columns:
        raise ValueError(
            "window or timestamp labels need options['time_column'] naming a column of the frame"
        )
    ts = pd.to_datetime(frame[time_column]).to_numpy()
    mask = np.zeros(n, dtype=bool)
    events = []
    for item in labels:
        if isinstance(item, (list, tuple)) and len(item) == 2:
            lo, hi = pd.Timestamp(item[0]).to_datetime64(), pd.Timestamp(item[1]).to_datetime64()
            rows = np.flatnonzero((ts >= lo) & (ts <= hi))
        else:
            at = pd.Timestamp(item).to_datetime64()
            centre = int(np.argmin(np.abs(ts - at)))
            half = max(label_window, 1) // 2
            rows = np.arange(max(centre - half, 0), min(centre + half + 1, n))
        mask[rows] = True
        events.append(rows)
    return mask, events


def label_metrics(flags: np.ndarray, mask: np.ndarray, events: list[np.ndarray]) -> dict[str, float | int]:
    tp = int(np.sum(flags & mask))
    flagged = int(flags.sum())
    positives = int(mask.sum())
    precision = tp / flagged if flagged else 0.0
    recall = tp / positives if positives else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    hit = sum(1 for rows in events if len(rows) and flags[rows].any())
    return {
        "precision": precision,
        "recall": recall,
        "f1": f1,
        "window_recall": hit / len(events) if events else 0.0,
        "windows_detected": hit,
        "windows": len(events),
        "labelled_rows": positives,
    }


# ---------------------------------------------------------------------------------------------
# Detectors
# ---------------------------------------------------------------------------------------------


def _fit_isolation_forest(x: np.ndarray, seed: int, params: dict[str, Any]) -> tuple[Any, np.ndarray, dict]:
    from sklearn.ensemble import IsolationForest

    model = IsolationForest(n_estimators=200, random_state=seed, n_jobs=1, **params).fit(x)
    return model, model.score_samples(x), {}


def _fit_lof(x: np.ndarray, seed: int, params: dict[str, Any]) -> tuple[Any, np.ndarray, dict]:
    from sklearn.neighbors import LocalOutlierFactor

    settings = {"n_neighbors": min(20, max(len(x) - 1, 1)), **params, "novelty": True}
    model = LocalOutlierFactor(**settings).fit(x)
    return model, np.asarray(model.negative_outlier_factor_, dtype=float), {}


def _fit_ocsvm(x: np.ndarray, seed: int, params: dict[str, Any]) -> tuple[Any, np.ndarray, dict]:
    from sklearn.svm import OneClassSVM

    params = dict(params)
    max_rows = int(params.pop("max_rows", 5000))
    notes: dict[str, Any] = {}
    fit_on = x
    if len(x) > max_rows:
        rows = np.random.default_rng(seed).choice(len(x), size=max_rows, replace=False)
        fit_on = x[np.sort(rows)]
        notes["subsample"] = (
            f"fitted on a random subsample of {max_rows} of {len(x)} rows (OneClassSVM's cost is "
            "quadratic in rows); every row is scored"
        )
        notes["fit_rows"] = max_rows
    settings = {"kernel": "rbf", "gamma": "scale", "nu": 0.05, **params}
    model = OneClassSVM(**settings).fit(fit_on)
    return model, model.score_samples(x), notes


FITTERS: dict[str, Callable[[np.ndarray, int, dict[str, Any]], tuple[Any, np.ndarray, dict]]] = {
    "IsolationForest": _fit_isolation_forest,
    "LOF": _fit_lof,
    "OneClassSVM": _fit_ocsvm,
}


def _score(
    name: str, x: np.ndarray, seed: int, params: dict[str, Any], contamination: float
) -> dict[str, Any]:
    """Fits one detector; returns the fitted estimator, the per-row scores (higher = more normal),
    the threshold at the contamination quantile and the flags."""
    model, scores, notes = FITTERS[name](x, seed, params)
    scores = np.asarray(scores, dtype=float)
    threshold = float(np.quantile(scores, contamination))
    flags = scores <= threshold
    return {"model": model, "scores": scores, "threshold": threshold, "flags": flags, "notes": notes}


def run_anomaly(
    frame: pd.DataFrame,
    feature_columns: Sequence[str],
    options: dict[str, Any] | None = None,
    labels: Any = None,
) -> dict[str, Any]:
    """Scores the anomaly roster on ``frame[feature_columns]``.

    options: ``seed`` (42), ``contamination`` (0.05, the flagged share), ``algorithms`` (subset),
    ``params`` ({name: {...}}; OneClassSVM takes ``max_rows``), ``ocsvm_max_rows`` (5000),
    ``timeout_s`` (300, for the executor), ``executor`` (``timeseries.process_executor(dir)`` runs
    each detector in its own process under the timeout; the default is a plain call),
    ``time_column`` and ``label_window`` (for window / timestamp labels), ``keep_scores`` (per-row
    scores and flags in each record), ``algorithm_timeouts`` ({name: seconds} over ``timeout_s``),
    ``on_record`` (called with each record, the count done and the total as each detector ends).
    Returns {problem_type, features, rows, contamination, preprocessing, algorithms: [{algorithm,
    status, reason, metrics, seconds, threshold, notes}], winner (IsolationForest when it trained,
    else the first trained), preferred, models: {name: Pipeline(preprocess, detector)}}; ``models``
    is the only key that is not JSON.
    """
    from sklearn.pipeline import Pipeline

    options = dict(options or {})
    seed = int(options.get("seed", 42))
    contamination = float(options.get("contamination", 0.05))
    if not 0 < contamination < 0.5:
        raise AnomalyInputError("contamination must be strictly between 0 and 0.5")
    wanted = list(options.get("algorithms") or ALGORITHMS)
    executor: Executor = options.get("executor") or call_in_process
    timeout_s = options.get("timeout_s", 300)
    timeouts = dict(options.get("algorithm_timeouts") or {})
    on_record: Callable[[dict[str, Any], int, int], None] | None = options.get("on_record")
    features = numeric_features(frame, list(feature_columns))
    if len(features) < 10:
        raise AnomalyInputError(f"anomaly detection needs at least 10 rows; got {len(features)}")
    prep = _preprocessor().fit(features)
    x = prep.transform(features)
    mask = events = None
    if labels is not None:
        mask, events = label_mask(
            frame, labels, options.get("time_column"), int(options.get("label_window", 1))
        )
    records: list[dict[str, Any]] = []
    models: dict[str, Any] = {}

    def done(record: dict[str, Any]) -> None:
        records.append(record)
        if on_record is not None:
            on_record(record, len(records), len(wanted))

    for name in wanted:
        record: dict[str, Any] = {"algorithm": name, "status": "skipped", "reason": None, "metrics": {}}
        started = time.perf_counter()
        if name not in FITTERS:
            record.update(reason=f"unknown anomaly algorithm {name!r}", seconds=0.0)
            done(record)
            continue
        budget = timeouts.get(name, timeout_s)
        params = dict((options.get("params") or {}).get(name) or {})
        if name == "OneClassSVM":
            params.setdefault("max_rows", int(options.get("ocsvm_max_rows", 5000)))
            params.setdefault("nu", contamination)
        try:
            out = executor(name, _score, (name, x, seed, params, contamination), budget)
        except TimeoutError as e:
            record.update(status="timed_out", reason=str(e) or f"exceeded {budget} s")
        except AlgorithmFailed as e:
            record.update(status="failed", reason=str(e)[:500])
        except Exception as e:  # noqa: BLE001 - one failing detector is recorded, never fatal
            record.update(status="failed", reason=f"{type(e).__name__}: {e}"[:500])
        else:
            scores, flags = out["scores"], out["flags"]
            metrics: dict[str, Any] = {
                "flagged": int(flags.sum()),
                "anomaly_rate": float(flags.mean()),
                "score_mean": float(scores.mean()),
                "score_std": float(scores.std()),
            }
            if mask is not None:
                metrics.update(label_metrics(flags, mask, events or []))
            record.update(status="trained", metrics=metrics, threshold=out["threshold"], notes=out["notes"])
            if options.get("keep_scores"):
                record["scores"] = scores.tolist()
                record["flags"] = np.flatnonzero(flags).tolist()
            models[name] = Pipeline([("preprocess", prep), ("detector", out["model"])])
        record["seconds"] = round(time.perf_counter() - started, 3)
        done(record)
    trained = [r["algorithm"] for r in records if r["status"] == "trained"]
    winner = PREFERRED if PREFERRED in trained else (trained[0] if trained else None)
    return {
        "problem_type": "anomaly",
        "features": list(feature_columns),
        "rows": len(features),
        "contamination": contamination,
        "preprocessing": "median imputation, standard scaling",
        "labels": None if mask is None else {"labelled_rows": int(mask.sum()), "windows": len(events or [])},
        "algorithms": records,
        "preferred": PREFERRED,
        "winner": winner,
        "models": models,
    }


def flag_new_rows(model: Any, threshold: float, rows: pd.DataFrame) -> np.ndarray:
    """Inference: scores new rows with a saved pipeline and flags those at or below the threshold."""
    return np.asarray(model.score_samples(rows), dtype=float) <= threshold
