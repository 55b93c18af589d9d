"""The spec 4.9 algorithm roster for classification and regression.

Every entry names its builder (a top-level function, so a spawned process can unpickle it),
its row limit, its SHAP explainer and whether ``class_weight='balanced'`` applies to it. The
boosted trees stop early on a 10 % slice of the training split (never the validation split).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

Explainer = Literal["tree", "linear"] | None
EARLY_STOPPING_ROUNDS = 30
EARLY_STOPPING_SHARE = 0.1


@dataclass(frozen=True)
class Params:
    """What a builder gets: the run's seed, threads, trees and the class-weight decision."""

    seed: int
    n_jobs: int
    n_estimators: int
    class_weight: bool
    n_classes: int | None = None


@dataclass(frozen=True)
class Algorithm:
    name: str
    problem_type: Literal["classification", "regression"]
    build: Callable[[Params], Any]
    max_rows: int | None = None
    explainer: Explainer = None
    class_weight: bool = False
    # "xgboost" | "lightgbm" | "catboost": early stopping through fit(); None: plain fit.
    early_stopping: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)


# -- builders (imports are lazy so a child imports only its own library) ------------------------


def _cw(p: Params) -> str | None:
    return "balanced" if p.class_weight else None


def xgb_classifier(p: Params) -> Any:
    from xgboost import XGBClassifier

    return XGBClassifier(
        n_estimators=p.n_estimators,
        learning_rate=0.1,
        max_depth=6,
        tree_method="hist",
        early_stopping_rounds=EARLY_STOPPING_ROUNDS,
        eval_metric="logloss" if (p.n_classes or 2) <= 2 else "mlogloss",
        random_state=p.seed,
        n_jobs=p.n_jobs,
        verbosity=0,
    )


def xgb_regressor(p: Params) -> Any:
    from xgboost import XGBRegressor

    return XGBRegressor(
        n_estimators=p.n_estimators,
        learning_rate=0.1,
        max_depth=6,
        tree_method="hist",
        early_stopping_rounds=EARLY_STOPPING_ROUNDS,
        random_state=p.seed,
        n_jobs=p.n_jobs,
        verbosity=0,
    )


def lgbm_classifier(p: Params) -> Any:
    from lightgbm import LGBMClassifier

    return LGBMClassifier(
        n_estimators=p.n_estimators,
        learning_rate=0.1,
        class_weight=_cw(p),
        random_state=p.seed,
        n_jobs=p.n_jobs,
        verbose=-1,
    )


def lgbm_regressor(p: Params) -> Any:
    from lightgbm import LGBMRegressor

    return LGBMRegressor(
        n_estimators=p.n_estimators, learning_rate=0.1, random_state=p.seed, n_jobs=p.n_jobs, verbose=-1
    )


def catboost_classifier(p: Params) -> Any:
    from catboost import CatBoostClassifier

    return CatBoostClassifier(
        iterations=p.n_estimators,
        random_seed=p.seed,
        thread_count=p.n_jobs,
        verbose=False,
        allow_writing_files=False,
    )


def catboost_regressor(p: Params) -> Any:
    from catboost import CatBoostRegressor

    return CatBoostRegressor(
        iterations=p.n_estimators,
        random_seed=p.seed,
        thread_count=p.n_jobs,
        verbose=False,
        allow_writing_files=False,
    )


def rf_classifier(p: Params) -> Any:
    from sklearn.ensemble import RandomForestClassifier

    return RandomForestClassifier(
        n_estimators=p.n_estimators, class_weight=_cw(p), random_state=p.seed, n_jobs=p.n_jobs
    )


def rf_regressor(p: Params) -> Any:
    from sklearn.ensemble import RandomForestRegressor

    return RandomForestRegressor(n_estimators=p.n_estimators, random_state=p.seed, n_jobs=p.n_jobs)


def et_classifier(p: Params) -> Any:
    from sklearn.ensemble import ExtraTreesClassifier

    return ExtraTreesClassifier(
        n_estimators=p.n_estimators, class_weight=_cw(p), random_state=p.seed, n_jobs=p.n_jobs
    )


def et_regressor(p: Params) -> Any:
    from sklearn.ensemble import ExtraTreesRegressor

    return ExtraTreesRegressor(n_estimators=p.n_estimators, random_state=p.seed, n_jobs=p.n_jobs)


def gb_classifier(p: Params) -> Any:
    from sklearn.ensemble import GradientBoostingClassifier

    # sklearn's own early stopping: 10 % of the training split, 10 rounds without improvement.
    return GradientBoostingClassifier(
        n_estimators=p.n_estimators,
        validation_fraction=EARLY_STOPPING_SHARE,
        n_iter_no_change=10,
        random_state=p.seed,
    )


def gb_regressor(p: Params) -> Any:
    from sklearn.ensemble import GradientBoostingRegressor

    return GradientBoostingRegressor(
        n_estimators=p.n_estimators,
        validation_fraction=EARLY_STOPPING_SHARE,
        n_iter_no_change=10,
        random_state=p.seed,
    )


def logistic_regression(p: Params) -> Any:
    from sklearn.linear_model import LogisticRegression

    return LogisticRegression(max_iter=2000, class_weight=_cw(p), random_state=p.seed)


def svc(p: Params) -> Any:
    from sklearn.calibration import CalibratedClassifierCV
    from sklearn.svm import SVC

    # SVC(probability=True) is deprecated in scikit-learn 1.9: the same Platt scaling, spelt out.
    return CalibratedClassifierCV(SVC(class_weight=_cw(p), random_state=p.seed), ensemble=False)


def ridge(p: Params) -> Any:
    from sklearn.linear_model import Ridge

    return Ridge(random_state=p.seed)


def lasso(p: Params) -> Any:
    from sklearn.linear_model import Lasso

    return Lasso(max_iter=5000, random_state=p.seed)


def elastic_net(p: Params) -> Any:
    from sklearn.linear_model import ElasticNet

    return ElasticNet(max_iter=5000, random_state=p.seed)


def svr(p: Params) -> Any:
    from sklearn.svm import SVR

    return SVR()


SVC_MAX_ROWS = 5_000
SVR_MAX_ROWS = 10_000

CLASSIFICATION: tuple[Algorithm, ...] = (
    Algorithm("XGBoost", "classification", xgb_classifier, explainer="tree", early_stopping="xgboost"),
    Algorithm(
        "LightGBM",
        "classification",
        lgbm_classifier,
        explainer="tree",
        class_weight=True,
        early_stopping="lightgbm",
    ),
    Algorithm("CatBoost", "classification", catboost_classifier, explainer="tree", early_stopping="catboost"),
    Algorithm("RandomForest", "classification", rf_classifier, explainer="tree", class_weight=True),
    Algorithm("ExtraTrees", "classification", et_classifier, explainer="tree", class_weight=True),
    Algorithm("GradientBoosting", "classification", gb_classifier, explainer="tree"),
    Algorithm(
        "LogisticRegression", "classification", logistic_regression, explainer="linear", class_weight=True
    ),
    Algorithm("SVC", "classification", svc, max_rows=SVC_MAX_ROWS, class_weight=True),
)

REGRESSION: tuple[Algorithm, ...] = (
    Algorithm("XGBoost", "regression", xgb_regressor, explainer="tree", early_stopping="xgboost"),
    Algorithm("LightGBM", "regression", lgbm_regressor, explainer="tree", early_stopping="lightgbm"),
    Algorithm("CatBoost", "regression", catboost_regressor, explainer="tree", early_stopping="catboost"),
    Algorithm("RandomForest", "regression", rf_regressor, explainer="tree"),
    Algorithm("ExtraTrees", "regression", et_regressor, explainer="tree"),
    Algorithm("GradientBoosting", "regression", gb_regressor, explainer="tree"),
    Algorithm("Ridge", "regression", ridge, explainer="linear"),
    Algorithm("Lasso", "regression", lasso, explainer="linear"),
    Algorithm("ElasticNet", "regression", elastic_net, explainer="linear"),
    Algorithm("SVR", "regression", svr, max_rows=SVR_MAX_ROWS),
)

# -- tuned hyperparameters (TrainOptions.params, from a tuning experiment) -----------------------

# Settings a tuned hyperparameter needs to take effect in the roster's estimator: tuning's LightGBM
# samples rows with subsample_freq=1 (lab.models.tuning.build_estimator); without it LightGBM
# ignores `subsample`.
_COMPANIONS: dict[str, dict[str, dict[str, Any]]] = {"LightGBM": {"subsample": {"subsample_freq": 1}}}


def build_with_params(build: Callable[[Params], Any], name: str, params: dict[str, Any], p: Params) -> Any:
    """The roster's estimator with the given hyperparameters set over its own; the fixed settings
    (seed, threads, early stopping, class weight) stay unless ``params`` names them."""
    estimator = build(p)
    extra: dict[str, Any] = {}
    for key, implied in _COMPANIONS.get(name, {}).items():
        if key in params:
            extra.update({k: v for k, v in implied.items() if k not in params})
    return estimator.set_params(**{**extra, **params})


def with_params(algorithm: Algorithm, params: dict[str, Any] | None) -> Algorithm:
    """The algorithm, its builder wrapped to apply ``params`` (a partial of top-level functions,
    so a spawned process can still unpickle it); unchanged when ``params`` is empty."""
    if not params:
        return algorithm
    from dataclasses import replace
    from functools import partial

    return replace(algorithm, build=partial(build_with_params, algorithm.build, algorithm.name, dict(params)))


# Winner criterion per problem type: (metric, higher is better).
CRITERION = {"classification": ("val_accuracy", True), "regression": ("mae", False)}


def roster(problem_type: str) -> tuple[Algorithm, ...]:
    if problem_type == "classification":
        return CLASSIFICATION
    if problem_type == "regression":
        return REGRESSION
    raise ValueError(f"no competition roster for problem_type {problem_type!r}")


def fit(algorithm: Algorithm, estimator: Any, x: np.ndarray, y: np.ndarray, seed: int) -> Any:
    """Fits, with early stopping on a 10 % slice of the training split for the boosted trees."""
    if algorithm.early_stopping is None:
        return estimator.fit(x, y)
    from sklearn.model_selection import train_test_split

    stratify = y if algorithm.problem_type == "classification" else None
    try:
        x_fit, x_es, y_fit, y_es = train_test_split(
            x, y, test_size=EARLY_STOPPING_SHARE, random_state=seed, stratify=stratify
        )
    except ValueError:  # a class too small to stratify: fall back to a plain slice
        x_fit, x_es, y_fit, y_es = train_test_split(x, y, test_size=EARLY_STOPPING_SHARE, random_state=seed)
    if algorithm.early_stopping == "xgboost":
        return estimator.fit(x_fit, y_fit, eval_set=[(x_es, y_es)], verbose=False)
    if algorithm.early_stopping == "lightgbm":
        import lightgbm

        return estimator.fit(
            x_fit,
            y_fit,
            eval_X=(x_es,),
            eval_y=(y_es,),
            callbacks=[lightgbm.early_stopping(EARLY_STOPPING_ROUNDS, verbose=False)],
        )
    if algorithm.early_stopping == "catboost":
        return estimator.fit(x_fit, y_fit, eval_set=(x_es, y_es), early_stopping_rounds=EARLY_STOPPING_ROUNDS)
    raise ValueError(f"unknown early stopping kind {algorithm.early_stopping!r}")


def best_iteration(estimator: Any) -> int | None:
    for attr in ("best_iteration", "best_iteration_", "n_estimators_"):
        value = getattr(estimator, attr, None)
        if isinstance(value, int | np.integer):
            return int(value)
    if hasattr(estimator, "get_best_iteration"):
        value = estimator.get_best_iteration()
        return None if value is None else int(value)
    return None
