"""Time-series competition (spec 4.9 roster: Prophet and ARIMA, winner by lowest MAE).

A series arrives as a frame with a time column and a numeric target. It is sorted, duplicate
timestamps are averaged, the frequency is inferred, and gaps on that grid are filled by linear
interpolation (the count is recorded). The holdout is the last 20% of the points (at least one);
each algorithm forecasts exactly that many steps from the training part.

Every algorithm is callable on its own as ``fit_<name>(train, horizon, seed, params) -> (model,
forecast)``: ``train`` is a frame with columns ``ds`` (timestamps) and ``y`` (floats) on a regular
grid, ``forecast`` is a float array of ``horizon`` values, ``params`` may carry ``freq`` (a pandas
offset alias) and ``season`` (points per season) besides the algorithm's own settings.

Metrics per algorithm: MAE (the winner criterion), RMSE, and MASE scaled by the in-sample
seasonal-naive error (lag = season, or 1 when the series has no usable season). The seasonal-naive
and last-value forecasts are recorded as baselines, not competitors.
"""

from __future__ import annotations

import logging
import math
import time
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

# Re-exported: the executors live with the process runner (anomaly.py and the tests import them here).
from lab.models.runner import (  # noqa: F401
    AlgorithmFailed,
    Executor,
    call_in_process,
    process_executor,
)

ALGORITHMS = ("Prophet", "ARIMA")
MIN_POINTS = 10  # fewer points with a time and a value: refused (a holdout of 2, 8 to fit)
HOLDOUT_FRACTION = 0.2
SEASONAL_TERMS_MIN_STRENGTH = 0.3
SEASONAL_DIFFERENCE_MIN_STRENGTH = 0.64  # auto.arima's default seasonal test threshold

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
# ARIMA with automatic order selection
# ---------------------------------------------------------------------------------------------


def _is_stationary(values: np.ndarray) -> bool:
    """ADF rejects a unit root and KPSS does not reject stationarity (both at 5%)."""
    from statsmodels.tsa.stattools import adfuller, kpss

    if len(values) < 8 or np.allclose(values, values[0]):
        return True
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        adf_p = adfuller(values, autolag="AIC")[1]
        kpss_p = kpss(values, regression="c", nlags="auto")[1]
    return adf_p < 0.05 and kpss_p >= 0.05


def select_d(values: np.ndarray, max_d: int = 2) -> int:
    """Differences until ADF and KPSS agree the series is stationary (at most max_d)."""
    d = 0
    current = np.asarray(values, dtype=float)
    while d < max_d and not _is_stationary(current):
        current = np.diff(current)
        d += 1
    return d


def seasonal_strength(values: np.ndarray, season: int) -> float:
    """Hyndman's STL seasonal strength, 1 - Var(remainder) / Var(seasonal + remainder), in [0, 1]."""
    from statsmodels.tsa.seasonal import STL

    if season < 2 or len(values) < 2 * season + 1:
        return 0.0
    res = STL(values, period=season, robust=True).fit()
    denom = np.var(res.seasonal + res.resid)
    if denom <= 0:
        return 0.0
    return float(max(0.0, 1.0 - np.var(res.resid) / denom))


def use_log(values: np.ndarray, season: int) -> bool:
    """Log-transform when the series is positive and its local spread grows with its level."""
    if np.min(values) <= 0 or len(values) < 24:
        return False
    window = season if season > 1 else max(len(values) // 10, 4)
    s = pd.Series(values)
    level = s.rolling(window).mean().dropna().to_numpy()[::window]
    spread = s.rolling(window).std().dropna().to_numpy()[::window]
    if len(level) < 4 or np.std(level) == 0 or np.std(spread) == 0:
        return False
    return float(np.corrcoef(level, spread)[0, 1]) > 0.5


def fit_arima(
    train: pd.DataFrame, horizon: int, seed: int, params: dict[str, Any] | None = None
) -> tuple[Any, np.ndarray]:
    """Seasonal ARIMA whose orders are picked by the lowest AIC on a small grid.

    d comes from ADF/KPSS on the (maybe log-transformed, seasonally differenced) series; the seasonal
    difference D from the STL seasonal strength (> 0.64, as auto.arima's default test; seasonal terms
    only from a strength of 0.3); then p, q in 0..max_p/max_q (3) and, with a season, P, Q in 0..1
    are searched stepwise by AIC (auto.arima's Hyndman-Khandakar moves, at most ``max_fits`` fits)
    on the last ``max_train_points`` (2,000) points. Pass ``order`` (and ``seasonal_order``) in
    params to skip the search. The returned model carries ``selection``.
    """
    from statsmodels.tsa.arima.model import ARIMA
    from threadpoolctl import threadpool_limits

    params = dict(params or {})
    np.random.seed(seed)
    y = train["y"].to_numpy(dtype=float)
    # State-space fits cost time linear in the length for every candidate: the last max_train_points
    # (default 2,000) carry what a forecast from the end of the series needs.
    max_points = int(params.get("max_train_points", 2000))
    used_from = max(len(y) - max_points, 0)
    y = y[used_from:]
    season = int(params.get("season") or 1)
    log = params.get("log", "auto")
    log = use_log(y, season) if log == "auto" else bool(log)
    work = np.log(y) if log else y
    seasonal = season > 1 and len(work) >= 2 * season + 4
    strength = None
    if "order" in params:
        order = tuple(params["order"])
        seasonal_order = tuple(params.get("seasonal_order") or (0, 0, 0, 0))
        candidates: list[tuple[tuple, tuple]] | None = [(order, seasonal_order)]
        big_d = seasonal_order[1]
        d = order[1]
    else:
        # Seasonal terms only for a visible season (each seasonal candidate costs several times a
        # plain one); a seasonal difference only for a strong one.
        strength = seasonal_strength(work, season) if seasonal else 0.0
        seasonal = seasonal and strength >= SEASONAL_TERMS_MIN_STRENGTH
        big_d = 1 if seasonal and strength > SEASONAL_DIFFERENCE_MIN_STRENGTH else 0
        base = work[season:] - work[:-season] if big_d else work
        d = select_d(base, max_d=int(params.get("max_d", 2)))
        candidates = None
    # A constant only when the series is not differenced: with differencing it becomes a drift,
    # which statsmodels' ARIMA expresses as trend="t" on the differenced scale.
    # A constant only when the series is not differenced: with differencing it becomes a drift,
    # which statsmodels' ARIMA expresses as trend="t" on the differenced scale.
    trend = "c" if d + big_d == 0 else ("t" if d + big_d == 1 else "n")
    tried: dict[tuple, float | None] = {}
    best: tuple[float, Any, tuple, tuple] | None = None

    def attempt(order: tuple, seasonal_order: tuple) -> None:
        nonlocal best
        key = (order, seasonal_order)
        if key in tried:
            return
        try:
            # One BLAS thread: the state-space matrices are tiny, and OpenBLAS threads spinning on a
            # busy machine made a fit many times slower than a single thread does.
            with warnings.catch_warnings(), threadpool_limits(limits=1):
                warnings.simplefilter("ignore")
                fitted = ARIMA(work, order=order, seasonal_order=seasonal_order, trend=trend).fit()
            aic = float(fitted.aic)
        except Exception:  # noqa: BLE001 - a candidate that cannot be fitted is skipped
            tried[key] = None
            return
        tried[key] = aic
        if math.isfinite(aic) and (best is None or aic < best[0]):
            best = (aic, fitted, order, seasonal_order)

    if candidates is not None:
        for order, seasonal_order in candidates:
            attempt(order, seasonal_order)
    else:
        # Hyndman-Khandakar stepwise search (auto.arima): four starting models, then moves of one
        # step in p, q, P, Q (and p, q together) from the best so far until none lowers the AIC.
        max_p, max_q = int(params.get("max_p", 3)), int(params.get("max_q", 3))
        max_sp = 1 if seasonal else 0

        def spec(p: int, q: int, sp: int, sq: int) -> tuple[tuple, tuple]:
            return (p, d, q), ((sp, big_d, sq, season) if seasonal else (0, 0, 0, 0))

        starts = [(2, 2, 1, 1), (0, 0, 0, 0), (1, 0, 1, 0), (0, 1, 0, 1)]
        for p, q, sp, sq in starts:
            attempt(*spec(min(p, max_p), min(q, max_q), min(sp, max_sp), min(sq, max_sp)))
        limit = int(params.get("max_fits", 40))
        while best is not None and len(tried) < limit:
            current = best[0]
            (p, _, q), (sp, _, sq, _) = best[2], (best[3] if seasonal else (0, 0, 0, 0))
            moves = [(dp, dq, 0, 0) for dp, dq in ((1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (-1, -1))]
            moves += [(0, 0, ds, dt) for ds, dt in ((1, 0), (-1, 0), (0, 1), (0, -1))] if seasonal else []
            for dp, dq, ds, dt in moves:
                np_, nq, nsp, nsq = p + dp, q + dq, sp + ds, sq + dt
                if 0 <= np_ <= max_p and 0 <= nq <= max_q and 0 <= nsp <= max_sp and 0 <= nsq <= max_sp:
                    attempt(*spec(np_, nq, nsp, nsq))
                if best[0] < current or len(tried) >= limit:
                    break
            if best[0] >= current:
                break
    if best is None:
        raise RuntimeError(f"no ARIMA candidate could be fitted ({len(candidates)} tried)")
    aic, fitted, order, seasonal_order = best
    forecast = np.asarray(fitted.forecast(steps=horizon), dtype=float)
    if log:
        forecast = np.exp(forecast)
    fitted.selection = {
        "order": list(order),
        "seasonal_order": list(seasonal_order),
        "trend": trend,
        "log": log,
        "aic": aic,
        "search": "fixed" if candidates is not None else "stepwise",
        "seasonal_strength": strength,
        "train_points": len(y),
        "skipped_oldest_points": used_from,
        "candidates": len(tried),
        "fitted": sum(1 for v in tried.values() if v is not None),
    }
    return fitted, forecast


# ---------------------------------------------------------------------------------------------
# Prophet
# ---------------------------------------------------------------------------------------------


def fit_prophet(
    train: pd.DataFrame, horizon: int, seed: int, params: dict[str, Any] | None = None
) -> tuple[Any, np.ndarray]:
    """Prophet with its automatic seasonalities; multiplicative seasonality when the spread grows
    with the level (the same test ARIMA uses for its log transform) unless params say otherwise."""
    for name in ("cmdstanpy", "prophet"):
        logging.getLogger(name).setLevel(logging.WARNING)
    from prophet import Prophet
    from threadpoolctl import threadpool_limits

    params = dict(params or {})
    freq = params.pop("freq", None) or infer_frequency(train["ds"])
    season = int(params.pop("season", 0) or 0)
    params.pop("log", None)
    if "seasonality_mode" not in params:
        y = train["y"].to_numpy(dtype=float)
        params["seasonality_mode"] = "multiplicative" if use_log(y, max(season, 1)) else "additive"
    model = Prophet(**params)
    with warnings.catch_warnings(), threadpool_limits(limits=1):
        warnings.simplefilter("ignore")  # Prophet's own pandas deprecations
        model.fit(train[["ds", "y"]], seed=seed)
        future = model.make_future_dataframe(periods=horizon, freq=freq, include_history=False)
        forecast = model.predict(future)["yhat"].to_numpy(dtype=float)
    return model, forecast


FITTERS: dict[str, Callable[..., tuple[Any, np.ndarray]]] = {"Prophet": fit_prophet, "ARIMA": fit_arima}

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
