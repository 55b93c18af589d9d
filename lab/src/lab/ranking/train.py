"""Fit, evaluate (leave one dataset out) and export the hybrid-search reranker.

    lab/.venv/bin/python -m lab.ranking.train ROWS.jsonl... --out rank-model.json [--kind linear|trees]
        [--exclude SET] [--lodo [--lodo-on ROWS.jsonl...]]

Rows come from bench/retrieval-eval.ts --dump-features: one per (query, candidate chunk) with
`set`, `qid`, `doc_id`, `pos` (fused position), `label`, `n_rel` (relevant documents of the
query) and `x` (the feature vector). `--bm25-only` dumps name their set `<set>/bm25`; leave one
dataset out holds out every set of one dataset, and `--lodo-on` scores it on other rows (the
hybrid ones the service sees). Evaluation mirrors the service: candidates re-ordered by
the model, folded to documents (a document ranks where its best chunk does), nDCG@10 against
all of the query's relevant documents, not only those among the candidates.

Two model kinds, both exported in the shape rerank.ts reads:
- linear: logistic regression on standardised features (class-balanced; the coefficients and
  the standardisation are the model);
- trees: a LightGBM lambdarank ensemble (few shallow trees), exported from dump_model().
"""

from __future__ import annotations

import argparse
import json
import math
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import numpy as np

FEATURES_FILE = Path(__file__).resolve().parents[4] / "domain" / "documents" / "rank-features.ts"


@dataclass
class Rows:
    sets: np.ndarray
    qids: np.ndarray
    docs: np.ndarray
    pos: np.ndarray
    y: np.ndarray
    n_rel: np.ndarray
    x: np.ndarray

    def where(self, mask: np.ndarray) -> Rows:
        return Rows(*(getattr(self, f)[mask] for f in ("sets", "qids", "docs", "pos", "y", "n_rel", "x")))


def load_rows(paths: list[Path]) -> Rows:
    recs = [json.loads(line) for p in paths for line in p.read_text().splitlines() if line.strip()]
    if not recs:
        raise ValueError("no rows")
    return Rows(
        sets=np.array([r["set"] for r in recs]),
        qids=np.array([f"{r['set']}/{r['qid']}" for r in recs]),
        docs=np.array([r["doc_id"] for r in recs]),
        pos=np.array([r["pos"] for r in recs], dtype=np.int64),
        y=np.array([r["label"] for r in recs], dtype=np.int64),
        n_rel=np.array([r["n_rel"] for r in recs], dtype=np.int64),
        x=np.array([r["x"] for r in recs], dtype=np.float64),
    )


def feature_names() -> list[str]:
    """FEATURE_NAMES as rank-features.ts declares them (one source of truth for the order)."""
    text = FEATURES_FILE.read_text()
    block = text[text.index("FEATURE_NAMES = [") : text.index("] as const")]
    return [line.split('"')[1] for line in block.splitlines()[1:] if '"' in line]


def ndcg10(docs_in_order: list[str], relevant: set[str], n_rel: int) -> float:
    seen: list[str] = []
    for d in docs_in_order:
        if d not in seen:
            seen.append(d)
        if len(seen) == 10:
            break
    dcg = sum(1 / math.log2(i + 2) for i, d in enumerate(seen) if d in relevant)
    ideal = sum(1 / math.log2(i + 2) for i in range(min(n_rel, 10)))
    return 0.0 if ideal == 0 else dcg / ideal


def mean_ndcg(rows: Rows, scores: np.ndarray) -> float:
    """Mean nDCG@10 over queries, candidates ordered by score (ties: fused position)."""
    by_q: dict[str, list[int]] = defaultdict(list)
    for i, q in enumerate(rows.qids):
        by_q[q].append(i)
    total = 0.0
    for idx in by_q.values():
        order = sorted(idx, key=lambda i: (-scores[i], rows.pos[i]))
        relevant = {rows.docs[i] for i in idx if rows.y[i] == 1}
        total += ndcg10([rows.docs[i] for i in order], relevant, int(rows.n_rel[idx[0]]))
    return total / len(by_q)


class Reranker:
    """A model over rank features: `fit(rows)` returns self; `score(x)`; `export(names)` -> JSON dict."""

    def __init__(self, kind: str = "linear", seed: int = 7) -> None:
        if kind not in ("linear", "trees"):
            raise ValueError(f"kind must be linear or trees, got {kind}")
        self.kind = kind
        self.seed = seed

    def fit(self, rows: Rows) -> Reranker:
        if self.kind == "linear":
            from sklearn.linear_model import LogisticRegression

            self.mean_ = rows.x.mean(axis=0)
            self.scale_ = rows.x.std(axis=0)
            self.scale_[self.scale_ == 0] = 1.0
            z = (rows.x - self.mean_) / self.scale_
            self.model_ = LogisticRegression(C=1.0, class_weight="balanced", max_iter=3000).fit(z, rows.y)
        else:
            import lightgbm as lgb

            order = np.lexsort((rows.pos, rows.qids))
            r = rows.where(order)
            _, group = np.unique(r.qids, return_counts=True)
            # np.unique sorts the ids, as lexsort did: groups line up with the rows.
            self.model_ = lgb.LGBMRanker(
                objective="lambdarank",
                n_estimators=60,
                num_leaves=7,
                learning_rate=0.08,
                min_child_samples=40,
                subsample=0.8,
                subsample_freq=1,
                colsample_bytree=0.8,
                random_state=self.seed,
                verbose=-1,
            ).fit(r.x, r.y, group=group)
        return self

    def score(self, x: np.ndarray) -> np.ndarray:
        if self.kind == "linear":
            return self.model_.decision_function((x - self.mean_) / self.scale_)
        return self.model_.predict(x)

    def export(self, names: list[str]) -> dict:
        if self.kind == "linear":
            return {
                "kind": "linear",
                "features": names,
                "mean": self.mean_.tolist(),
                "scale": self.scale_.tolist(),
                "weights": self.model_.coef_[0].tolist(),
                "bias": float(self.model_.intercept_[0]),
            }
        dump = self.model_.booster_.dump_model()
        return {
            "kind": "trees",
            "features": names,
            "trees": [_node(t["tree_structure"]) for t in dump["tree_info"]],
        }


def _node(n: dict) -> dict:
    if "leaf_value" in n:
        return {"leaf_value": n["leaf_value"]}
    if n.get("decision_type") != "<=":
        raise ValueError(f"unsupported split {n.get('decision_type')}")
    return {
        "split_feature": n["split_feature"],
        "threshold": n["threshold"],
        "decision_type": "<=",
        "default_left": bool(n["default_left"]),
        "left_child": _node(n["left_child"]),
        "right_child": _node(n["right_child"]),
    }


def base_set(name: str) -> str:
    """`tatqa/bm25` (keyword-only rows of TAT-QA) → `tatqa`: the dataset a set's rows come from."""
    return name.split("/", 1)[0]


def lodo(rows: Rows, kind: str, test_rows: Rows | None = None) -> dict[str, dict[str, float]]:
    """
    Per held-out dataset: nDCG@10 of the fused order and of a model trained on the other
    datasets' rows. `test_rows` (default: `rows`) are what a held-out dataset is scored on, so a
    model trained on keyword-only rows of some sets is judged on the hybrid rows the service sees.
    """
    test_rows = rows if test_rows is None else test_rows
    bases = np.array([base_set(s) for s in rows.sets])
    out: dict[str, dict[str, float]] = {}
    for held in sorted(set(test_rows.sets)):
        test, train = test_rows.where(test_rows.sets == held), rows.where(bases != base_set(held))
        model = Reranker(kind).fit(train)
        out[held] = {
            "fused": round(mean_ndcg(test, -test.pos.astype(float)), 4),
            "reranked": round(mean_ndcg(test, model.score(test.x)), 4),
            "train_queries": int(len(set(train.qids))),
            "test_queries": int(len(set(test.qids))),
        }
    return out


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("rows", nargs="+", type=Path)
    ap.add_argument("--out", type=Path)
    ap.add_argument("--kind", default="linear", choices=["linear", "trees"])
    ap.add_argument("--exclude", action="append", default=[], help="leave this set out (training, --lodo)")
    ap.add_argument("--lodo", action="store_true", help="print leave-one-dataset-out nDCG@10")
    ap.add_argument("--lodo-on", nargs="+", type=Path, help="rows the held-out sets are scored on")
    a = ap.parse_args(argv)
    rows = load_rows(a.rows)
    names = feature_names()
    if rows.x.shape[1] != len(names):
        raise SystemExit(f"rows have {rows.x.shape[1]} features, rank-features.ts declares {len(names)}")
    train = rows.where(~np.isin(rows.sets, a.exclude)) if a.exclude else rows
    if a.lodo:
        test_rows = load_rows(a.lodo_on) if a.lodo_on else None
        print(json.dumps({"kind": a.kind, "lodo": lodo(train, a.kind, test_rows)}))
    if a.out:
        model = Reranker(a.kind).fit(train)
        doc = model.export(names)
        doc["trained_on"] = sorted(set(train.sets))
        a.out.write_text(json.dumps(doc, indent=1) + "\n")
        print(json.dumps({"wrote": str(a.out), "trained_on": doc["trained_on"], "rows": int(len(train.y))}))


if __name__ == "__main__":
    main()
