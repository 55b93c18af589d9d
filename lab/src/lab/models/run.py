"""``train``: one classification/regression competition from a table to a RunResult and an artifact.

``train_handler`` is the same as a job handler for ``lab.jobs`` (job data in the docstring).
Time-series and anomaly runs go to ``lab.models.series_run`` (same RunResult envelope); the
per-algorithm records and feature importance are in ``lab.models.records``.
The RunResult is a JSON-serialisable dict; see docs/foundry-models.md for every field.
"""

from __future__ import annotations

import base64
import os
import shutil
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from lab.models import competition as comp
from lab.models.artifacts import TrainedModel, serialize, write_artifact
from lab.models.data import TableRef, load_frame
from lab.models.preprocess import build_preprocessor, output_groups
from lab.models.records import algorithm_record, feature_importance
from lab.models.roster import CRITERION, Algorithm, roster, with_params
from lab.models.runner import Outcome, Task, default_memory_limit_mb, run_tasks

DEFAULT_TIMEOUT_S = 300.0
DEFAULT_N_ESTIMATORS = 300
SHAP_BACKGROUND_ROWS = 200


@dataclass
class TrainOptions:
    seed: int = 42
    timeout_s: float = DEFAULT_TIMEOUT_S  # per algorithm, wall clock, its process included
    algorithm_timeouts: dict[str, float] = field(default_factory=dict)  # by name, overrides timeout_s
    memory_limit_mb: int | None = None  # per algorithm process (RLIMIT_AS); None: 3/4 of RAM / parallel
    parallel: int = 1  # algorithm processes at once
    n_jobs: int | None = None  # threads per algorithm; None: CPUs / parallel
    row_limit: int | None = None  # None: LAKEHOUSE_ROW_LIMIT or 500,000
    n_estimators: int = DEFAULT_N_ESTIMATORS  # trees (an upper bound where early stopping applies)
    shap_rows: int = comp.SHAP_MAX_ROWS
    shap_budget_s: float = 60.0  # SHAP time per algorithm; fewer rows when exact SHAP is slower
    sample_predictions: int = 20
    algorithms: list[str] | None = None  # restrict the roster by name (None: the full roster)
    # Tuned hyperparameters by algorithm name ({"XGBoost": {"max_depth": 4}}), set over the roster's
    # own (roster.with_params); a tuning experiment's best_params (lab.models.tune_job).
    params: dict[str, dict[str, Any]] = field(default_factory=dict)
    extra_algorithms: Sequence[Algorithm] = ()  # Python-only hook (tests): appended to the roster
    artifact_dir: str | None = None  # write <dir>/<sha256>.joblib
    progress: Callable[[dict[str, Any]], None] | None = field(default=None, repr=False)

    @classmethod
    def from_value(cls, value: TrainOptions | Mapping[str, Any] | None) -> TrainOptions:
        if value is None:
            return cls()
        if isinstance(value, TrainOptions):
            return value
        if not isinstance(value, Mapping):
            raise ValueError("options must be an object")
        known = set(cls.__dataclass_fields__)
        unknown = sorted(set(value) - known)
        if unknown:
            raise ValueError(f"unknown training option(s) {unknown}")
        opts = cls(**dict(value))
        opts.check()
        return opts

    def check(self) -> None:
        def positive(name: str, v: Any, kind: type | tuple[type, ...] = (int, float)) -> None:
            if isinstance(v, bool) or not isinstance(v, kind) or v <= 0:
                raise ValueError(f"option {name} must be a positive number, got {v!r}")

        positive("timeout_s", self.timeout_s)
        if not isinstance(self.algorithm_timeouts, dict):
            raise ValueError("option algorithm_timeouts must map algorithm names to seconds")
        for name, seconds in self.algorithm_timeouts.items():
            positive(f"algorithm_timeouts[{name!r}]", seconds)
        positive("parallel", self.parallel, int)
        positive("n_estimators", self.n_estimators, int)
        positive("shap_rows", self.shap_rows, int)
        positive("shap_budget_s", self.shap_budget_s)
        for name in ("memory_limit_mb", "n_jobs", "row_limit"):
            if getattr(self, name) is not None:
                positive(name, getattr(self, name), int)
        if not isinstance(self.seed, int) or isinstance(self.seed, bool):
            raise ValueError("option seed must be an integer")
        if self.algorithms is not None and (
            not isinstance(self.algorithms, list) or not all(isinstance(a, str) for a in self.algorithms)
        ):
            raise ValueError("option algorithms must be a list of algorithm names")
        if not isinstance(self.params, dict) or not all(
            isinstance(k, str) and isinstance(v, dict) and all(isinstance(h, str) for h in v)
            for k, v in self.params.items()
        ):
            raise ValueError("option params must map algorithm names to {hyperparameter: value}")


def _json_value(v: Any) -> Any:
    if isinstance(v, np.generic):
        return v.item()
    return v


def _counts(y: np.ndarray, classes: list[Any]) -> dict[str, int]:
    counts = np.bincount(y.astype(np.int64), minlength=len(classes))
    return {str(c): int(n) for c, n in zip(classes, counts, strict=True)}


def train_with_artifact(
    source: Any,
    target: str,
    feature_columns: list[str] | None = None,
    problem_type: str | None = None,
    options: TrainOptions | Mapping[str, Any] | None = None,
    label_column: str | None = None,
) -> tuple[dict[str, Any], bytes | None]:
    """The RunResult and the winning artifact's bytes (None when no algorithm trained).

    ``timeseries`` and ``anomaly`` go to ``lab.models.series_run`` (``label_column``: anomaly only).
    """
    opts = TrainOptions.from_value(options)
    if problem_type in ("timeseries", "anomaly"):
        from lab.models.series_run import train_series

        return train_series(source, target, feature_columns, problem_type, opts, label_column)
    started = time.monotonic()
    loaded = load_frame(source, opts.row_limit)
    prep = comp.prepare(loaded.frame, target, feature_columns, problem_type)
    kept = np.flatnonzero(loaded.frame[target].notna().to_numpy())
    train_pos, val_pos = comp.split_positions(prep.y, prep.problem_type, opts.seed)
    train_frame = prep.frame.iloc[train_pos][prep.features]
    val_frame = prep.frame.iloc[val_pos][prep.features]
    y_train, y_val = prep.y[train_pos], prep.y[val_pos]

    baseline = comp.drift_baseline(train_frame, prep.kinds)  # rule 8: before SMOTE
    preprocessor = build_preprocessor(prep.kinds).fit(train_frame)
    x_train = np.asarray(preprocessor.transform(train_frame), dtype=np.float64)
    x_val = np.asarray(preprocessor.transform(val_frame), dtype=np.float64)
    groups = output_groups(preprocessor)

    ratio = prep.imbalance_ratio
    smote_applied = False
    smote_reason: str | None = None
    class_weight = ratio is not None and ratio < comp.CLASS_WEIGHT_BELOW
    x_fit, y_fit = x_train, y_train
    if ratio is not None and ratio > comp.SMOTE_ABOVE:
        smallest = int(np.bincount(y_train).min())
        if smallest < 2:
            smote_reason = "the smallest class has fewer than 2 training rows"
        else:
            from imblearn.over_sampling import SMOTE

            smote = SMOTE(random_state=opts.seed, k_neighbors=min(5, smallest - 1))
            x_fit, y_fit = smote.fit_resample(x_train, y_train)
            smote_applied = True

    rng = np.random.default_rng(opts.seed)
    shap_idx = np.sort(rng.choice(len(x_val), size=min(opts.shap_rows, len(x_val)), replace=False))
    bg_idx = np.sort(rng.choice(len(x_train), size=min(SHAP_BACKGROUND_ROWS, len(x_train)), replace=False))

    candidates = [*roster(prep.problem_type), *opts.extra_algorithms]
    if opts.algorithms is not None:
        names = {a.name for a in candidates}
        unknown = sorted(set(opts.algorithms) - names)
        if unknown:
            raise ValueError(f"unknown algorithm(s) {unknown} for {prep.problem_type}")
        candidates = [a for a in candidates if a.name in set(opts.algorithms)]
    if opts.params:
        known = {a.name for a in [*roster(prep.problem_type), *opts.extra_algorithms]}
        unknown = sorted(set(opts.params) - known)
        if unknown:
            raise ValueError(f"params for unknown algorithm(s) {unknown} for {prep.problem_type}")
        # Params of an algorithm the run leaves out (options.algorithms) are simply unused.
        candidates = [with_params(a, opts.params.get(a.name)) for a in candidates]

    n_rows = len(prep.frame)
    parallel = opts.parallel
    memory_mb = opts.memory_limit_mb or default_memory_limit_mb(parallel)
    settings = {
        "seed": opts.seed,
        "n_jobs": opts.n_jobs or max(1, (os.cpu_count() or 1) // parallel),
        "n_estimators": opts.n_estimators,
        "class_weight": class_weight,
        "shap_budget_s": opts.shap_budget_s,
        "sample_predictions": opts.sample_predictions,
    }
    run_dir = Path(tempfile.mkdtemp(prefix="lab-model-run-"))
    records: dict[str, dict[str, Any]] = {}
    try:
        data_dir = comp.write_data(
            run_dir,
            {
                "x_train": x_fit,
                "y_train": y_fit,
                "x_val": x_val,
                "y_val": y_val,
                "x_shap": x_val[shap_idx],
                "x_background": x_train[bg_idx],
            },
            {
                "problem_type": prep.problem_type,
                "n_classes": len(prep.classes) if prep.classes else None,
                "groups": groups,
            },
        )
        tasks: list[Task] = []
        by_name: dict[str, Algorithm] = {}
        for algo in candidates:
            if algo.max_rows is not None and n_rows > algo.max_rows:
                records[algo.name] = {
                    "algorithm": algo.name,
                    "status": "skipped",
                    "reason": f"{algo.name} runs only on {algo.max_rows:,} rows or fewer; "
                    f"this table has {n_rows:,}",
                    "metrics": None,
                    "seconds": 0.0,
                    "shap": {
                        "status": "skipped",
                        "explainer": algo.explainer,
                        "reason": "the algorithm was skipped",
                    },
                }
                continue
            by_name[algo.name] = algo
            tasks.append(
                Task(
                    algo.name,
                    comp.train_one,
                    (algo, data_dir, settings),
                    run_dir / "algo" / algo.name,
                    opts.algorithm_timeouts.get(algo.name),
                )
            )

        done = 0

        def on_outcome(outcome: Outcome) -> None:
            nonlocal done
            done += 1
            records[outcome.name] = algorithm_record(by_name[outcome.name], outcome)
            if opts.params.get(outcome.name):
                records[outcome.name]["params"] = dict(opts.params[outcome.name])
            if opts.progress is not None:
                public = {k: v for k, v in records[outcome.name].items() if not k.startswith("_")}
                opts.progress({"stage": "training", "done": done, "total": len(tasks), "record": public})

        if opts.progress is not None:
            opts.progress({"stage": "training", "done": 0, "total": len(tasks), "record": None})
        run_tasks(
            tasks, timeout_s=opts.timeout_s, memory_mb=memory_mb, parallel=parallel, on_outcome=on_outcome
        )

        ordered = [records[a.name] for a in candidates]
        metric, higher = CRITERION[prep.problem_type]
        trained = [r for r in ordered if r["status"] == "trained" and r["metrics"].get(metric) is not None]
        winner_record = None
        if trained:
            best = max if higher else min
            winner_record = best(trained, key=lambda r: r["metrics"][metric])  # first of equals: roster order

        model = None
        if winner_record is not None:
            import joblib
            from sklearn.pipeline import Pipeline

            estimator = joblib.load(run_dir / "algo" / winner_record["algorithm"] / "model.joblib")
            model = TrainedModel(
                pipeline=Pipeline([("preprocess", preprocessor), ("model", estimator)]),
                problem_type=prep.problem_type,
                target=target,
                features=prep.features,
                classes=prep.classes,
                algorithm=winner_record["algorithm"],
            )
    finally:
        shutil.rmtree(run_dir, ignore_errors=True)

    result: dict[str, Any] = {
        "status": "succeeded" if model is not None else "failed",
        "reason": None if model is not None else "no algorithm trained",
        "problem_type": prep.problem_type,
        "problem_type_detected": prep.detected,
        "detection_rule": comp.AUTO_RULE if prep.detected else None,
        "target": target,
        "features": prep.features,
        "feature_kinds": {"numeric": prep.kinds.numeric, "categorical": prep.kinds.categorical},
        "rows": n_rows,
        "row_limit": loaded.limit,
        "rows_truncated": loaded.truncated,
        "rows_dropped_null_target": prep.dropped_null_target,
        "split": {
            "train": len(train_pos),
            "validation": len(val_pos),
            "stratified": prep.problem_type == "classification",
            "seed": opts.seed,
            "train_after_smote": int(len(y_fit)) if smote_applied else None,
            "class_counts": None
            if prep.classes is None
            else {
                "train": _counts(y_train, prep.classes),
                "validation": _counts(y_val, prep.classes),
                "train_after_smote": _counts(y_fit, prep.classes) if smote_applied else None,
            },
        },
        "classes": prep.classes,
        "class_counts": prep.class_counts,
        "imbalance_ratio": ratio,
        "smote_applied": smote_applied,
        "smote_reason": smote_reason,
        "class_weight_applied": class_weight,
        "criterion": {"metric": metric, "higher_is_better": higher},
        "timeout_s": opts.timeout_s,
        "algorithm_timeouts": dict(opts.algorithm_timeouts),
        "memory_limit_mb": memory_mb,
        "algorithms": [{k: v for k, v in r.items() if not k.startswith("_")} for r in ordered],
        "winner": None,
        "metrics": None,
        "feature_importance": None,
        "feature_importance_method": None,
        "shap": None,
        "drift_baseline": baseline,
        "validation_sample": None,
        "artifact": None,
        "seconds": None,
    }
    data: bytes | None = None
    if model is not None and winner_record is not None:
        sample = winner_record["_sample"]
        if prep.classes is not None:
            sample = [_json_value(prep.classes[int(i)]) for i in sample]
        method, importance = feature_importance(model, groups, val_frame, y_val, opts.seed)
        data, digest = serialize(model)
        result.update(
            winner={
                "algorithm": winner_record["algorithm"],
                "metric": metric,
                "value": winner_record["metrics"][metric],
            },
            metrics=winner_record["metrics"],
            feature_importance=importance,
            feature_importance_method=method,
            shap=winner_record["shap"],
            validation_sample={"rows": [int(kept[p]) for p in val_pos[: len(sample)]], "predictions": sample},
            artifact={"sha256": digest, "bytes": len(data), "format": model.format},
        )
        if prep.classes is not None and len(prep.classes) == 2:
            result["validation_scores"] = validation_scores(model, val_frame, y_val)
        if opts.artifact_dir is not None:
            result["artifact"]["path"] = str(write_artifact(data, opts.artifact_dir))
        # The ONNX fast path (docs/foundry-onnx.md): `<sha256>.onnx` beside the artifact, or why not.
        from lab.models.onnx_export import onnx_record

        result["artifact"]["onnx"] = onnx_record(model, val_frame, opts.artifact_dir)
    result["seconds"] = round(time.monotonic() - started, 3)
    return result, data


# Validation rows whose scores a binary run keeps (the threshold search of the serving side).
VALIDATION_SCORES_MAX = 5000


def validation_scores(model: TrainedModel, val_frame: Any, y_val: np.ndarray) -> dict[str, Any]:
    """Binary runs: the winner's positive-class probability and the 0/1 label of each validation
    row (the positive class is ``classes[1]``), for the service's best-threshold search
    (docs/foundry-serving.md). Compact: 6 decimals, at most VALIDATION_SCORES_MAX rows."""
    n = min(len(val_frame), VALIDATION_SCORES_MAX)
    scores = model.predict_proba(val_frame.iloc[:n])[:, 1]
    return {
        "positive_class": _json_value(model.classes[1]),
        "scores": [round(float(v), 6) for v in scores],
        "labels": [int(v) for v in np.asarray(y_val[:n]).astype(np.int64)],
    }


def check_request(
    source: Any,
    target: str,
    feature_columns: list[str] | None = None,
    problem_type: str | None = None,
    row_limit: int | None = None,
    label_column: str | None = None,
) -> dict[str, Any]:
    """The input checks of a run without training (for a 4xx before a job is queued).

    Raises the same ``ValueError`` as :func:`train` would; returns what the run would see.
    """
    loaded = load_frame(source, row_limit)
    if problem_type in ("timeseries", "anomaly"):
        from lab.models.series_run import check_series

        return check_series(loaded.frame, target, feature_columns, problem_type, label_column)
    prep = comp.prepare(loaded.frame, target, feature_columns, problem_type)
    return {
        "problem_type": prep.problem_type,
        "problem_type_detected": prep.detected,
        "rows": len(prep.frame),
        "rows_truncated": loaded.truncated,
        "features": prep.features,
        "feature_kinds": {"numeric": prep.kinds.numeric, "categorical": prep.kinds.categorical},
        "classes": prep.classes,
        "class_counts": prep.class_counts,
        "imbalance_ratio": prep.imbalance_ratio,
    }


def train(
    source: Any,
    target: str,
    feature_columns: list[str] | None = None,
    problem_type: str | None = None,
    options: TrainOptions | Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The RunResult; the artifact goes to ``options.artifact_dir`` when given."""
    result, _ = train_with_artifact(source, target, feature_columns, problem_type, options)
    return result


JSON_OPTIONS = (
    "seed",
    "timeout_s",
    "algorithm_timeouts",
    "memory_limit_mb",
    "parallel",
    "n_jobs",
    "row_limit",
    "n_estimators",
    "shap_rows",
    "shap_budget_s",
    "algorithms",
    "params",
)


def train_handler(ctx: Any) -> Any:
    """Job handler. ``ctx.data``::

        {"catalog_uri": "sqlite:////abs/catalog.db", "warehouse": "/abs/warehouse",
         "namespace": "t_<tenant>", "table": "<dataset output table>",
         "target_column": "...", "feature_columns": [...] (optional), "problem_type": ... (optional),
         "artifact_dir": "/abs/dir" (optional: else the artifact comes back base64 in the result),
         "label_column": "..." (optional, anomaly only: non-zero = a labelled anomaly),
         "options": {seed, timeout_s, memory_limit_mb, parallel, n_jobs, row_limit, n_estimators,
                     shap_rows, shap_budget_s, algorithms,
                     params: {algorithm: {hyperparameter: value}}} (optional)}

    Returns the RunResult; progress reports ``{"stage", "done", "total", "record"}`` per algorithm.
    """
    data = ctx.data
    if not isinstance(data, dict):
        raise ValueError("train: job data must be an object")
    for key in ("catalog_uri", "warehouse", "namespace", "table", "target_column"):
        if not isinstance(data.get(key), str) or not data[key]:
            raise ValueError(f"train: data.{key} must be a non-empty string")
    features = data.get("feature_columns")
    if features is not None and (
        not isinstance(features, list) or not all(isinstance(f, str) for f in features)
    ):
        raise ValueError("train: data.feature_columns must be a list of column names")
    raw_options = data.get("options") or {}
    if not isinstance(raw_options, dict):
        raise ValueError("train: data.options must be an object")
    unknown = sorted(set(raw_options) - set(JSON_OPTIONS))
    if unknown:
        raise ValueError(f"train: unknown option(s) {unknown}")
    artifact_dir = data.get("artifact_dir")
    if artifact_dir is not None and not isinstance(artifact_dir, str):
        raise ValueError("train: data.artifact_dir must be a path")
    label_column = data.get("label_column")
    if label_column is not None and (not isinstance(label_column, str) or not label_column):
        raise ValueError("train: data.label_column must be a column name")
    options = TrainOptions.from_value({**raw_options, "artifact_dir": artifact_dir})
    options.progress = ctx.progress

    from lab.lakehouse.catalog import open_catalog
    from lab.lakehouse.store import Lakehouse

    lakehouse = Lakehouse(open_catalog(data["catalog_uri"], data["warehouse"]))
    source = TableRef(lakehouse, data["namespace"], data["table"])
    result, blob = train_with_artifact(
        source, data["target_column"], features, data.get("problem_type"), options, label_column
    )
    if blob is not None and artifact_dir is None:
        result["artifact"]["base64"] = base64.b64encode(blob).decode("ascii")
    return result
