"""``tune_handler``: the ``models.tune`` job (spec 4.9 tuning; docs/foundry-models.md "Tuning").

Loads the dataset's Iceberg table as a training run does (``LAKEHOUSE_ROW_LIMIT``), runs the
Optuna study of :func:`lab.models.tuning.tune` (12 trials, 2 at a time) and returns its result
with a ``status``. Progress is reported once at the start and once per finished trial::

    {"stage": "tuning", "done": k, "total": 12, "trial": {...}, "best": {algorithm, value} | null}

Optuna runs parallel trials on its own threads and calls back from them, but a job context is
not thread-safe (the embedded queue's SQLite connection belongs to the handler's thread). So the
study runs on a helper thread and hands each finished trial over a queue; the handler's thread
reports it.
"""

from __future__ import annotations

import queue
import threading
from typing import Any

from lab.models.tuning import MAX_TRIALS, PARALLEL

# Options the service may pass (data.options); anything else fails the job at the edge.
JSON_OPTIONS = ("seed", "n_trials", "parallel", "families", "timeout_s", "startup_trials", "row_limit")


def _options(raw: Any) -> dict[str, Any]:
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise ValueError("tune: data.options must be an object")
    unknown = sorted(set(raw) - set(JSON_OPTIONS))
    if unknown:
        raise ValueError(f"tune: unknown option(s) {unknown}")
    for key in ("seed", "n_trials", "parallel", "startup_trials", "row_limit"):
        value = raw.get(key)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
            raise ValueError(f"tune: option {key} must be an integer")
    timeout = raw.get("timeout_s")
    if timeout is not None and (
        isinstance(timeout, bool) or not isinstance(timeout, int | float) or timeout <= 0
    ):
        raise ValueError("tune: option timeout_s must be a positive number")
    families = raw.get("families")
    if families is not None and (
        not isinstance(families, list) or not all(isinstance(f, str) for f in families)
    ):
        raise ValueError("tune: option families must be a list of algorithm names")
    return dict(raw)


def _validate(data: Any) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise ValueError("tune: job data must be an object")
    for key in ("catalog_uri", "warehouse", "namespace", "table", "target_column"):
        if not isinstance(data.get(key), str) or not data[key]:
            raise ValueError(f"tune: data.{key} must be a non-empty string")
    features = data.get("feature_columns")
    if features is not None and (
        not isinstance(features, list) or not all(isinstance(f, str) for f in features)
    ):
        raise ValueError("tune: data.feature_columns must be a list of column names")
    problem = data.get("problem_type")
    if problem not in (None, "auto", "classification", "regression"):
        raise ValueError("tune: data.problem_type must be classification, regression or auto")
    return data


def tune_source(source: Any, data: dict[str, Any], progress: Any) -> dict[str, Any]:
    """The study over ``source`` (a frame or a TableRef) with the job's options; ``progress`` is
    called on the caller's thread only."""
    from lab.models.data import load_frame
    from lab.models.tuning import tune

    options = _options(data.get("options"))
    loaded = load_frame(source, options.pop("row_limit", None))
    total = int(options.get("n_trials", MAX_TRIALS))
    parallel = int(options.pop("parallel", PARALLEL))
    finished: queue.Queue[dict[str, Any] | None] = queue.Queue()
    outcome: dict[str, Any] = {}
    study_options = {
        **options,
        "n_jobs": parallel,
        "feature_columns": data.get("feature_columns") or None,
        "on_trial": finished.put,
    }
    problem = data.get("problem_type")

    def run() -> None:
        try:
            outcome["result"] = tune(
                loaded.frame, data["target_column"], None if problem == "auto" else problem, study_options
            )
        except BaseException as e:  # noqa: BLE001 - re-raised on the handler's thread
            outcome["error"] = e
        finally:
            finished.put(None)

    progress({"stage": "tuning", "done": 0, "total": total, "trial": None, "best": None})
    worker = threading.Thread(target=run, name="optuna-study", daemon=True)
    worker.start()
    done = 0
    while (trial := finished.get()) is not None:
        done += 1
        best = trial.pop("best_so_far", None)
        progress({"stage": "tuning", "done": done, "total": total, "trial": trial, "best": best})
    worker.join()
    if "error" in outcome:
        raise outcome["error"]
    result = outcome["result"]
    result["rows_loaded"] = len(loaded.frame)
    result["rows_truncated"] = loaded.truncated
    result["row_limit"] = loaded.limit
    if result["best"] is None:
        result.update(status="failed", reason="no tuning trial completed")
    else:
        result.update(status="succeeded", reason=None)
    return result


def tune_handler(ctx: Any) -> Any:
    """Job handler. ``ctx.data``::

        {"catalog_uri": "sqlite:////abs/catalog.db", "warehouse": "/abs/warehouse",
         "namespace": "t_<tenant>", "table": "<dataset output table>", "target_column": "y",
         "feature_columns": [...] (optional),
         "problem_type": "classification" | "regression" | "auto" (optional),
         "options": {seed, n_trials (<= 12), parallel (2), families, timeout_s, startup_trials, row_limit}}

    Returns :func:`lab.models.tuning.tune`'s result plus ``status`` (succeeded | failed),
    ``reason``, ``rows_loaded``, ``rows_truncated`` and ``row_limit``.
    """
    data = _validate(ctx.data)

    from lab.lakehouse.catalog import open_catalog
    from lab.lakehouse.store import Lakehouse
    from lab.models.data import TableRef

    lakehouse = Lakehouse(open_catalog(data["catalog_uri"], data["warehouse"]))
    source = TableRef(lakehouse, data["namespace"], data["table"])
    return tune_source(source, data, ctx.progress)
