"""Time-series competition on real series: Prophet and ARIMA (automatic order selection) on the
Box-Jenkins airline passengers, a last-20% holdout, MAE/RMSE/MASE, frequency inference, failures
recorded per algorithm, and each algorithm in its own process under a wall-clock timeout."""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Any

import pytest
from lakehouse_support import require_modules

require_modules("pandas", "numpy", "statsmodels", "prophet", "sklearn", extra="ml")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from lab.models.timeseries import (  # noqa: E402
    fit_arima,
    fit_prophet,
    holdout_size,
    infer_frequency,
    prepare_series,
    process_executor,
    run_timeseries,
    season_length,
)

DATA = Path(__file__).resolve().parents[2] / ".." / "shared" / "data" / "ml"


def data_file(relative: str) -> Path:
    path = DATA / relative
    if path.exists():
        return path
    if os.environ.get("CI"):
        pytest.fail(f"{path} is missing: the real-data model suites must run under CI", pytrace=False)
    pytest.skip(f"{path} is missing (the shared data sets are not laid out here)")


@pytest.fixture(scope="module")
def airline() -> pd.DataFrame:
    return pd.read_csv(data_file("timeseries/airline_passengers_monthly.csv"))


@pytest.fixture(scope="module")
def airline_run(airline: pd.DataFrame) -> dict[str, Any]:
    return run_timeseries(airline, "Month", "Passengers", {"seed": 7})


def by_name(result: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {r["algorithm"]: r for r in result["algorithms"]}


def test_airline_competition_selects_an_arima_order_that_beats_the_naive_forecasts(
    airline_run: dict[str, Any],
) -> None:
    series, holdout = airline_run["series"], airline_run["holdout"]
    assert (series["freq"], series["season"], series["points"]) == ("MS", 12, 144)
    assert holdout["points"] == 29 and holdout["train_points"] == 115  # the last 20% of 144
    assert holdout["start"].startswith("1958-08") and holdout["end"].startswith("1960-12")

    records = by_name(airline_run)
    assert set(records) == {"Prophet", "ARIMA"}
    for r in records.values():
        assert r["status"] == "trained", r
        m = r["metrics"]
        assert all(math.isfinite(m[k]) for k in ("mae", "rmse", "mase"))
        assert m["rmse"] >= m["mae"] > 0
        assert len(r["forecast"]) == 29 and r["seconds"] >= 0

    arima = records["ARIMA"]
    sel = arima["selection"]
    assert len(sel["order"]) == 3 and len(sel["seasonal_order"]) == 4
    assert sel["seasonal_order"][3] == 12 and sel["seasonal_order"][1] == 1  # a seasonal difference
    assert sel["order"][1] in (0, 1, 2) and sel["fitted"] >= 4 and math.isfinite(sel["aic"])
    assert sel["log"] is True  # the spread grows with the level
    naive = airline_run["baselines"]
    # Last value (MAE ~81) and seasonal naive (~65) are far behind a real model of this series.
    assert arima["metrics"]["mae"] < naive["last_value"]["mae"]
    assert arima["metrics"]["mae"] < 0.5 * naive["seasonal_naive"]["mae"]
    assert arima["metrics"]["mase"] < 1.0 < naive["seasonal_naive"]["mase"]
    assert records["Prophet"]["metrics"]["mae"] < naive["seasonal_naive"]["mae"]

    best = min(records.values(), key=lambda r: r["metrics"]["mae"])
    assert airline_run["winner"] == best["algorithm"] and airline_run["criterion"] == "mae"


def test_the_fitters_are_callable_on_their_own(airline: pd.DataFrame) -> None:
    series, info = prepare_series(airline, "Month", "Passengers")
    train = series.iloc[:-12]
    model, forecast = fit_arima(
        train, 12, 1, {"season": 12, "order": (0, 1, 1), "seasonal_order": (0, 1, 1, 12), "log": True}
    )
    assert model.selection["search"] == "fixed" and model.selection["order"] == [0, 1, 1]
    assert forecast.shape == (12,) and np.all(forecast > 300)  # 1960 ran from 390 to 622
    actual = series["y"].iloc[-12:].to_numpy()
    assert np.mean(np.abs(forecast - actual)) < 40

    _, p_forecast = fit_prophet(train, 12, 1, {"freq": info["freq"], "season": 12})
    assert p_forecast.shape == (12,) and np.all(np.isfinite(p_forecast))
    # Prophet's seeded fit is reproducible.
    _, again = fit_prophet(train, 12, 1, {"freq": info["freq"], "season": 12})
    assert np.allclose(p_forecast, again)


def test_frequency_inference_and_gap_filling() -> None:
    taxi = pd.read_csv(data_file("anomaly/nab_nyc_taxi.csv"), nrows=500)
    assert infer_frequency(pd.to_datetime(taxi["timestamp"])) == "30min"
    assert season_length("30min") == 48 and season_length("h") == 24 and season_length("D") == 7
    assert season_length("MS") == 12 and season_length("QS") == 4

    airline = pd.read_csv(data_file("timeseries/airline_passengers_monthly.csv"))
    holes = airline.drop(index=[10, 50, 51, 90]).sample(frac=1.0, random_state=3)  # gaps, shuffled
    series, info = prepare_series(holes, "Month", "Passengers")
    assert info["freq"] == "MS" and info["points"] == 144 and info["filled_gaps"] == 4
    assert series["ds"].is_monotonic_increasing
    # A filled month lies between its neighbours.
    assert series["y"].iloc[9] <= series["y"].iloc[10] <= series["y"].iloc[11] or (
        series["y"].iloc[9] >= series["y"].iloc[10] >= series["y"].iloc[11]
    )
    assert [holdout_size(n) for n in (4, 5, 10, 144)] == [1, 1, 2, 29]

    # Melbourne's daily minima skip two leap-year New Year's Eves: pandas cannot infer a frequency,
    # the median step gives a day, and the two days are filled on the daily grid.
    daily = pd.read_csv(data_file("timeseries/daily_min_temperatures_melbourne.csv"))
    series, info = prepare_series(daily, "Date", "Temp")
    assert (info["freq"], info["season"], info["filled_gaps"], info["points"]) == ("D", 7, 2, 3652)


def test_a_failing_algorithm_is_recorded_and_the_other_wins(airline: pd.DataFrame) -> None:
    result = run_timeseries(
        airline,
        "Month",
        "Passengers",
        {
            "params": {
                "Prophet": {"seasonality_mode": "sideways"},
                "ARIMA": {"order": (0, 1, 1), "seasonal_order": (0, 1, 1, 12)},
            }
        },
    )
    records = by_name(result)
    assert records["Prophet"]["status"] == "failed"
    assert "sideways" in records["Prophet"]["reason"] or "seasonality_mode" in records["Prophet"]["reason"]
    assert records["ARIMA"]["status"] == "trained" and result["winner"] == "ARIMA"


def test_each_algorithm_runs_in_its_own_process_under_a_timeout(
    airline: pd.DataFrame, tmp_path: Path
) -> None:
    fixed = {"ARIMA": {"order": (0, 1, 1), "seasonal_order": (0, 1, 1, 12)}}
    done = run_timeseries(
        airline,
        "Month",
        "Passengers",
        {
            "algorithms": ["ARIMA"],
            "params": fixed,
            "executor": process_executor(tmp_path / "ok"),
            "timeout_s": 120,
        },
    )
    [arima] = done["algorithms"]
    assert arima["status"] == "trained" and arima["selection"]["order"] == [0, 1, 1]
    assert (tmp_path / "ok" / "ARIMA" / "result.pkl").exists()

    # Far too short a budget for a fresh interpreter to even import statsmodels: killed and recorded.
    slow = run_timeseries(
        airline,
        "Month",
        "Passengers",
        {
            "algorithms": ["ARIMA"],
            "params": fixed,
            "executor": process_executor(tmp_path / "slow"),
            "timeout_s": 0.1,
        },
    )
    [timed_out] = slow["algorithms"]
    assert timed_out["status"] == "timed_out" and "0.1 s" in timed_out["reason"]
    assert slow["winner"] is None
