"""The MLServer runtime (lab.serving.runtime, docs/foundry-serving.md) through a real MLServer.

German credit is trained here with a one-algorithm roster (LogisticRegression) into an artifact
directory; MLServer (lab/.venv-serve, ``python -m lab.serving.serve``) loads it from a model
repository with the runtime, and the Open Inference Protocol v2 client ``tritonclient[http]``
(run in the serve venv, where it is installed) sends one tensor per feature column and gets the
same positive-class probabilities as ``TrainedModel.predict_proba`` to 1e-9. Also the V2 JSON
body the service sends (nulls as missing values), a 400 for a missing column, and a restart
that loads the repository's models again.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from lakehouse_support import require_modules

require_modules("sklearn", "xgboost", "lightgbm", "catboost", "imblearn", "shap", extra="ml")

from lab.models.artifacts import load_artifact  # noqa: E402
from lab.models.run import train_with_artifact  # noqa: E402

LAB = Path(__file__).resolve().parents[1]
SERVE_PYTHON = LAB / ".venv-serve" / "bin" / "python"
GERMAN = LAB.parents[1] / "shared" / "data" / "ml" / "classification" / "german_credit.csv"
if not GERMAN.exists():
    GERMAN = LAB.parent / "fixtures" / "ml" / "german_credit.csv"

if not SERVE_PYTHON.exists():
    why = f"{SERVE_PYTHON} is missing (scripts/setup.sh --serve)"
    if os.environ.get("CI"):
        pytest.fail(f"{why}: the serving suite must run under CI", pytrace=False)
    pytest.skip(why, allow_module_level=True)

# Run by the serve venv's Python: tritonclient sends the rows (JSON tensors, binary_data=False:
# MLServer's REST API takes JSON data) and prints the probabilities it got back.
CLIENT = """
import json, sys
import numpy as np
import tritonclient.http as th
url, name, path = sys.argv[1:4]
rows = json.load(open(path))
cli = th.InferenceServerClient(url)
inputs = []
for col, spec in rows.items():
    values = spec["values"]
    if spec["numeric"]:
        i = th.InferInput(col, [len(values)], "FP64")
        i.set_data_from_numpy(np.asarray(values, dtype=np.float64), binary_data=False)
    else:
        i = th.InferInput(col, [len(values)], "BYTES")
        i.set_data_from_numpy(np.asarray(values, dtype=object), binary_data=False)
    inputs.append(i)
outs = [th.InferRequestedOutput(n, binary_data=False) for n in ("probabilities", "label", "classes")]
r = cli.infer(name, inputs, outputs=outs)
print(json.dumps({
    "probabilities": r.as_numpy("probabilities").tolist(),
    "label": [v.decode() if isinstance(v, bytes) else v for v in r.as_numpy("label").tolist()],
    "classes": [v.decode() if isinstance(v, bytes) else v for v in r.as_numpy("classes").tolist()],
}))
"""


def _german() -> pd.DataFrame:
    frame = pd.read_csv(GERMAN, header=None)
    frame.columns = [f"a{i}" for i in range(1, 21)] + ["credit"]
    return frame


class Server:
    def __init__(self, repository: Path):
        self.proc = subprocess.Popen(
            [str(SERVE_PYTHON), "-m", "lab.serving.serve", "--repository", str(repository)],
            cwd=LAB,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )
        line = self.proc.stdout.readline()
        self.port = json.loads(line)["port"]
        self.url = f"127.0.0.1:{self.port}"
        deadline = time.monotonic() + 120
        while not self._ready("/v2/health/ready"):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"MLServer did not start: {self.proc.stdout.read()[-2000:]}")
            time.sleep(0.2)

    def _ready(self, path: str) -> bool:
        try:
            with urllib.request.urlopen(f"http://{self.url}{path}", timeout=2) as r:
                return r.status == 200
        except (urllib.error.URLError, OSError):
            return False

    def wait_model(self, name: str) -> None:
        deadline = time.monotonic() + 120
        while not self._ready(f"/v2/models/{name}/ready"):
            assert time.monotonic() < deadline, f"model {name} never became ready"
            time.sleep(0.2)

    def post(self, path: str, body: dict) -> tuple[int, dict]:
        req = urllib.request.Request(
            f"http://{self.url}{path}",
            data=json.dumps(body).encode(),
            headers={"content-type": "application/json"},
        )
        try:
            with urllib.request.urlopen(req, timeout=60) as r:
                return r.status, json.loads(r.read() or b"{}")
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read() or b"{}")

    def stop(self) -> None:
        if self.proc.poll() is not None:
            return
        os.killpg(self.proc.pid, 15)
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, 9)
            self.proc.wait()
        self.proc.stdout.close()


@pytest.fixture(scope="module")
def deployed(tmp_path_factory):
    root = tmp_path_factory.mktemp("serving")
    frame = _german()
    opts = {"algorithms": ["LogisticRegression"], "artifact_dir": str(root / "artifacts"), "parallel": 1}
    result, _ = train_with_artifact(frame, "credit", options=opts)
    assert result["status"] == "succeeded", result["reason"]
    art = result["artifact"]
    repo = root / "repository"
    (repo / "credit").mkdir(parents=True)
    settings = {
        "name": "credit",
        "implementation": "lab.serving.runtime.CairnModel",
        "parameters": {"uri": art["path"], "version": "1", "extra": {"sha256": art["sha256"]}},
    }
    (repo / "credit" / "model-settings.json").write_text(json.dumps(settings))
    server = Server(repo)
    try:
        server.wait_model("credit")
        yield server, frame, result, load_artifact(art["path"], art["sha256"]), repo
    finally:
        server.stop()


def _columns(frame: pd.DataFrame, features: list[str]) -> dict:
    return {
        c: {
            "numeric": bool(pd.api.types.is_numeric_dtype(frame[c])),
            "values": frame[c].tolist(),
        }
        for c in features
    }


def test_tritonclient_gets_the_scores_of_predict_proba(deployed, tmp_path) -> None:
    server, frame, result, model, _ = deployed
    rows = frame.iloc[:200]
    path = tmp_path / "rows.json"
    path.write_text(json.dumps(_columns(rows, result["features"])))
    out = subprocess.run(
        [str(SERVE_PYTHON), "-c", CLIENT, server.url, "credit", str(path)],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    got = json.loads(out.stdout)
    want = model.predict_proba(rows)
    assert np.asarray(got["probabilities"]).shape == (200, 2)
    np.testing.assert_allclose(np.asarray(got["probabilities"]), want, rtol=0, atol=1e-9)
    assert [json.loads(c) for c in got["classes"]] == [1, 2]
    assert [json.loads(v) for v in got["label"]] == [int(v) for v in model.predict(rows)]


def test_the_service_body_nulls_and_a_missing_column(deployed) -> None:
    server, frame, result, model, _ = deployed
    rows = frame.iloc[:3].copy()
    inputs = []
    for c in result["features"]:
        numeric = bool(pd.api.types.is_numeric_dtype(rows[c]))
        data = rows[c].tolist()
        if c == "a2":
            data = [None, *data[1:]]  # a missing value, as the training data could have had
        inputs.append({"name": c, "shape": [3], "datatype": "FP64" if numeric else "BYTES", "data": data})
    status, body = server.post("/v2/models/credit/infer", {"inputs": inputs})
    assert status == 200, body
    probs = next(o for o in body["outputs"] if o["name"] == "probabilities")
    assert probs["shape"] == [3, 2]
    rows.loc[rows.index[0], "a2"] = np.nan
    np.testing.assert_allclose(np.asarray(probs["data"]).reshape(3, 2), model.predict_proba(rows), atol=1e-9)

    status, body = server.post("/v2/models/credit/infer", {"inputs": inputs[1:]})
    assert status == 400
    assert "a1" in json.dumps(body)


def _load(server: Server, repo: Path, name: str, art: dict) -> None:
    """What the service does on deploy: model-settings.json in the repository, then the load API."""
    (repo / name).mkdir(exist_ok=True)
    settings = {
        "name": name,
        "implementation": "lab.serving.runtime.CairnModel",
        "parameters": {"uri": art["path"], "version": "1", "extra": {"sha256": art["sha256"]}},
    }
    (repo / name / "model-settings.json").write_text(json.dumps(settings))
    status, body = server.post(f"/v2/repository/models/{name}/load", {})
    assert status == 200, body


def _outputs(body: dict) -> dict:
    return {o["name"]: o["data"] for o in body["outputs"]}


def test_anomaly_and_forecast_artifacts(deployed, tmp_path) -> None:
    server, _, _, _, repo = deployed
    rng = np.random.default_rng(3)
    frame = pd.DataFrame({"x": rng.normal(size=300), "y": rng.normal(size=300)})
    frame.loc[:4, ["x", "y"]] = 8.0  # five far-out rows
    opts = {"algorithms": ["IsolationForest"], "artifact_dir": str(tmp_path)}
    result, _ = train_with_artifact(frame, "x", None, "anomaly", opts)
    _load(server, repo, "anomaly", result["artifact"])
    rows = frame.iloc[:10]
    inputs = [{"name": c, "shape": [10], "datatype": "FP64", "data": rows[c].tolist()} for c in ("x", "y")]
    status, body = server.post("/v2/models/anomaly/infer", {"inputs": inputs})
    assert status == 200, body
    out = _outputs(body)
    model = load_artifact(result["artifact"]["path"])
    np.testing.assert_allclose(out["score"], model.score(rows), atol=1e-9)
    assert out["flag"] == model.flag(rows).tolist()
    assert out["flag"][:5] == [True] * 5

    months = pd.date_range("2020-01-01", periods=48, freq="MS")
    series = 100 + np.arange(48) * 2.0 + 10 * np.sin(np.arange(48) * np.pi / 6)
    ts = pd.DataFrame({"month": months.date, "sales": series})
    opts = {"algorithms": ["ARIMA"], "artifact_dir": str(tmp_path)}
    result, _ = train_with_artifact(ts, "sales", None, "timeseries", opts)
    assert result["status"] == "succeeded", result["reason"]
    _load(server, repo, "forecast", result["artifact"])
    horizon = {"name": "horizon", "shape": [1], "datatype": "INT64", "data": [6]}
    status, body = server.post("/v2/models/forecast/infer", {"inputs": [horizon]})
    assert status == 200, body
    out = _outputs(body)
    want = load_artifact(result["artifact"]["path"]).forecast(6)
    assert out["ds"][0].startswith("2024-01-01") and len(out["ds"]) == 6
    np.testing.assert_allclose(out["yhat"], want["yhat"].to_numpy(), atol=1e-9)
    status, body = server.post("/v2/models/forecast/infer", {"inputs": [{**horizon, "data": [0]}]})
    assert status == 400


def test_a_restart_loads_the_repository_again(deployed) -> None:
    server, frame, result, model, repo = deployed
    server.stop()
    again = Server(repo)
    try:
        again.wait_model("credit")
        inputs = [
            {
                "name": c,
                "shape": [5],
                "datatype": "FP64" if pd.api.types.is_numeric_dtype(frame[c]) else "BYTES",
                "data": frame[c].iloc[:5].tolist(),
            }
            for c in result["features"]
        ]
        status, body = again.post("/v2/models/credit/infer", {"inputs": inputs})
        assert status == 200, body
        probs = next(o for o in body["outputs"] if o["name"] == "probabilities")
        np.testing.assert_allclose(
            np.asarray(probs["data"]).reshape(5, 2), model.predict_proba(frame.iloc[:5]), atol=1e-9
        )
    finally:
        again.stop()
