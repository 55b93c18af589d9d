"""The fast path's model: a fitted lab pipeline (preprocessing included) as one ONNX graph.

The service scores it with onnxruntime-node (adapters/onnx/scorer.ts); docs/foundry-onnx.md is
the contract. Input contract (one input per feature column, named as the column, shape [N, 1]):

- numeric features (numbers, booleans as 0/1, datetimes as epoch seconds, UTC): ``tensor(double)``,
  a missing value is NaN;
- categorical features: ``tensor(string)``, a missing value is the string ``"__missing__"`` (what
  the lab's own preprocessing turns a null into; the empty string stays a category of its own).

Outputs: ``probabilities`` ``tensor(double)`` [N, k] in the order of the model's ``classes``
(classification), or ``values`` ``tensor(double)`` [N, 1] (regression).

Why the preprocessing graph is built here and not by skl2onnx: the lab's ColumnTransformer uses
FunctionTransformers (no converter), SimpleImputer(add_indicator=True) (skl2onnx drops the
indicator) and OneHotEncoder(handle_unknown="infrequent_if_exist") (skl2onnx's graph fails on an
unseen category instead of using the infrequent bucket). lab.models.onnx_graph reproduces
sklearn's arithmetic exactly (double precision, the same Sub then Div); the estimator after it is
converted by skl2onnx (scikit-learn models), onnxmltools (XGBoost, LightGBM) or CatBoost's own
ONNX export. Every export is checked against the pipeline on the sample rows before it is
returned: no wrong model leaves this module.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from lab.models.artifacts import TrainedModel
from lab.models.onnx_graph import ML_OPSET, OPSET, SUPPORTED, estimator_model, preprocess_graph, tree_nodes

MISSING = "__missing__"
TIMEOUT_S = 60.0
MAX_TREE_NODES = 1_000_000  # skl2onnx converts ~30k nodes/s here: beyond this, past the timeout
PARITY_ABS = 1e-5  # probabilities, absolute
PARITY_REL = 1e-5  # regression values, relative
PARITY_ROWS = 2000  # validation rows the export is checked on


@dataclass
class Export:
    """A converted model (``onnx`` bytes and its input/output description) or why not."""

    onnx: bytes | None
    reason: str | None = None
    inputs: list[dict[str, str]] = field(default_factory=list)
    outputs: list[dict[str, Any]] = field(default_factory=list)


def to_onnx(model: TrainedModel, sample: pd.DataFrame) -> bytes | None:
    """The ONNX bytes of ``model`` or None when it cannot be converted faithfully (see :func:`export`)."""
    return export(model, sample).onnx


def onnx_record(model: TrainedModel, sample: pd.DataFrame, directory: str | None) -> dict[str, Any]:
    """``artifact.onnx`` of a RunResult: the converted winner written to ``<directory>/<sha256>.onnx``
    (beside the joblib artifact; local folder or ``s3://``), ``{"status": "unsupported", "reason"}``,
    or ``{"status": "skipped"}`` without a directory (a run that stores no artifact has nothing to
    serve, and does not pay for the conversion). Never raises: the fast path is an optimisation,
    a training run does not fail for it."""
    import hashlib

    if directory is None:
        return {
            "status": "skipped",
            "reason": "no artifact_dir: the .onnx is written beside a stored artifact",
        }
    started = time.monotonic()
    try:
        result = export(model, sample.iloc[:PARITY_ROWS])
        if result.onnx is None:
            return {"status": "unsupported", "reason": result.reason}
        return {
            "status": "converted",
            "sha256": hashlib.sha256(result.onnx).hexdigest(),
            "path": write_onnx(result.onnx, directory),
            "bytes": len(result.onnx),
            "inputs": result.inputs,
            "outputs": result.outputs,
            "seconds": round(time.monotonic() - started, 3),
        }
    except Exception as err:  # writing failed (disk, S3): the joblib artifact still serves
        return {"status": "unsupported", "reason": f"{type(err).__name__}: {err}"[:500]}


def write_onnx(data: bytes, directory: str) -> str:
    """Writes ``<directory>/<sha256>.onnx`` exactly as the joblib artifact is written."""
    from lab.models.artifacts import write_artifact

    return write_artifact(data, directory, suffix=".onnx")


def export(model: TrainedModel, sample: pd.DataFrame, timeout_s: float = TIMEOUT_S) -> Export:
    """Converts, checks parity on ``sample`` (rows with the model's feature columns), within
    ``timeout_s``; an Export with ``onnx=None`` and the reason when anything is unsupported.

    The conversion runs on a daemon thread: past the timeout the caller gets a refusal at once
    (the thread finishes in the background, its result dropped) — a training run never waits
    longer than the bound and never fails because of this step.
    """
    box: dict[str, Any] = {}

    def work() -> None:
        try:
            box["export"] = _export(model, sample)
        except Exception as err:  # a converter bug is a refusal, never a failed run
            box["export"] = Export(None, f"conversion failed: {type(err).__name__}: {err}"[:500])

    thread = threading.Thread(target=work, name="onnx-export", daemon=True)
    thread.start()
    thread.join(timeout_s)
    if thread.is_alive():
        return Export(None, f"conversion took longer than {timeout_s:g} s")
    return box["export"]


def _export(model: TrainedModel, sample: pd.DataFrame) -> Export:
    if model.algorithm not in SUPPORTED:
        return Export(None, f"{model.algorithm} has no ONNX fast path (tree and linear models only)")
    if model.problem_type not in ("classification", "regression"):
        return Export(None, f"problem type {model.problem_type} has no ONNX fast path")
    preprocess = model.pipeline.named_steps["preprocess"]
    estimator = model.pipeline.named_steps["model"]
    nodes = tree_nodes(estimator)
    if nodes > MAX_TREE_NODES:
        return Export(None, f"{nodes:,} tree nodes exceed the fast path's bound of {MAX_TREE_NODES:,}")
    import onnx
    from onnx import TensorProto, helper

    prep_nodes, prep_inits, inputs, width = preprocess_graph(preprocess, sample)
    position = {c: i for i, c in enumerate(model.features)}
    inputs.sort(key=lambda i: position.get(i["name"], len(position)))  # the model's column order
    est = estimator_model(model, estimator, width)
    est = onnx.compose.add_prefix(est, "est_")
    # The estimator's graph reads "est_X" (a double [N, width] matrix); ours writes "cairn_X".
    est_inputs = [i.name for i in est.graph.input]
    if est_inputs != ["est_X"]:
        return Export(None, f"unexpected estimator graph inputs {est_inputs}")
    nodes_out = [helper.make_node("Identity", ["cairn_X"], ["est_X"], name="cairn_to_estimator")]
    outputs = {o.name for o in est.graph.output}
    if model.classes is not None:
        probs = "est_probabilities"
        if probs not in outputs:
            return Export(None, f"the estimator graph has no probabilities output ({sorted(outputs)})")
        final = [helper.make_node("Cast", [probs], ["probabilities"], to=TensorProto.DOUBLE)]
        out_vi = [
            helper.make_tensor_value_info("probabilities", TensorProto.DOUBLE, [None, len(model.classes)])
        ]
        out_desc = [{"name": "probabilities", "type": "float64", "shape": [None, len(model.classes)]}]
    else:
        value = "est_variable"
        if value not in outputs:
            return Export(None, f"the estimator graph has no value output ({sorted(outputs)})")
        final = [helper.make_node("Cast", [value], ["values"], to=TensorProto.DOUBLE)]
        out_vi = [helper.make_tensor_value_info("values", TensorProto.DOUBLE, [None, 1])]
        out_desc = [{"name": "values", "type": "float64", "shape": [None, 1]}]
    in_vi = [
        helper.make_tensor_value_info(
            i["name"], TensorProto.STRING if i["type"] == "string" else TensorProto.DOUBLE, [None, 1]
        )
        for i in inputs
    ]
    graph = helper.make_graph(
        prep_nodes + nodes_out + list(est.graph.node) + final,
        "cairn_model",
        in_vi,
        out_vi,
        initializer=prep_inits + list(est.graph.initializer),
    )
    opsets = {o.domain: o.version for o in est.opset_import}
    opsets[""] = max(opsets.get("", OPSET), OPSET)
    opsets["ai.onnx.ml"] = max(opsets.get("ai.onnx.ml", ML_OPSET), ML_OPSET)
    merged = helper.make_model(
        graph,
        opset_imports=[helper.make_opsetid(d, v) for d, v in sorted(opsets.items())],
        producer_name="cairn-lab",
        ir_version=max(est.ir_version, 8),  # CatBoost writes IR 3: initializers must be inputs there
    )
    merged.doc_string = f"{model.algorithm} {model.problem_type}; inputs per docs/foundry-onnx.md"
    onnx.checker.check_model(merged)
    data = merged.SerializeToString()
    problem = _parity(model, data, inputs, sample)
    if problem is not None:
        return Export(None, problem)
    return Export(data, None, inputs, out_desc)


# -- parity ----------------------------------------------------------------------------------------


def feed(inputs: list[dict[str, str]], frame: pd.DataFrame) -> dict[str, np.ndarray]:
    """The input tensors for ``frame``, built the way the service builds them (the contract above)."""
    from lab.models.preprocess import _to_float

    out: dict[str, np.ndarray] = {}
    for spec in inputs:
        s = frame[spec["name"]]
        if spec["type"] == "string":
            values = s.astype(object).where(s.notna(), MISSING).astype(str).to_numpy()
            out[spec["name"]] = values.reshape(-1, 1)
        else:
            out[spec["name"]] = _to_float(s.to_frame()).reshape(-1, 1)
    return out


def run(data: bytes, inputs: list[dict[str, str]], frame: pd.DataFrame) -> np.ndarray:
    """Scores ``frame`` with onnxruntime: probabilities [N, k] or values [N]."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    session = ort.InferenceSession(data, options, providers=["CPUExecutionProvider"])
    (result,) = session.run(None, feed(inputs, frame))
    return result if result.shape[1] > 1 else result.reshape(-1)


def _parity(
    model: TrainedModel, data: bytes, inputs: list[dict[str, str]], sample: pd.DataFrame
) -> str | None:
    frame = sample[model.features]
    got = run(data, inputs, frame)
    if model.classes is not None:
        want = model.predict_proba(frame)
        diff = float(np.max(np.abs(got - want))) if len(frame) else 0.0
        if not diff <= PARITY_ABS:
            return f"the ONNX graph differs from the model by {diff:.3g} on the sample (bound {PARITY_ABS:g})"
        return None
    want = model.predict(frame)
    # Relative to each value, floored at the sample's median magnitude (values near zero).
    floor = max(float(np.median(np.abs(want))) if len(frame) else 0.0, 1e-12)
    rel = np.abs(got - want) / np.maximum(np.abs(want), floor)
    diff = float(np.max(rel)) if len(frame) else 0.0
    if not diff <= PARITY_REL:
        return (
            f"the ONNX graph differs from the model by {diff:.3g} (relative) on the sample "
            f"(bound {PARITY_REL:g})"
        )
    return None
