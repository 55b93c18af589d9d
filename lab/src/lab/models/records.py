"""The per-algorithm record of a classification/regression run (from what its process left in
its directory) and the winner's feature importance; split from ``lab.models.run``."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from lab.models import competition as comp
from lab.models.artifacts import TrainedModel
from lab.models.preprocess import aggregate
from lab.models.roster import Algorithm
from lab.models.runner import Outcome


def algorithm_record(algorithm: Algorithm, outcome: Outcome) -> dict[str, Any]:
    import json

    result_path = outcome.out_dir / "result.json"
    shap_path = outcome.out_dir / "shap.json"
    record: dict[str, Any] = {
        "algorithm": algorithm.name,
        "status": "failed",
        "reason": outcome.reason,
        "metrics": None,
        "seconds": outcome.seconds,
        "shap": {
            "status": "skipped",
            "explainer": algorithm.explainer,
            "reason": "the algorithm did not train",
        },
    }
    if result_path.exists() and outcome.status in ("finished", "timed_out"):
        result = json.loads(result_path.read_text())
        record.update(
            status="trained",
            reason=None,
            metrics=result["metrics"],
            fit_seconds=result["fit_seconds"],
            class_weight=result["class_weight"],
            best_iteration=result["best_iteration"],
            _sample=result["sample_predictions"],
        )
        if shap_path.exists():
            record["shap"] = json.loads(shap_path.read_text())
        else:
            record["shap"] = {
                "status": "timed_out",
                "explainer": algorithm.explainer,
                "reason": outcome.reason,
            }
    elif outcome.status == "timed_out":
        record["status"] = "timed_out"
    elif outcome.status == "finished":
        record["reason"] = "the process ended without a result"
    return record


def feature_importance(
    model: TrainedModel, groups: list[tuple[str, int, int]], val: pd.DataFrame, y_val: np.ndarray, seed: int
) -> tuple[str, list[dict[str, Any]]]:
    est = model.pipeline.named_steps["model"]
    raw = getattr(est, "feature_importances_", None)
    method = "model"
    if raw is None and hasattr(est, "coef_"):
        coef = np.abs(np.asarray(est.coef_, dtype=np.float64))
        raw = coef.reshape(-1, coef.shape[-1]).sum(axis=0)
        method = "abs_coefficients"
    if raw is not None:
        per_feature = aggregate(np.asarray(raw, dtype=np.float64).reshape(1, -1), groups)[0]
        names = [g[0] for g in groups]
    else:
        from sklearn.inspection import permutation_importance

        sample = val.iloc[: comp.SHAP_MAX_ROWS]
        scoring = "accuracy" if model.classes is not None else "neg_mean_absolute_error"
        res = permutation_importance(
            model.pipeline, sample, y_val[: len(sample)], n_repeats=3, random_state=seed, scoring=scoring
        )
        per_feature = np.clip(res.importances_mean, 0.0, None)
        names = list(sample.columns)
        method = "permutation"
    total = float(per_feature.sum())
    shares = per_feature / total if total > 0 else per_feature
    order = np.argsort(-shares, kind="stable")
    return method, [{"feature": names[i], "importance": round(float(shares[i]), 6)} for i in order]
