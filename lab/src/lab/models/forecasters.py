"""The time-series roster's fitters (spec 4.9: Prophet, ARIMA with automatic order selection).

Each is ``fit_<name>(train, horizon, seed, params) -> (model, forecast)``: ``train`` is a frame
with ``ds`` (timestamps) and ``y`` (floats) on a regular grid, ``forecast`` a float array of
``horizon`` values; ``params`` may carry ``freq`` and ``season`` besides the algorithm's own
settings. ``lab.models.timeseries`` runs the competition over them.
"""

from __future__ import annotations

import logging
import math
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

SEASONAL_TERMS_MIN_STRENGTH = 0.3
SEASONAL_DIFFERENCE_MIN_STRENGTH = 0.64  # auto.arima's default seasonal test threshold


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

    from lab.models.timeseries import infer_frequency  # timeseries imports this module

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
