"""The MLServer runtime of Cairn's model artifacts (docs/foundry-serving.md).

``model-settings.json`` names this class as ``implementation`` and the artifact as
``parameters.uri`` (a local path or an ``s3://`` URL of the object store) with its sha256 in
``parameters.extra.sha256``; :func:`lab.models.artifacts.load_artifact` checks the hash before
unpickling. MLServer runs in its own venv (lab/.venv-serve) with the lab's ``ml`` pins, so the
artifact unpickles under the versions that wrote it.

Request (Open Inference Protocol v2): one input tensor per feature column, named after the column,
shape ``[n]``: ``FP64``/``INT64`` for numbers (JSON null = missing), ``BYTES`` for text. That is
what ``tritonclient.http.InferInput`` sends. Time-series models take one ``INT64`` input
``horizon`` of shape ``[1]``.

Response outputs, ``n`` rows:
- classification: ``label`` (BYTES, the predicted class as JSON text: ``2``, ``"bad"``),
  ``probabilities`` (FP64 ``[n, k]``, columns in the order of ``classes``) and ``classes``
  (BYTES ``[k]``, JSON text of each class value);
- regression: ``value`` (FP64 ``[n]``);
- anomaly: ``score`` (FP64, higher = more normal) and ``flag`` (BOOL, at or below the threshold);
- time-series: ``ds`` (BYTES, ISO timestamps) and ``yhat`` (FP64), ``horizon`` steps.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import numpy as np
import pandas as pd
from mlserver import MLModel
from mlserver.errors import MLServerError
from mlserver.types import InferenceRequest, InferenceResponse, RequestInput, ResponseOutput

from lab.models.artifacts import load_artifact

# Rows one request may carry (the service sends at most its own bound, docs/foundry-serving.md).
MAX_ROWS = 10_000
MAX_HORIZON = 1_000


class BadRequest(MLServerError):
    """A request the model cannot answer: MLServer returns it as a 400 with this message."""

    def __init__(self, msg: str):
        super().__init__(msg, status_code=400)


def _column(inp: RequestInput) -> list[Any] | np.ndarray:
    data = inp.data.root if hasattr(inp.data, "root") else inp.data
    flat = np.asarray(data, dtype=object).reshape(-1).tolist()
    if inp.datatype == "BYTES":
        return [v.decode("utf-8") if isinstance(v, bytes) else v for v in flat]
    # JSON null in a numeric tensor is a missing value (NaN), as the training data had it.
    return np.asarray([np.nan if v is None else v for v in flat], dtype=np.float64)


def request_frame(request: InferenceRequest) -> pd.DataFrame:
    """The rows of a request: one column per input tensor, all of one length."""
    columns: dict[str, Any] = {}
    for inp in request.inputs:
        columns[inp.name] = _column(inp)
    lengths = {len(v) for v in columns.values()}
    if len(lengths) > 1:
        raise BadRequest(f"input tensors differ in length: {sorted(lengths)}")
    n = lengths.pop() if lengths else 0
    if n == 0:
        raise BadRequest("the request carries no rows")
    if n > MAX_ROWS:
        raise BadRequest(f"at most {MAX_ROWS} rows per request, got {n}")
    return pd.DataFrame(columns)


def _json_text(values: list[Any]) -> list[str]:
    return [json.dumps(v.item() if isinstance(v, np.generic) else v) for v in values]


def _out(name: str, values: np.ndarray | list[Any], datatype: str) -> ResponseOutput:
    arr = np.asarray(values)
    data = arr.reshape(-1).tolist()
    return ResponseOutput(name=name, shape=list(arr.shape), datatype=datatype, data=data)


def predict_outputs(model: Any, request: InferenceRequest) -> list[ResponseOutput]:
    """The outputs for a request (pure: no MLServer state), by the artifact's problem type."""
    kind = getattr(model, "problem_type", None)
    if kind == "timeseries":
        horizon = next((i for i in request.inputs if i.name == "horizon"), None)
        steps = int(np.asarray(_column(horizon))[0]) if horizon is not None else 0
        if not 1 <= steps <= MAX_HORIZON:
            raise BadRequest(f"input 'horizon' must be an integer from 1 to {MAX_HORIZON}")
        forecast = model.forecast(steps)
        ds = [t.isoformat() for t in forecast["ds"]]
        return [_out("ds", ds, "BYTES"), _out("yhat", forecast["yhat"].to_numpy(dtype=float), "FP64")]
    frame = request_frame(request)
    try:
        if kind == "anomaly":
            scores = model.score(frame)
            return [_out("score", scores, "FP64"), _out("flag", scores <= model.threshold, "BOOL")]
        if model.classes is None:
            return [_out("value", model.predict(frame), "FP64")]
        proba = model.predict_proba(frame)
        labels = np.asarray(model.classes, dtype=object)[np.argmax(proba, axis=1)]
        return [
            _out("label", _json_text(list(labels)), "BYTES"),
            _out("probabilities", proba.astype(np.float64), "FP64"),
            _out("classes", _json_text(list(model.classes)), "BYTES"),
        ]
    except ValueError as err:  # missing columns, values the pipeline cannot read
        raise BadRequest(str(err)) from err


class CairnModel(MLModel):
    """One deployed artifact; MLServer calls ``load`` once and ``predict`` per request."""

    async def load(self) -> bool:
        params = self.settings.parameters
        uri = params.uri if params else None
        if not uri:
            raise MLServerError("model-settings.json lacks parameters.uri (the artifact)")
        extra = (params.extra or {}) if params else {}
        # Unpickling and, for s3://, the download block: off MLServer's event loop.
        self._model = await asyncio.to_thread(load_artifact, uri, extra.get("sha256"))
        return True

    async def predict(self, payload: InferenceRequest) -> InferenceResponse:
        # Scoring is CPU work: a thread keeps MLServer's loop answering health and other models.
        outputs = await asyncio.to_thread(predict_outputs, self._model, payload)
        return InferenceResponse(
            id=payload.id,
            model_name=self.name,
            model_version=self.version,
            outputs=outputs,
        )
