"""Time-series competition (spec 4.9 roster: Prophet and ARIMA, winner by lowest MAE).

A series arrives as a frame with a time column and a numeric target. It is sorted, duplicate
timestamps are averaged, the frequency is inferred, and gaps on that grid are filled by linear
interpolation (the count is recorded). The holdout is the last 20% of the points (at least one);
each algorithm forecasts exactly that many steps from the training part.

Every algorithm (``lab.models.forecasters``, re-exported here) is callable on its own as
``fit_<name>(train, horizon, seed, params) -> (model, forecast)``: ``train`` is a frame with
columns ``ds`` (timestamps) and ``y`` (floats) on a regular grid, ``forecast`` is a float array
of ``horizon`` values, ``params`` may carry ``freq`` (a pandas offset alias) and ``season``
(points per season) besides the algorithm's own settings.

Metrics per algorithm: MAE (the winner criterion), RMSE, and MASE scaled by the in-sample
seasonal-naive error (lag = season, or 1 when the series has no usable season). The seasonal-naive
and last-value forecasts are recorded as baselines, not competitors.
"""

from __future__ import annotations

import math
import time
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

# Re-exported: the executors live with the process runner (anomaly.py and the tests import them here).
# Re-exported: the fitters live in forecasters.py (the tests import them here).
from lab.models.forecasters import (  # noqa: F401
    FITTERS,
    fit_arima,
    fit_prophet,
    seasonal_strength,
    select_d,
    use_log,
)
from lab.models.runner import (  # noqa: F401
    AlgorithmFailed,
    Executor,
    call_in_process,
    process_executor,
)

ALGORITHMS = ("Prophet", "ARIMA")
MIN_POINTS = 10  # fewer points with a time and a value: refused (a holdout of 2, 8 to fit)
HOLDOUT_FRACTION = 0.2

# Points per season for the usual pandas frequency prefixes (a 30-minute grid has 48 per day).
_SEASON_BY_UNIT = {
    "Y": 1,
    "A": 1,
    "YS": 1,
    "AS": 1,
    "YE": 1,
    "Q": 4,
    "QS": 4,
    "QE": 4,
    "M": 12,
    "MS": 12,
    "ME": 12,
    "W": 52,
    "D": 7,
    "B": 5,
}


class SeriesError(ValueError):
    """The frame cannot be read as a regular series (too short, no time column, non-numeric target)."""


# ---------------------------------------------------------------------------------------------
# Series preparation
# ---------------------------------------------------------------------------------------------


def infer_frequency(times: pd.Series | pd.DatetimeIndex) -> str:
    """A pandas offset alias for sorted timestamps: pd.infer_freq, else the median step."""
    index = pd.DatetimeIndex(times).sort_values().unique()
    if len(index) < 2:
        raise SeriesError("a series needs at least two distinct timestamps to infer its frequency")
    if len(index) >= 3:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # pandas 3 warns that infer_freq will return an offset
            freq = pd.infer_freq(index)
        if freq:
            return freq if isinstance(freq, str) else freq.freqstr
    step = pd.Series(index[1:] - index[:-1]).median()
    days = step / pd.Timedelta(days=1)
    # Calendar steps cannot be written as a fixed Timedelta; pick the calendar alias they resemble.
    for alias, lo, hi in (("MS", 27, 32), ("QS", 88, 93), ("YS", 360, 367)):
        if lo <= days <= hi:
            return alias
    for unit, alias in (
        (pd.Timedelta(days=1), "D"),
        (pd.Timedelta(hours=1), "h"),
        (pd.Timedelta(minutes=1), "min"),
    ):
        if step >= unit and step % unit == pd.Timedelta(0):
            n = int(step // unit)
            return alias if n == 1 else f"{n}{alias}"
    return pd.tseries.frequencies.to_offset(step).freqstr


def season_length(freq: str) -> int:
    """Points per natural season for a frequency (12 for monthly, 24 for hourly, 48 for 30-minute)."""
    offset = pd.tseries.frequencies.to_offset(freq)
    name = str(getattr(offset, "rule_code", "") or offset.name).upper().split("-")[0]
    n = max(int(getattr(offset, "n", 1) or 1), 1)
    if name in _SEASON_BY_UNIT:
        return max(_SEASON_BY_UNIT[name] // n, 1)
    try:
        step = pd.Timedelta(offset)
    except (TypeError, ValueError):
        return 1
    if step <= pd.Timedelta(0):
        return 1
    if step < pd.Timedelta(days=1):  # intraday grid: one day is the season
        per_day = pd.Timedelta(days=1) / step
        return int(per_day) if per_day == int(per_day) and per_day >= 2 else 1
    return 1


def prepare_series(frame: pd.DataFrame, time_col: str, target: str) -> tuple[pd.DataFrame, dict[str, Any]]:
    """A regular ``ds``/``y`` frame and what was done to get it (rows dropped, gaps filled, frequency)."""
    for col in (time_col, target):
        if col not in frame.columns:
            raise SeriesError(f"column {col!r} is not in the frame")
    ds = pd.to_datetime(frame[time_col], errors="coerce")
    y = pd.to_numeric(frame[target], errors="coerce")
    if y.notna().sum() == 0 and frame[target].notna().any():
        raise SeriesError(f"target {target!r} is not numeric")
    raw = pd.DataFrame({"ds": ds, "y": y.astype(float)})
    dropped = int(raw.isna().any(axis=1).sum())
    raw = raw.dropna()
    if raw["ds"].dt.tz is not None:
        raw["ds"] = raw["ds"].dt.tz_convert("UTC").dt.tz_localize(None)
    series = raw.groupby("ds", sort=True)["y"].mean()
    duplicates = int(len(raw) - len(series))
    if len(series) < MIN_POINTS:
        raise SeriesError(
            f"a series needs at least {MIN_POINTS} points with a time and a value; got {len(series)}"
        )
    freq = infer_frequency(series.index)
    grid = pd.date_range(series.index[0], series.index[-1], freq=freq)
    filled = 0
    if len(grid) != len(series) or not grid.equals(series.index):
        on_grid = series.reindex(grid)
        if on_grid.notna().sum() < len(series) * 0.9:
            raise SeriesError(f"timestamps are too irregular for one frequency (inferred {freq})")
        filled = int(on_grid.isna().sum())
        series = on_grid.interpolate(limit_direction="both")
    out = pd.DataFrame({"ds": series.index, "y": series.to_numpy(dtype=float)})
    info = {
        "freq": freq,
        "season": season_length(freq),
        "points": len(out),
        "dropped_rows": dropped,
        "duplicate_timestamps": duplicates,
        "filled_gaps": filled,
        "start": out["ds"].iloc[0].isoformat(),
        "end": out["ds"].iloc[-1].isoformat(),
    }
    return out, info


def holdout_size(points: int) -> int:
    """The last 20% of the points, at least one, and never the whole series."""
    return min(max(1, round(points * HOLDOUT_FRACTION)), points - 2)


# ---------------------------------------------------------------------------------------------
# Metrics
# ---------------------------------------------------------------------------------------------


def naive_scale(train: np.ndarray, season: int) -> float:
    """In-sample mean absolute error of the seasonal-naive forecast (lag 1 without a usable season)."""
    lag = season if season > 1 and len(train) > season else 1
    diffs = np.abs(train[lag:] - train[:-lag])
    scale = float(diffs.mean()) if len(diffs) else float("nan")
    return scale


def forecast_metrics(actual: np.ndarray, forecast: np.ndarray, scale: float) -> dict[str, float | None]:
    err = np.asarray(actual, dtype=float) - np.asarray(forecast, dtype=float)
    mae = float(np.mean(np.abs(err)))
    rmse = float(math.sqrt(np.mean(err**2)))
    mase = mae / scale if scale and math.isfinite(scale) and scale > 0 else None
    return {"mae": mae, "rmse": rmse, "mase": mase}


def seasonal_naive(train: np.ndarray, horizon: int, season: int) -> np.ndarray:
    if season > 1 and len(train) >= season:
        last = train[-season:]
        return np.array([last[i % season] for i in range(horizon)], dtype=float)
    return np.full(horizon, float(train[-1]))


# ---------------------------------------------------------------------------------------------
# Competition
# ---------------------------------------------------------------------------------------------


def _fit_and_score(
    name: str,
    train: pd.DataFrame,
    test: pd.DataFrame,
    seed: int,
    params: dict[str, Any],
    scale: float,
    full: pd.DataFrame | None = None,
) -> dict[str, Any]:
    """Runs one algorithm and returns a picklable record (the model itself stays where it ran
    unless ``keep_model`` is set, since fitted statsmodels/Prophet objects are large).

    With ``full`` (the whole series) the algorithm is fitted once more on all of it, with the
    settings the holdout fit chose (ARIMA's orders and log transform, Prophet's seasonality
    mode), and ``final`` carries that model as a ``ForecastModel``: the artifact forecasts from
    the end of the series, not from the end of the training part."""
    keep = params.pop("keep_model", False)
    model, forecast = FITTERS[name](train, len(test), seed, dict(params))
    forecast = np.asarray(forecast, dtype=float)
    if forecast.shape != (len(test),) or not np.all(np.isfinite(forecast)):
        raise RuntimeError(f"{name} returned {forecast.shape} values (non-finite or wrong length)")
    out: dict[str, Any] = {
        "metrics": forecast_metrics(test["y"].to_numpy(), forecast, scale),
        "forecast": forecast.tolist(),
    }
    selection = getattr(model, "selection", None)
    if selection is not None:
        out["selection"] = selection
    if keep:
        out["model"] = model
    if full is not None:
        out["final"] = final_model(name, model, full, seed, params)
    return out


def final_model(name: str, model: Any, full: pd.DataFrame, seed: int, params: dict[str, Any]) -> Any:
    """``name`` refitted on the whole series with the settings ``model`` (its holdout fit) chose."""
    from lab.models.series_artifacts import ForecastModel

    freq = params.get("freq") or infer_frequency(full["ds"])
    season = int(params.get("season") or 1)
    settings = {k: v for k, v in params.items() if k not in ("freq", "season")}
    if name == "ARIMA":
        sel = model.selection
        fixed = {
            **settings,
            "season": season,
            "order": tuple(sel["order"]),
            "seasonal_order": tuple(sel["seasonal_order"]),
            "log": sel["log"],
        }
        fitted, _ = fit_arima(full, 1, seed, fixed)
        state: Any = fitted
        log = bool(sel["log"])
    else:
        from prophet.serialize import model_to_json

        settings["seasonality_mode"] = model.seasonality_mode
        fitted, _ = fit_prophet(full, 1, seed, {**settings, "freq": freq, "season": season})
        state, log = model_to_json(fitted), False
    return ForecastModel(
        algorithm=name,
        freq=freq,
        season=season,
        last_timestamp=pd.Timestamp(full["ds"].iloc[-1]).isoformat(),
        points=len(full),
        log=log,
        state=state,
    )


def run_timeseries(
    frame: pd.DataFrame, time_col: str, target: str, options: dict[str, Any] | None = None
) -> dict:
    """Trains the time-series roster on the first 80% and scores the last 20%.

    options: ``seed`` (default 42), ``algorithms`` (subset of ALGORITHMS), ``params`` ({name: {...}}),
    ``timeout_s`` (passed to the executor, default 300), ``executor`` (``process_executor(dir)`` runs
    each algorithm in its own process under the timeout; the default is a plain call),
    ``keep_models`` (return fitted models under ``models``), ``algorithm_timeouts`` ({name: seconds},
    over ``timeout_s``), ``final_models`` (refit each trained algorithm on the whole series in its
    own process and return the ``ForecastModel``s under ``final_models``), ``on_record`` (called
    with each record, the count done and the total as each algorithm ends).
    Returns {problem_type, series, holdout, baselines, algorithms: [{algorithm, status, reason, metrics,
    seconds, ...}], winner, criterion}. status is trained | failed | timed_out | skipped.
    """
    options = dict(options or {})
    seed = int(options.get("seed", 42))
    wanted = list(options.get("algorithms") or ALGORITHMS)
    executor: Executor = options.get("executor") or call_in_process
    timeout_s = options.get("timeout_s", 300)
    timeouts = dict(options.get("algorithm_timeouts") or {})
    on_record: Callable[[dict[str, Any], int, int], None] | None = options.get("on_record")
    series, info = prepare_series(frame, time_col, target)
    horizon = holdout_size(len(series))
    train, test = series.iloc[:-horizon].reset_index(drop=True), series.iloc[-horizon:].reset_index(drop=True)
    season = info["season"] if len(train) > 2 * info["season"] else 1
    y_train, y_test = train["y"].to_numpy(), test["y"].to_numpy()
    scale = naive_scale(y_train, season)
    baselines = {
        "seasonal_naive": forecast_metrics(y_test, seasonal_naive(y_train, horizon, season), scale),
        "last_value": forecast_metrics(y_test, np.full(horizon, y_train[-1]), scale),
    }
    records: list[dict[str, Any]] = []
    models: dict[str, Any] = {}
    finals: dict[str, Any] = {}
    full = series if options.get("final_models") else None

    def done(record: dict[str, Any]) -> None:
        records.append(record)
        if on_record is not None:
            on_record(record, len(records), len(wanted))

    for name in wanted:
        record: dict[str, Any] = {"algorithm": name, "status": "skipped", "reason": None, "metrics": {}}
        if name not in FITTERS:
            record["reason"] = f"unknown time-series algorithm {name!r}"
            record["seconds"] = 0.0
            done(record)
            continue
        budget = timeouts.get(name, timeout_s)
        params = {"freq": info["freq"], "season": season, **(options.get("params", {}).get(name) or {})}
        if options.get("keep_models"):
            params["keep_model"] = True
        started = time.perf_counter()
        try:
            out = executor(name, _fit_and_score, (name, train, test, seed, params, scale, full), budget)
        except TimeoutError as e:
            record.update(status="timed_out", reason=str(e) or f"exceeded {budget} s")
        except ModuleNotFoundError as e:
            record.update(status="skipped", reason=f"{e.name} is not installed")
        except AlgorithmFailed as e:
            record.update(status="failed", reason=str(e)[:500])
        except Exception as e:  # noqa: BLE001 - one failing algorithm is recorded, never fatal
            record.update(status="failed", reason=f"{type(e).__name__}: {e}"[:500])
        else:
            record.update(status="trained", metrics=out["metrics"], forecast=out["forecast"])
            if "selection" in out:
                record["selection"] = out["selection"]
            if "model" in out:
                models[name] = out["model"]
            if "final" in out:
                finals[name] = out["final"]
        record["seconds"] = round(time.perf_counter() - started, 3)
        done(record)
    trained = [r for r in records if r["status"] == "trained"]
    winner = min(trained, key=lambda r: r["metrics"]["mae"])["algorithm"] if trained else None
    result: dict[str, Any] = {
        "problem_type": "timeseries",
        "criterion": "mae",
        "series": {**info, "season_used": season, "time_column": time_col, "target": target},
        "holdout": {
            "points": horizon,
            "train_points": len(train),
            "start": test["ds"].iloc[0].isoformat(),
            "end": test["ds"].iloc[-1].isoformat(),
            "actual": y_test.tolist(),
        },
        "baselines": baselines,
        "algorithms": records,
        "winner": winner,
    }
    if options.get("keep_models"):
        result["models"] = models
    if full is not None:
        result["final_models"] = finals
    return result
