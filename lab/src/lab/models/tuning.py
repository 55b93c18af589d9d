"""Hyperparameter tuning (spec 4.9): Bayesian optimisation with Optuna, up to 12 trials, 2 in parallel.

One study searches the boosted-tree and forest families of the roster together: each trial picks a
family (``algorithm``) and that family's hyperparameters (a conditional space). The sampler is TPE
with a few random start-up trials, multivariate over the conditional groups, and ``constant_liar``
so the two trials running at once do not sample the same point. Before the sampler takes over, one
trial per family is enqueued, so every family is measured at least once when there are as many
trials as families.

The data is prepared exactly as a training run prepares it (``competition.prepare``: same checks,
same label encoding, same preprocessing pipeline). Tuning never sees the training run's validation
rows: it takes the run's 80/20 split (same seed), keeps the 80%, and splits that again 80/20
(stratified for classification) to score trials: validation accuracy (maximised) for
classification, MAE (minimised) for regression. ``class_weight='balanced'`` follows the training
rule (ratio below 3:1, for the families that take it); SMOTE is not applied while tuning.

``tune`` returns every trial (number, algorithm, params, value, state, datetime_start,
datetime_complete) and the largest number of trials that ran at the same time, so a caller can
check the parallelism from the study itself; ``best_params`` holds the best parameters per family,
ready to be passed to the roster's estimator of that name.
"""

from __future__ import annotations

import importlib.util
import time
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

MAX_TRIALS = 12
PARALLEL = 2
STARTUP_TRIALS = 4

# Family name (as in the roster) -> the module it needs.
FAMILIES: dict[str, str] = {
    "XGBoost": "xgboost",
    "LightGBM": "lightgbm",
    "CatBoost": "catboost",
    "RandomForest": "sklearn",
    "ExtraTrees": "sklearn",
    "GradientBoosting": "sklearn",
}
CLASS_WEIGHT_FAMILIES = {"LightGBM", "RandomForest", "ExtraTrees"}


def available_families(requested: list[str] | None = None) -> tuple[list[str], dict[str, str]]:
    """The families to search and, for the others, why they are left out."""
    wanted = list(requested or FAMILIES)
    unknown = [f for f in wanted if f not in FAMILIES]
    if unknown:
        raise ValueError(f"unknown tuning families {unknown}; choose from {list(FAMILIES)}")
    skipped = {
        f: f"{FAMILIES[f]} is not installed" for f in wanted if importlib.util.find_spec(FAMILIES[f]) is None
    }
    return [f for f in wanted if f not in skipped], skipped


# -- search spaces -------------------------------------------------------------------------------


def suggest(trial: Any, family: str) -> dict[str, Any]:
    """The family's hyperparameters for this trial (Optuna names are prefixed by the family)."""

    def i(name: str, lo: int, hi: int, log: bool = False) -> int:
        return trial.suggest_int(f"{family}.{name}", lo, hi, log=log)

    def f(name: str, lo: float, hi: float, log: bool = False) -> float:
        return trial.suggest_float(f"{family}.{name}", lo, hi, log=log)

    def c(name: str, choices: list[Any]) -> Any:
        return trial.suggest_categorical(f"{family}.{name}", choices)

    if family == "XGBoost":
        return {
            "n_estimators": i("n_estimators", 50, 400, log=True),
            "max_depth": i("max_depth", 2, 10),
            "learning_rate": f("learning_rate", 0.01, 0.3, log=True),
            "subsample": f("subsample", 0.5, 1.0),
            "colsample_bytree": f("colsample_bytree", 0.5, 1.0),
            "min_child_weight": f("min_child_weight", 1.0, 10.0, log=True),
            "reg_lambda": f("reg_lambda", 1e-3, 10.0, log=True),
        }
    if family == "LightGBM":
        return {
            "n_estimators": i("n_estimators", 50, 400, log=True),
            "num_leaves": i("num_leaves", 8, 128, log=True),
            "learning_rate": f("learning_rate", 0.01, 0.3, log=True),
            "subsample": f("subsample", 0.5, 1.0),
            "colsample_bytree": f("colsample_bytree", 0.5, 1.0),
            "min_child_samples": i("min_child_samples", 5, 100, log=True),
            "reg_lambda": f("reg_lambda", 1e-3, 10.0, log=True),
        }
    if family == "CatBoost":
        return {
            "iterations": i("iterations", 100, 500, log=True),
            "depth": i("depth", 3, 8),
            "learning_rate": f("learning_rate", 0.01, 0.3, log=True),
            "l2_leaf_reg": f("l2_leaf_reg", 1.0, 10.0, log=True),
        }
    if family in ("RandomForest", "ExtraTrees"):
        return {
            "n_estimators": i("n_estimators", 100, 400, log=True),
            "max_depth": i("max_depth", 4, 32, log=True),
            "min_samples_leaf": i("min_samples_leaf", 1, 10, log=True),
            "max_features": c("max_features", ["sqrt", "log2", 0.5, 1.0]),
        }
    if family == "GradientBoosting":
        return {
            "n_estimators": i("n_estimators", 50, 300, log=True),
            "learning_rate": f("learning_rate", 0.01, 0.3, log=True),
            "max_depth": i("max_depth", 2, 6),
            "subsample": f("subsample", 0.5, 1.0),
        }
    raise ValueError(f"no search space for {family!r}")


def build_estimator(
    family: str, problem_type: str, params: dict[str, Any], seed: int, class_weight: bool
) -> Any:
    """One estimator of the family with the given hyperparameters (single-threaded: two run at once)."""
    classify = problem_type == "classification"
    balanced = "balanced" if class_weight and family in CLASS_WEIGHT_FAMILIES else None
    if family == "XGBoost":
        from xgboost import XGBClassifier, XGBRegressor

        cls = XGBClassifier if classify else XGBRegressor
        return cls(**params, tree_method="hist", random_state=seed, n_jobs=1, verbosity=0)
    if family == "LightGBM":
        from lightgbm import LGBMClassifier, LGBMRegressor

        extra = {"class_weight": balanced} if classify else {}
        cls = LGBMClassifier if classify else LGBMRegressor
        return cls(**params, subsample_freq=1, random_state=seed, n_jobs=1, verbose=-1, **extra)
    if family == "CatBoost":
        from catboost import CatBoostClassifier, CatBoostRegressor

        cls = CatBoostClassifier if classify else CatBoostRegressor
        return cls(**params, random_seed=seed, thread_count=1, verbose=False, allow_writing_files=False)
    if family in ("RandomForest", "ExtraTrees"):
        from sklearn.ensemble import (
            ExtraTreesClassifier,
            ExtraTreesRegressor,
            RandomForestClassifier,
            RandomForestRegressor,
        )

        table = {
            ("RandomForest", True): RandomForestClassifier,
            ("RandomForest", False): RandomForestRegressor,
            ("ExtraTrees", True): ExtraTreesClassifier,
            ("ExtraTrees", False): ExtraTreesRegressor,
        }
        extra = {"class_weight": balanced} if classify else {}
        return table[(family, classify)](**params, random_state=seed, n_jobs=1, **extra)
    if family == "GradientBoosting":
        from sklearn.ensemble import GradientBoostingClassifier, GradientBoostingRegressor

        cls = GradientBoostingClassifier if classify else GradientBoostingRegressor
        return cls(**params, random_state=seed)
    raise ValueError(f"unknown family {family!r}")


# -- the study -----------------------------------------------------------------------------------


def max_concurrency(intervals: list[tuple[float, float]]) -> int:
    """The largest number of [start, end) intervals that overlap at one instant."""
    events = sorted(
        [(s, 1) for s, _ in intervals] + [(e, -1) for _, e in intervals], key=lambda t: (t[0], t[1])
    )
    running = peak = 0
    for _, step in events:
        running += step
        peak = max(peak, running)
    return peak


def _iso(value: Any) -> str | None:
    return value.isoformat() if value is not None else None


def tune(
    frame: pd.DataFrame, target: str, problem_type: str | None, options: dict[str, Any] | None = None
) -> dict[str, Any]:
    """Runs the study; returns {problem_type, direction, metric, n_trials, parallel, max_concurrency,
    best: {algorithm, params, value, trial}, best_params: {family: params}, best_value, trials: [...],
    families, skipped_families, rows: {fit, validation}, seconds}.

    options: ``seed`` (42), ``n_trials`` (12, at most 12), ``n_jobs`` (2), ``families`` (subset),
    ``feature_columns``, ``timeout_s`` (a wall-clock cap for the whole study; none by default),
    ``startup_trials`` (4), ``on_trial`` (called with each finished trial record plus ``best_so_far``
    {algorithm, value, trial} or None, for progress; from Optuna's worker threads when n_jobs > 1).
    ValueError (as ``competition.prepare`` raises it) when the table cannot be tuned on.
    """
    import optuna
    from optuna.samplers import TPESampler
    from sklearn.metrics import accuracy_score, mean_absolute_error
    from sklearn.model_selection import train_test_split

    from lab.models.competition import prepare, split_positions
    from lab.models.preprocess import build_preprocessor

    options = dict(options or {})
    seed = int(options.get("seed", 42))
    n_trials = int(options.get("n_trials", MAX_TRIALS))
    if not 1 <= n_trials <= MAX_TRIALS:
        raise ValueError(f"n_trials must be between 1 and {MAX_TRIALS}")
    n_jobs = max(1, int(options.get("n_jobs", PARALLEL)))
    on_trial: Callable[[dict[str, Any]], None] | None = options.get("on_trial")
    started = time.perf_counter()

    prepared = prepare(frame, target, options.get("feature_columns"), problem_type)
    ptype = prepared.problem_type
    if ptype not in ("classification", "regression"):
        raise ValueError(f"tuning covers classification and regression, not {ptype!r}")
    families, skipped = available_families(options.get("families"))
    if not families:
        raise ValueError(f"no tuning family can run: {skipped}")

    outer_train, _ = split_positions(prepared.y, ptype, seed)
    y_outer = prepared.y[outer_train]
    stratify = y_outer if ptype == "classification" else None
    try:
        fit_pos, val_pos = train_test_split(outer_train, test_size=0.2, random_state=seed, stratify=stratify)
    except ValueError as e:
        raise ValueError(f"too few rows per class for a stratified tuning split: {e}") from e
    x_frame = prepared.frame[prepared.features]
    pre = build_preprocessor(prepared.kinds).fit(x_frame.iloc[fit_pos])
    x_fit, x_val = pre.transform(x_frame.iloc[fit_pos]), pre.transform(x_frame.iloc[val_pos])
    y_fit, y_val = prepared.y[fit_pos], prepared.y[val_pos]
    class_weight = ptype == "classification" and (prepared.imbalance_ratio or 1.0) < 3.0

    maximise = ptype == "classification"
    metric = "val_accuracy" if maximise else "mae"

    def objective(trial: Any) -> float:
        family = trial.suggest_categorical("algorithm", families)
        params = suggest(trial, family)
        model = build_estimator(family, ptype, params, seed, class_weight)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model.fit(x_fit, y_fit)
            pred = np.asarray(model.predict(x_val)).reshape(-1)
        if maximise:
            return float(accuracy_score(y_val, pred.astype(y_val.dtype)))
        return float(mean_absolute_error(y_val, pred))

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
        sampler = TPESampler(
            n_startup_trials=int(options.get("startup_trials", STARTUP_TRIALS)),
            constant_liar=True,
            multivariate=True,
            group=True,
            seed=seed,
        )
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    study = optuna.create_study(direction="maximize" if maximise else "minimize", sampler=sampler)
    for family in families[:n_trials]:
        study.enqueue_trial({"algorithm": family})

    def callback(study: Any, frozen: Any) -> None:
        if on_trial is not None:
            record = _trial_record(frozen)
            try:
                top = study.best_trial
                record["best_so_far"] = {
                    "algorithm": top.params.get("algorithm"),
                    "value": top.value,
                    "trial": top.number,
                }
            except ValueError:  # no trial has completed yet
                record["best_so_far"] = None
            on_trial(record)

    study.optimize(
        objective,
        n_trials=n_trials,
        n_jobs=n_jobs,
        timeout=options.get("timeout_s"),
        catch=(Exception,),
        callbacks=[callback],
        gc_after_trial=False,
    )

    trials = [_trial_record(t) for t in sorted(study.trials, key=lambda t: t.number)]
    intervals = [
        (t.datetime_start.timestamp(), t.datetime_complete.timestamp())
        for t in study.trials
        if t.datetime_start is not None and t.datetime_complete is not None
    ]
    complete = [t for t in trials if t["state"] == "COMPLETE" and t["value"] is not None]
    best_params: dict[str, dict[str, Any]] = {}
    best_by_family: dict[str, dict[str, Any]] = {}
    for t in complete:
        mine = best_by_family.get(t["algorithm"])
        better = mine is None or (t["value"] > mine["value"] if maximise else t["value"] < mine["value"])
        if better:
            best_by_family[t["algorithm"]] = t
    for family, t in best_by_family.items():
        best_params[family] = dict(t["params"])
    best = None
    if complete:
        top = (max if maximise else min)(complete, key=lambda t: t["value"])
        best = {
            "algorithm": top["algorithm"],
            "params": top["params"],
            "value": top["value"],
            "metric": metric,
            "trial": top["number"],
        }
    return {
        "problem_type": ptype,
        "problem_type_detected": prepared.detected,
        "metric": metric,
        "direction": "maximize" if maximise else "minimize",
        "sampler": {
            "name": "TPESampler",
            "startup_trials": int(options.get("startup_trials", STARTUP_TRIALS)),
            "constant_liar": True,
            "multivariate": True,
            "seed": seed,
        },
        "n_trials": len(trials),
        "parallel": n_jobs,
        "max_concurrency": max_concurrency(intervals),
        "families": families,
        "skipped_families": skipped,
        "class_weight": "balanced" if class_weight else None,
        "rows": {
            "fit": len(fit_pos),
            "validation": len(val_pos),
            "held_out_for_training_run": len(prepared.y) - len(outer_train),
        },
        "best": best,
        "best_value": None if best is None else best["value"],
        "best_params": best_params,
        "best_by_family": {f: {"value": t["value"], "trial": t["number"]} for f, t in best_by_family.items()},
        "trials": trials,
        "seconds": round(time.perf_counter() - started, 3),
    }


def _trial_record(t: Any) -> dict[str, Any]:
    family = t.params.get("algorithm")
    prefix = f"{family}."
    params = {k[len(prefix) :]: v for k, v in t.params.items() if k.startswith(prefix)}
    return {
        "number": t.number,
        "algorithm": family,
        "params": params,
        "value": t.value,
        "state": t.state.name,
        "datetime_start": _iso(t.datetime_start),
        "datetime_complete": _iso(t.datetime_complete),
        "seconds": (
            round((t.datetime_complete - t.datetime_start).total_seconds(), 3)
            if t.datetime_start and t.datetime_complete
            else None
        ),
    }
