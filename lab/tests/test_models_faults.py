"""Each algorithm in its own process: a slow one times out, crashing ones are recorded, the memory
guard turns a huge allocation into a failed record, and the real algorithms finish all the same.

The fake algorithms are top-level here so the spawned processes can unpickle them; they reach
the competition only through the ``extra_algorithms`` hook of this test.
"""

from __future__ import annotations

import os
import signal
import time

import pytest
from lakehouse_support import require_modules

require_modules("sklearn", "xgboost", "lightgbm", "catboost", "imblearn", "shap", extra="ml")

from sklearn.datasets import load_breast_cancer  # noqa: E402

from lab.models.roster import Algorithm, Params  # noqa: E402
from lab.models.run import train  # noqa: E402


class _Slow:
    def fit(self, x, y):
        time.sleep(120)
        return self


class _Exits:
    def fit(self, x, y):
        os._exit(7)


class _Segfaults:
    def fit(self, x, y):
        os.kill(os.getpid(), signal.SIGSEGV)
        time.sleep(30)


class _Hog:
    def fit(self, x, y):
        self.blob = bytearray(6 * 1024**3)  # 6 GiB of address space, over the 3 GiB guard
        return self


def slow(p: Params) -> _Slow:
    return _Slow()


def exits(p: Params) -> _Exits:
    return _Exits()


def segfaults(p: Params) -> _Segfaults:
    return _Segfaults()


def hog(p: Params) -> _Hog:
    return _Hog()


FAKES = (
    Algorithm("Slow", "classification", slow),
    Algorithm("Exits", "classification", exits),
    Algorithm("Segfaults", "classification", segfaults),
    Algorithm("Hog", "classification", hog),
)


def test_slow_crashing_and_memory_hungry_algorithms_are_recorded_while_the_others_finish() -> None:
    data = load_breast_cancer(as_frame=True).frame
    started = time.monotonic()
    result = train(
        data,
        "target",
        options={
            "algorithms": ["LogisticRegression", "RandomForest", "Slow", "Exits", "Segfaults", "Hog"],
            "extra_algorithms": FAKES,
            "algorithm_timeouts": {"Slow": 2},
            "timeout_s": 120,
            "memory_limit_mb": 3072,
            "parallel": 2,
            "n_estimators": 30,
            "shap_rows": 50,
        },
    )
    elapsed = time.monotonic() - started
    records = {r["algorithm"]: r for r in result["algorithms"]}
    assert list(records) == ["RandomForest", "LogisticRegression", "Slow", "Exits", "Segfaults", "Hog"]

    assert records["Slow"]["status"] == "timed_out"
    assert "wall-clock budget of 2 s" in records["Slow"]["reason"]
    assert 2 <= records["Slow"]["seconds"] < 10

    assert records["Exits"]["status"] == "failed"
    assert "exited with code 7" in records["Exits"]["reason"]
    assert records["Segfaults"]["status"] == "failed"
    assert "SIGSEGV" in records["Segfaults"]["reason"]
    assert records["Hog"]["status"] == "failed"
    assert "MemoryError" in records["Hog"]["reason"] and "3072 MiB" in records["Hog"]["reason"]
    for name in ("Exits", "Segfaults", "Hog"):  # nobody waited for a dead child
        assert records[name]["seconds"] < 60, records[name]
        assert records[name]["metrics"] is None

    for name in ("RandomForest", "LogisticRegression"):
        assert records[name]["status"] == "trained", records[name]
        assert records[name]["metrics"]["val_accuracy"] > 0.9
    assert result["winner"]["algorithm"] in ("RandomForest", "LogisticRegression")
    assert result["status"] == "succeeded"
    assert elapsed < 110  # the slow one's 120 s never held the run


def test_a_run_where_nothing_trains_reports_it_without_an_artifact() -> None:
    data = load_breast_cancer(as_frame=True).frame
    result = train(data, "target", options={"algorithms": ["Exits"], "extra_algorithms": FAKES})
    assert result["status"] == "failed"
    assert result["reason"] == "no algorithm trained"
    assert result["winner"] is None and result["artifact"] is None
    assert result["algorithms"][0]["status"] == "failed"


def test_unknown_algorithm_names_and_bad_options_are_refused() -> None:
    data = load_breast_cancer(as_frame=True).frame
    with pytest.raises(ValueError, match="unknown algorithm"):
        train(data, "target", options={"algorithms": ["Perceptron"]})
    with pytest.raises(ValueError, match="timeout_s"):
        train(data, "target", options={"timeout_s": 0})
    with pytest.raises(ValueError, match="unknown training option"):
        train(data, "target", options={"budget": 5})


def _alive(pid: int) -> bool:
    """Running, not a zombie waiting for a reaper (a container's init may be slow to reap)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def sleeper(out_dir, seconds: float) -> None:
    (out_dir / "pid").write_text(str(os.getpid()))
    time.sleep(seconds)


def test_algorithm_processes_die_with_a_killed_worker(tmp_path) -> None:
    import subprocess
    import sys
    from pathlib import Path

    out = tmp_path / "task"
    script = tmp_path / "worker.py"
    script.write_text(
        "import sys\n"
        f"sys.path.insert(0, {str(Path(__file__).parent)!r})\n"
        "from pathlib import Path\n"
        "from test_models_faults import sleeper\n"
        "from lab.models.runner import Task, run_tasks\n"
        "if __name__ == '__main__':\n"
        f"    run_tasks([Task('s', sleeper, (120,), Path({str(out)!r}))], timeout_s=300, memory_mb=None)\n"
    )
    worker = subprocess.Popen([sys.executable, str(script)])
    try:
        deadline = time.monotonic() + 60
        while not (out / "pid").exists():
            assert time.monotonic() < deadline and worker.poll() is None, "the task never started"
            time.sleep(0.1)
        child = int((out / "pid").read_text())
        assert _alive(child)
        worker.kill()  # the worker dies without any chance to clean up
        worker.wait(10)
        deadline = time.monotonic() + 10
        while _alive(child):
            assert time.monotonic() < deadline, "the algorithm process outlived its worker"
            time.sleep(0.1)
    finally:
        if worker.poll() is None:
            worker.kill()
