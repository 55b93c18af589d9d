"""Runs tasks each in its own process, under its own wall-clock timeout and memory guard.

A task is a top-level function and its arguments; it writes what it produces into its own
output directory (the "file" channel back to the parent), so nothing large crosses a pipe.
Processes start with the ``spawn`` context: a child shares no threads, locks or OpenMP state
with the parent. The parent waits on the children's sentinels, never on a child itself, so a
child that hangs, crashes (``os._exit``, a signal) or exhausts its memory becomes an outcome
with a reason while the others run on:

- ``finished``: the task returned;
- ``failed``: it raised (the exception's type and message, ``MemoryError`` included: the guard
  is ``RLIMIT_AS`` set in the child before the task runs) or its process died (exit code or
  signal name);
- ``timed_out``: it ran past its budget and was killed with SIGKILL.

On Linux a child also dies with its parent (``PR_SET_PDEATHSIG``): a worker killed mid-run
leaves no algorithm processes behind.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import multiprocessing
import os
import resource
import signal
import sys
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from multiprocessing.connection import wait
from pathlib import Path
from typing import Any

ERROR_FILE = "error.json"
PR_SET_PDEATHSIG = 1


@dataclass(frozen=True)
class Task:
    name: str
    target: Callable[..., None]  # top-level, picklable: called as target(out_dir, *args)
    args: tuple[Any, ...]
    out_dir: Path
    timeout_s: float | None = None  # this task's own budget; None: the run's


@dataclass(frozen=True)
class Outcome:
    name: str
    status: str  # finished | failed | timed_out
    reason: str | None
    seconds: float
    out_dir: Path


def default_memory_limit_mb(parallel: int = 1) -> int:
    """Three quarters of physical memory shared by the processes running at once."""
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError):
        total = 8 * 1024**3
    return max(1024, int(total * 0.75 / max(1, parallel)) // (1024 * 1024))


def _die_with_parent() -> None:
    """Linux: SIGKILL this process when the parent dies (a killed worker leaves no orphans)."""
    if not sys.platform.startswith("linux"):
        return
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


def _child(task: Task, memory_mb: int | None) -> None:
    _die_with_parent()
    if memory_mb is not None:
        limit = memory_mb * 1024 * 1024
        _, hard = resource.getrlimit(resource.RLIMIT_AS)
        if hard != resource.RLIM_INFINITY:
            limit = min(limit, hard)
        resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    try:
        task.target(task.out_dir, *task.args)
    except BaseException as e:  # noqa: BLE001 - every failure becomes the task's reason
        kind = type(e).__name__
        message = str(e)[:500]
        if isinstance(e, MemoryError) and memory_mb is not None:
            message = f"memory guard of {memory_mb} MiB exceeded" + (f" ({message})" if message else "")
        # Out of memory even here: the exit code tells.
        with contextlib.suppress(BaseException):
            (task.out_dir / ERROR_FILE).write_text(
                json.dumps({"type": kind, "message": message, "trace": traceback.format_exc()[-4000:]})
            )
        os._exit(3)
    os._exit(0)


def _death_reason(code: int | None, out_dir: Path) -> str:
    err = out_dir / ERROR_FILE
    if err.exists():
        try:
            info = json.loads(err.read_text())
            return f"{info['type']}: {info['message']}" if info.get("message") else str(info["type"])
        except (ValueError, KeyError, OSError):
            pass
    if code is not None and code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        return f"the process was killed by {name}"
    return f"the process exited with code {code} without a result"


def run_tasks(
    tasks: Sequence[Task],
    *,
    timeout_s: float,
    memory_mb: int | None,
    parallel: int = 1,
    on_outcome: Callable[[Outcome], None] | None = None,
) -> list[Outcome]:
    """Runs every task (at most ``parallel`` at once); outcomes in the order of ``tasks``."""
    ctx = multiprocessing.get_context("spawn")
    pending = list(tasks)
    running: dict[int, tuple[Task, Any, float]] = {}  # sentinel -> (task, process, started)
    outcomes: dict[str, Outcome] = {}

    def budget(task: Task) -> float:
        return task.timeout_s if task.timeout_s is not None else timeout_s

    def finish(task: Task, outcome: Outcome) -> None:
        outcomes[task.name] = outcome
        if on_outcome is not None:
            on_outcome(outcome)

    try:
        while pending or running:
            while pending and len(running) < max(1, parallel):
                task = pending.pop(0)
                task.out_dir.mkdir(parents=True, exist_ok=True)
                # Not daemonic: joblib (the forests' n_jobs) runs single-threaded in a daemonic
                # process. The parent kills or joins every child itself; PDEATHSIG covers its death.
                proc = ctx.Process(
                    target=_child, args=(task, memory_mb), name=f"lab-model-{task.name}", daemon=False
                )
                proc.start()
                running[proc.sentinel] = (task, proc, time.monotonic())
            now = time.monotonic()
            next_deadline = min(started + budget(task) for task, _, started in running.values())
            ready = wait(list(running), timeout=max(0.0, next_deadline - now))
            for sentinel in ready:
                task, proc, started = running.pop(sentinel)
                proc.join()
                seconds = round(time.monotonic() - started, 3)
                if proc.exitcode == 0:
                    finish(task, Outcome(task.name, "finished", None, seconds, task.out_dir))
                else:
                    finish(
                        task,
                        Outcome(
                            task.name,
                            "failed",
                            _death_reason(proc.exitcode, task.out_dir),
                            seconds,
                            task.out_dir,
                        ),
                    )
                proc.close()
            now = time.monotonic()
            for sentinel, (task, proc, started) in list(running.items()):
                if now - started >= budget(task):
                    proc.kill()
                    proc.join(10)
                    del running[sentinel]
                    reason = f"exceeded its wall-clock budget of {budget(task):g} s and was stopped"
                    finish(
                        task, Outcome(task.name, "timed_out", reason, round(now - started, 3), task.out_dir)
                    )
    finally:
        for _task, proc, _ in running.values():  # an exception in the parent: leave no orphans
            proc.kill()
            proc.join(10)
    return [outcomes[t.name] for t in tasks]


# ---------------------------------------------------------------------------------------------
# One callable in its own process (the time-series and anomaly competitions)
# ---------------------------------------------------------------------------------------------

Executor = Callable[[str, Callable[..., Any], tuple, "float | None"], Any]
RESULT_FILE = "result.pkl"


class AlgorithmFailed(RuntimeError):
    """An algorithm's process failed; the message is the reason to record."""


def call_in_process(name: str, fn: Callable[..., Any], args: tuple, timeout_s: float | None) -> Any:
    """The plain executor: fn(*args) in this process. An executor returns fn(*args) or raises:
    TimeoutError means timed out, AlgorithmFailed carries the reason as is, anything else is a
    failure of that algorithm."""
    return fn(*args)


def _call_to_file(out_dir: Path, fn: Callable[..., Any], args: tuple) -> None:
    import pickle

    with (out_dir / RESULT_FILE).open("wb") as fh:
        pickle.dump(fn(*args), fh)


def process_executor(work_dir: Path, memory_mb: int | None = None) -> Executor:
    """An executor that runs each call in its own spawned process (:func:`run_tasks`) under its
    wall-clock timeout and memory guard, the return value coming back as a pickle in its directory."""

    def execute(name: str, fn: Callable[..., Any], args: tuple, timeout_s: float | None) -> Any:
        import pickle

        out_dir = Path(work_dir) / name
        [outcome] = run_tasks(
            [Task(name, _call_to_file, (fn, args), out_dir)],
            timeout_s=float(timeout_s or 300),
            memory_mb=memory_mb,
        )
        if outcome.status == "timed_out":
            raise TimeoutError(outcome.reason)
        if outcome.status != "finished":
            raise AlgorithmFailed(outcome.reason or "the process failed")
        with (out_dir / RESULT_FILE).open("rb") as fh:
            return pickle.load(fh)

    return execute
