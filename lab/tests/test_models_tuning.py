"""Bayesian tuning with Optuna on the real German credit set (credit-g): TPE with constant_liar,
exactly 12 trials with 2 running at a time (proved from the trials' own start/complete times),
the best parameters per family, and a regression study that minimises MAE."""

from __future__ import annotations

import os
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from lakehouse_support import require_modules

require_modules("pandas", "numpy", "sklearn", "optuna", "xgboost", "lightgbm", "catboost", extra="ml")

import pandas as pd  # noqa: E402

from lab.models.tuning import FAMILIES, build_estimator, max_concurrency, suggest, tune  # noqa: E402

DATA = Path(__file__).resolve().parents[2] / ".." / "shared" / "data" / "ml"


def data_file(relative: str) -> Path:
    path = DATA / relative
    if path.exists():
        return path
    if os.environ.get("CI"):
        pytest.fail(f"{path} is missing: the real-data model suites must run under CI", pytrace=False)
    pytest.skip(f"{path} is missing (the shared data sets are not laid out here)")


@pytest.fixture(scope="module")
def credit() -> pd.DataFrame:
    frame = pd.read_csv(data_file("classification/german_credit.csv"), header=None)
    frame.columns = [f"a{i + 1}" for i in range(20)] + ["credit"]  # 1 = good, 2 = bad
    return frame


@pytest.fixture(scope="module")
def study(credit: pd.DataFrame) -> dict[str, Any]:
    return tune(credit, "credit", "classification", {"seed": 11})


def test_twelve_trials_two_at_a_time(study: dict[str, Any]) -> None:
    trials = study["trials"]
    assert study["n_trials"] == 12 and [t["number"] for t in trials] == list(range(12))
    assert all(t["state"] == "COMPLETE" for t in trials), [t["state"] for t in trials]
    spans = [
        (
            datetime.fromisoformat(t["datetime_start"]).timestamp(),
            datetime.fromisoformat(t["datetime_complete"]).timestamp(),
        )
        for t in trials
    ]
    assert all(start <= end for start, end in spans)
    # Never more than two at once, and two did run at once (overlapping intervals).
    assert max_concurrency(spans) == 2 == study["max_concurrency"] == study["parallel"]
    overlapping = sum(
        1 for i, (s1, e1) in enumerate(spans) for s2, e2 in spans[i + 1 :] if s1 < e2 and s2 < e1
    )
    assert overlapping >= 3
    assert study["sampler"]["name"] == "TPESampler" and study["sampler"]["constant_liar"] is True


def test_best_params_per_family(study: dict[str, Any]) -> None:
    assert study["metric"] == "val_accuracy" and study["direction"] == "maximize"
    trials = study["trials"]
    # One trial per family is enqueued first, so every family was measured.
    assert {t["algorithm"] for t in trials[:6]} == set(FAMILIES) == set(study["best_params"])
    best = study["best"]
    assert best["value"] == study["best_value"] == max(t["value"] for t in trials)
    assert 0.6 < best["value"] <= 1.0  # 70% of credit-g is "good": a model beats the majority class
    assert study["best_params"][best["algorithm"]] == best["params"]
    for family, params in study["best_params"].items():
        mine = [t["value"] for t in trials if t["algorithm"] == family]
        assert study["best_by_family"][family]["value"] == max(mine)
        assert params and all(not k.startswith(family) for k in params)
    # Tuning never touches the training run's validation rows: 200 of 1,000 are held out.
    assert study["rows"] == {"fit": 640, "validation": 160, "held_out_for_training_run": 200}
    # 70:30 is below 3:1: class_weight='balanced' as the training run applies it.
    assert study["class_weight"] == "balanced"


def test_the_best_params_build_a_working_model(credit: pd.DataFrame, study: dict[str, Any]) -> None:
    best = study["best"]
    model = build_estimator(best["algorithm"], "classification", best["params"], 11, class_weight=True)
    x = pd.get_dummies(credit.drop(columns="credit"), dtype=float).to_numpy()
    y = (credit["credit"] == 2).astype(int).to_numpy()
    model.fit(x[:800], y[:800])
    assert (model.predict(x[800:]).reshape(-1) == y[800:]).mean() > 0.6


def test_regression_minimises_mae() -> None:
    housing = pd.read_csv(data_file("regression/boston_housing.csv"), header=None)
    housing.columns = [f"x{i}" for i in range(13)] + ["medv"]
    result = tune(
        housing,
        "medv",
        "regression",
        {"seed": 3, "n_trials": 4, "families": ["RandomForest", "GradientBoosting"]},
    )
    assert result["metric"] == "mae" and result["direction"] == "minimize" and result["n_trials"] == 4
    values = [t["value"] for t in result["trials"]]
    assert result["best_value"] == min(values) and result["best_value"] < 4.0  # MEDV std is ~9.2
    assert set(result["best_params"]) == {"RandomForest", "GradientBoosting"}
    assert result["class_weight"] is None


def test_the_spec_caps_a_study_at_twelve_trials(credit: pd.DataFrame) -> None:
    with pytest.raises(ValueError, match="n_trials"):
        tune(credit, "credit", "classification", {"n_trials": 13})
    with pytest.raises(ValueError, match="unknown tuning families"):
        tune(credit, "credit", "classification", {"families": ["SVC"]})


def test_every_family_has_a_search_space() -> None:
    import optuna

    study = optuna.create_study()
    for family in FAMILIES:
        trial = study.ask()
        assert suggest(trial, family)
