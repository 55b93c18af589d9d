"""The reranker trainer: fit, held-out evaluation and the JSON the service reads."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from lab.ranking.train import Rows, feature_names, load_rows, main, mean_ndcg, ndcg10

NAMES = feature_names()
COVER = NAMES.index("cover")


def synthetic(path: Path, sets: list[str], seed: int = 3) -> None:
    """Queries whose relevant chunk has high `cover` but sits low in the fused order."""
    rng = np.random.default_rng(seed)
    with path.open("w") as f:
        for s in sets:
            for q in range(40):
                rel = int(rng.integers(5, 20))
                for pos in range(1, 21):
                    x = rng.uniform(0, 0.3, len(NAMES))
                    x[NAMES.index("fused_rr")] = 10 / (10 + pos)
                    if pos == rel:
                        x[COVER] = 0.9 + rng.uniform(0, 0.1)
                    row = {"set": s, "qid": f"q{q}", "doc_id": f"{s}-{q}-{pos}", "pos": pos}
                    row |= {"label": int(pos == rel), "n_rel": 1, "x": x.tolist()}
                    f.write(json.dumps(row) + "\n")


def test_feature_names_come_from_the_service_source() -> None:
    assert NAMES[:3] == ["bm25_rr", "dense_rr", "fused_rr"]
    assert len(NAMES) == len(set(NAMES)) == 16


def test_ndcg_folds_chunks_into_documents() -> None:
    assert ndcg10(["a", "a", "b"], {"b"}, 1) == pytest.approx(1 / np.log2(3))
    assert ndcg10(["x"], set(), 0) == 0.0
    assert ndcg10(["b", "a"], {"a", "b", "c"}, 3) < 1.0  # c was never retrieved


@pytest.mark.parametrize("kind", ["linear", "trees"])
def test_a_model_trained_on_other_sets_lifts_the_held_out_one(tmp_path: Path, kind: str) -> None:
    rows_file = tmp_path / "rows.jsonl"
    synthetic(rows_file, ["a", "b", "c"])
    out = tmp_path / "model.json"
    main([str(rows_file), "--out", str(out), "--kind", kind, "--exclude", "c"])
    model = json.loads(out.read_text())
    assert model["kind"] == kind and model["features"] == NAMES and model["trained_on"] == ["a", "b"]
    rows = load_rows([rows_file])
    held: Rows = rows.where(rows.sets == "c")
    fused = mean_ndcg(held, -held.pos.astype(float))
    if kind == "linear":
        z = (held.x - np.array(model["mean"])) / np.array(model["scale"])
        scores = z @ np.array(model["weights"]) + model["bias"]
        assert model["weights"][COVER] > 0
    else:
        scores = np.array([sum(_tree(t, x) for t in model["trees"]) for x in held.x])
    assert mean_ndcg(held, scores) > fused + 0.3


def _tree(node: dict, x: np.ndarray) -> float:
    while "leaf_value" not in node:
        node = node["left_child"] if x[node["split_feature"]] <= node["threshold"] else node["right_child"]
    return node["leaf_value"]


def test_leave_one_out_holds_out_a_dataset_and_scores_it_on_other_rows(tmp_path: Path, capsys) -> None:
    train_file, test_file = tmp_path / "train.jsonl", tmp_path / "test.jsonl"
    synthetic(train_file, ["a/bm25", "b", "c"])
    synthetic(test_file, ["a"], seed=9)
    main([str(train_file), "--lodo", "--lodo-on", str(test_file)])
    out = json.loads(capsys.readouterr().out)["lodo"]
    # Only "a" is scored (the test rows' sets), by a model that saw no rows of dataset a.
    assert list(out) == ["a"]
    assert out["a"]["train_queries"] == 80  # b and c; not a/bm25
    assert out["a"]["test_queries"] == 40
    assert out["a"]["reranked"] > out["a"]["fused"] + 0.3
