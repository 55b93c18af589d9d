"""Memory of a 500,000-row training run (issue 16, "Must show": a documented budget on 2 cores / 24 GB).

The table: bank marketing (41,188 real rows, 16 features, 6 of them categorical) resampled with
replacement to ``--rows`` rows (seeded) with noise, so it is not 12 copies of the same rows: every
numeric column gets Gaussian noise of 5 % of its standard deviation (rounded back to whole numbers
where the column is whole), 2 % of each categorical column's values are redrawn from the column's
own frequencies, and the target stays the row's real label (7.9:1, so neither SMOTE nor class
weights). One-hot encoding makes 43 float64 columns: 500,000 x 43 x 8 B = 172 MB per copy.

The run: ``lab.models.run.train`` on that frame with **default options** (problem type detected,
300 s per-algorithm timeout, one algorithm at a time, the default ``RLIMIT_AS`` guard), optionally
restricted with ``--algorithms`` (the only option changed; say so when quoting the numbers).

What is measured (no psutil in the lab venv: /proc is polled every ``--interval`` s):
- the parent (this process, which is what the lab worker is during a run): ``ru_maxrss`` of
  ``getrusage(RUSAGE_SELF)`` (exact), before and after ``train``;
- every algorithm process (a spawned child of this process, one after another in roster order):
  the kernel's own high-water marks ``VmHWM`` (peak RSS) and ``VmPeak`` (peak address space, what
  ``RLIMIT_AS`` limits) from ``/proc/<pid>/status``, last read before it exited, its descendants'
  RSS added; plus ``ru_maxrss`` of ``RUSAGE_CHILDREN`` (exact: the largest child);
- the whole tree's RSS summed at each poll (its peak is the run's footprint), and the machine's
  lowest ``MemAvailable`` (shared machine: other engineers' processes count there too).

Run (JSON on stdout, also to --out)::

    lab/.venv/bin/python bench/automl_memory.py [--rows 500000] [--algorithms XGBoost,LightGBM]
        [--out bench/results/automl_memory.json]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "lab" / "src"))
DATA = ROOT / ".." / "shared" / "data" / "ml" / "classification" / "bank_marketing_additional_full.csv"
SEED = 16

from lab.models.roster import roster  # noqa: E402
from lab.models.run import train  # noqa: E402
from lab.models.runner import default_memory_limit_mb  # noqa: E402

MB = 1024 * 1024


def synthetic_bank(rows: int, seed: int = SEED) -> pd.DataFrame:
    """Bank marketing resampled to ``rows`` rows with noise (see the module docstring)."""
    real = pd.read_csv(DATA, sep=";")
    rng = np.random.default_rng(seed)
    frame = real.iloc[rng.integers(0, len(real), size=rows)].reset_index(drop=True)
    for c in frame.columns:
        if c == "y":
            continue
        col = frame[c]
        if pd.api.types.is_numeric_dtype(col):
            values = col.to_numpy(dtype=np.float64)
            noisy = values + rng.normal(0.0, 0.05 * float(np.nanstd(values)) or 1e-9, size=rows)
            whole = bool(np.all(np.floor(real[c].to_numpy(dtype=np.float64)) == real[c].to_numpy()))
            frame[c] = np.round(noisy).astype(np.int64) if whole else np.round(noisy, 4)
        else:
            freq = real[c].value_counts(normalize=True)
            redraw = rng.random(rows) < 0.02
            values = col.to_numpy(dtype=object).copy()
            values[redraw] = rng.choice(
                freq.index.to_numpy(dtype=object), size=int(redraw.sum()), p=freq.values
            )
            frame[c] = values
    return frame


def _status(pid: int) -> dict[str, int]:
    out: dict[str, int] = {}
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                key, _, rest = line.partition(":")
                if key in ("VmHWM", "VmPeak", "VmRSS", "PPid"):
                    out[key] = int(rest.split()[0])  # kB, PPid a number
    except (FileNotFoundError, ProcessLookupError, ValueError):
        pass
    return out


def _cmdline(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def _mem_available_kb() -> int:
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemAvailable:"):
                return int(line.split()[1])
    return 0


def _algo_root(pid: int, parent_of: dict[int, int], me: int) -> int | None:
    """The direct child of ``me`` that ``pid`` descends from (None: not in our tree)."""
    while pid in parent_of and parent_of[pid] != me:
        pid = parent_of[pid]
    return pid if parent_of.get(pid) == me else None


class TreeWatch(threading.Thread):
    """Polls this process's descendants: per algorithm child its VmHWM/VmPeak, the tree's RSS sum."""

    def __init__(self, interval: float) -> None:
        super().__init__(daemon=True)
        self.interval = interval
        self.stop = threading.Event()
        self.children: dict[int, dict[str, Any]] = {}  # algorithm processes, in start order
        self.tree_peak_kb = 0
        self.min_available_kb = _mem_available_kb()

    def run(self) -> None:
        me = os.getpid()
        while not self.stop.is_set():
            procs: dict[int, dict[str, int]] = {}
            for name in os.listdir("/proc"):
                if name.isdigit():
                    st = _status(int(name))
                    if "PPid" in st:
                        procs[int(name)] = st
            parent_of = {pid: st["PPid"] for pid, st in procs.items()}
            total = procs.get(me, {}).get("VmRSS", 0)
            extra: dict[int, int] = {}
            for pid, st in procs.items():
                root = _algo_root(pid, parent_of, me)
                if root is None:
                    continue
                total += st.get("VmRSS", 0)
                if pid == root:
                    if pid not in self.children:
                        cmd = _cmdline(pid)
                        if "spawn_main" not in cmd:  # multiprocessing's resource tracker
                            continue
                        self.children[pid] = {"pid": pid, "started": time.monotonic(), "hwm_kb": 0}
                    child = self.children[pid]
                    child["hwm_kb"] = max(child["hwm_kb"], st.get("VmHWM", 0))
                    child["vmpeak_kb"] = max(child.get("vmpeak_kb", 0), st.get("VmPeak", 0))
                    child["last_seen"] = time.monotonic()
                else:  # a grandchild (e.g. a worker pool): its RSS counts for its algorithm
                    extra[root] = extra.get(root, 0) + st.get("VmRSS", 0)
            for root, kb in extra.items():
                if root in self.children:
                    child = self.children[root]
                    child["descendants_peak_kb"] = max(child.get("descendants_peak_kb", 0), kb)
            self.tree_peak_kb = max(self.tree_peak_kb, total)
            self.min_available_kb = min(self.min_available_kb, _mem_available_kb())
            self.stop.wait(self.interval)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=500_000)
    parser.add_argument("--algorithms", default=None, help="comma-separated roster names (default: all)")
    parser.add_argument("--interval", type=float, default=0.2, help="seconds between /proc polls")
    parser.add_argument("--out", default=None)
    args = parser.parse_args()

    t0 = time.monotonic()
    frame = synthetic_bank(args.rows)
    make_s = time.monotonic() - t0
    rss_before_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    options: dict[str, Any] = {}
    if args.algorithms:
        options["algorithms"] = [a for a in args.algorithms.split(",") if a]
    watch = TreeWatch(args.interval)
    watch.start()
    t1 = time.monotonic()
    result = train(frame, "y", options=options or None)
    train_s = time.monotonic() - t1
    watch.stop.set()
    watch.join()

    ran = [r for r in result["algorithms"] if r["status"] != "skipped"]
    seen = sorted(watch.children.values(), key=lambda c: c["started"])
    if len(seen) != len(ran):  # one process per algorithm, in roster order (parallel 1)
        print(f"warning: saw {len(seen)} algorithm processes for {len(ran)} algorithms", file=sys.stderr)
    per_algo = []
    for record, child in zip(ran, seen, strict=False):
        per_algo.append(
            {
                "algorithm": record["algorithm"],
                "status": record["status"],
                "reason": record["reason"],
                "seconds": record["seconds"],
                "fit_seconds": record.get("fit_seconds"),
                "peak_rss_mb": round(child["hwm_kb"] / 1024, 1),
                "peak_address_space_mb": round(child.get("vmpeak_kb", 0) / 1024, 1),
                "descendants_peak_rss_mb": round(child.get("descendants_peak_kb", 0) / 1024, 1),
                "shap": record["shap"]["status"],
            }
        )
    per_algo += [
        {"algorithm": r["algorithm"], "status": "skipped", "reason": r["reason"]}
        for r in result["algorithms"]
        if r["status"] == "skipped"
    ]
    total_kb = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 1024
    out = {
        "bench": "automl_memory",
        "source": "bank marketing resampled with noise",
        "rows": result["rows"],
        "features": len(result["features"]),
        "problem_type": result["problem_type"],
        "split": {"train": result["split"]["train"], "validation": result["split"]["validation"]},
        "algorithms_requested": options.get("algorithms") or [a.name for a in roster(result["problem_type"])],
        "status": result["status"],
        "winner": result["winner"],
        "make_data_s": round(make_s, 1),
        "train_s": round(train_s, 1),
        "parent_peak_rss_mb_before_train": round(rss_before_mb, 1),
        "parent_peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "largest_child_peak_rss_mb": round(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024, 1),
        "tree_peak_rss_mb": round(watch.tree_peak_kb / 1024, 1),
        "algorithms": per_algo,
        "memory_limit_mb": result["memory_limit_mb"],
        "default_memory_limit_mb": default_memory_limit_mb(1),
        "machine_mem_total_mb": round(total_kb / 1024),
        "machine_min_available_mb": round(watch.min_available_kb / 1024),
        "cpus": os.cpu_count(),
        "load_1m_after": round(os.getloadavg()[0], 2),
        "machine": "shared 2-core / 24 GB dev machine (other engineers' builds and tests ran alongside)",
    }
    text = json.dumps(out, indent=1)
    print(text)
    if args.out:
        Path(args.out).write_text(text + "\n")


if __name__ == "__main__":
    main()
