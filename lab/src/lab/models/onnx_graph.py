"""The pieces of the fast path's ONNX graph (lab.models.onnx_export assembles and checks them).

- the preprocessing: the lab's fitted ColumnTransformer (lab.models.preprocess) rebuilt from
  standard ONNX operators, one input per feature, writing ``cairn_X`` (double [N, width]);
- the estimator: skl2onnx (scikit-learn), onnxmltools (XGBoost, LightGBM) or CatBoost's own
  export (its ZipMap dropped), reading ``X``
  (double [N, width]) with each library's own rounding of the features.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from lab.models.artifacts import TrainedModel

OPSET = 15  # ai.onnx: the newest onnxmltools 1.16 converts to; onnxruntime-node 1.30 runs it
ML_OPSET = 3  # ai.onnx.ml: TreeEnsemble with double thresholds (nodes_values_as_tensor)
TREES_SKLEARN = {"RandomForest", "ExtraTrees", "GradientBoosting"}
LINEAR = {"LogisticRegression", "Ridge", "Lasso", "ElasticNet"}
SUPPORTED = TREES_SKLEARN | LINEAR | {"XGBoost", "LightGBM", "CatBoost"}


# -- preprocessing ---------------------------------------------------------------------------------


def preprocess_graph(preprocess: Any, sample: pd.DataFrame) -> tuple[list, list, list[dict[str, str]], int]:
    """Nodes and initializers writing ``cairn_X`` (double [N, width]) from the per-feature inputs,
    in the ColumnTransformer's output order; the input descriptions; the width."""
    from onnx import TensorProto, helper, numpy_helper

    nodes: list = []
    inits: list = []
    inputs: list[dict[str, str]] = []
    parts: list[str] = []
    width = 0

    def const(name: str, value: np.ndarray) -> str:
        inits.append(numpy_helper.from_array(value, name))
        return name

    for step, (name, pipe, cols) in enumerate(t for t in preprocess.transformers_ if t[0] != "remainder"):
        if pipe == "drop":
            continue
        col = cols[0]
        sl = preprocess.output_indices_[name]
        p = f"cairn_{step}_"
        steps = dict(pipe.steps)
        if name.startswith("num"):
            impute, scale = steps["impute"], steps["scale"]
            median = float(np.asarray(impute.statistics_, dtype=np.float64)[0])
            if not np.isfinite(median):
                raise ValueError(f"feature {col!r} has no imputation value")
            inputs.append({"name": col, "type": "float64", "kind": _numeric_kind(sample, col)})
            nodes.append(helper.make_node("IsNaN", [col], [p + "nan"]))
            nodes.append(
                helper.make_node(
                    "Where", [p + "nan", const(p + "median", np.array([[median]])), col], [p + "imputed"]
                )
            )
            cols_out = [p + "imputed"]
            indicator = getattr(impute, "indicator_", None)
            if indicator is not None and len(indicator.features_) > 0:
                nodes.append(helper.make_node("Cast", [p + "nan"], [p + "flag"], to=TensorProto.DOUBLE))
                cols_out.append(p + "flag")
            if len(cols_out) > 1:
                nodes.append(helper.make_node("Concat", cols_out, [p + "raw"], axis=1))
            else:
                nodes.append(helper.make_node("Identity", cols_out, [p + "raw"]))
            n = len(cols_out)
            mean = np.zeros(n) if scale.mean_ is None else np.asarray(scale.mean_, dtype=np.float64)
            std = np.ones(n) if scale.scale_ is None else np.asarray(scale.scale_, dtype=np.float64)
            # sklearn: X -= mean_; X /= scale_ — the same two double operations, in that order.
            nodes.append(
                helper.make_node("Sub", [p + "raw", const(p + "mean", mean.reshape(1, n))], [p + "c"])
            )
            nodes.append(helper.make_node("Div", [p + "c", const(p + "std", std.reshape(1, n))], [p + "out"]))
        elif name.startswith("cat"):
            ohe = steps["onehot"]
            n = sl.stop - sl.start
            keys, values, default = _onehot_table(ohe)
            if n != len(_out_names(ohe)):
                raise ValueError(f"feature {col!r}: {n} output columns, the encoder has {_out_names(ohe)}")
            inputs.append({"name": col, "type": "string", "kind": "category"})
            nodes.append(
                helper.make_node(
                    "LabelEncoder",
                    [col],
                    [p + "idx"],
                    domain="ai.onnx.ml",
                    keys_strings=keys,
                    values_int64s=values,
                    default_int64=default,
                )
            )
            nodes.append(
                helper.make_node(
                    "Equal", [p + "idx", const(p + "range", np.arange(n, dtype=np.int64))], [p + "hot"]
                )
            )
            nodes.append(helper.make_node("Cast", [p + "hot"], [p + "out"], to=TensorProto.DOUBLE))
        else:
            raise ValueError(f"unknown preprocessing step {name!r}")
        if sl.start != width:
            raise ValueError(f"feature {col!r} starts at column {sl.start}, expected {width}")
        width = sl.stop
        parts.append(p + "out")
    nodes.append(helper.make_node("Concat", parts, ["cairn_X"], axis=1))
    return nodes, inits, inputs, width


def _out_names(ohe: Any) -> list[Any]:
    return list(ohe._compute_transformed_categories(0))


def _onehot_table(ohe: Any) -> tuple[list[str], list[int], int]:
    """LabelEncoder keys/values: each known category to its output column (the infrequent ones to
    the infrequent column); the default (unseen categories) is the infrequent column when there is
    one (handle_unknown="infrequent_if_exist"), else -1: no column, all zeros."""
    if getattr(ohe, "drop_idx_", None) is not None:
        raise ValueError("OneHotEncoder(drop=...) is not part of the lab's preprocessing")
    cats = [str(c) for c in ohe.categories_[0]]
    out = _out_names(ohe)
    infrequent_col = (
        len(out) - 1
        if getattr(ohe, "_infrequent_enabled", False) and out[-1] == "infrequent_sklearn"
        else None
    )
    frequent = {str(c): i for i, c in enumerate(out) if infrequent_col is None or i != infrequent_col}
    keys, values = [], []
    for c in cats:
        if c in frequent:
            keys.append(c)
            values.append(frequent[c])
        elif infrequent_col is not None:
            keys.append(c)
            values.append(infrequent_col)
        else:
            raise ValueError(f"category {c!r} has no output column")
    return keys, values, (infrequent_col if infrequent_col is not None else -1)


def _numeric_kind(sample: pd.DataFrame, col: str) -> str:
    s = sample[col] if col in sample.columns else None
    if s is None:
        return "number"
    if pd.api.types.is_bool_dtype(s):
        return "boolean"
    if pd.api.types.is_datetime64_any_dtype(s):
        return "datetime"
    return "number"


# -- estimator -------------------------------------------------------------------------------------


def tree_nodes(estimator: Any) -> int:
    if hasattr(estimator, "estimators_"):
        trees = np.asarray(estimator.estimators_, dtype=object).reshape(-1)
        return int(sum(getattr(getattr(t, "tree_", None), "node_count", 0) for t in trees))
    if hasattr(estimator, "get_booster"):
        return sum(tree.count("\n") for tree in estimator.get_booster().get_dump())  # a line per node
    if hasattr(estimator, "booster_"):
        dump = estimator.booster_.dump_model()
        return int(sum(2 * t.get("num_leaves", 1) for t in dump["tree_info"]))
    return 0


def estimator_model(model: TrainedModel, estimator: Any, width: int) -> Any:
    """The estimator alone as ONNX: input ``X`` double [N, width]; output ``probabilities`` (zipmap
    off) or ``variable``. Trees read float32 features the way their libraries do (sklearn and
    XGBoost cast X to float32 before comparing); the Cast is part of the graph."""
    from onnx import TensorProto, helper
    from skl2onnx.common.data_types import DoubleTensorType, FloatTensorType

    target = {"": OPSET, "ai.onnx.ml": ML_OPSET}
    classifier = model.classes is not None
    algo = model.algorithm
    if algo in LINEAR:
        from skl2onnx import convert_sklearn

        options = {id(estimator): {"zipmap": False}} if classifier else None
        return convert_sklearn(
            estimator,
            initial_types=[("X", DoubleTensorType([None, width]))],
            target_opset=target,
            options=options,
        )
    if algo in TREES_SKLEARN:
        from skl2onnx import convert_sklearn

        options = {id(estimator): {"zipmap": False}} if classifier else None
        # Double thresholds on float32-rounded features: sklearn compares float32(x) <= threshold (float64).
        inner = convert_sklearn(
            estimator,
            initial_types=[("X32", DoubleTensorType([None, width]))],
            target_opset=target,
            options=options,
        )
        return _with_float32_rounding(inner, "X32", double=True)
    if algo == "CatBoost":
        return _with_float32_rounding(_catboost_model(estimator, classifier), "features", double=False)
    if algo == "XGBoost":
        from onnxmltools import convert_xgboost
        from onnxmltools.convert.common.data_types import FloatTensorType

        inner = convert_xgboost(
            estimator, initial_types=[("X32", FloatTensorType([None, width]))], target_opset=OPSET
        )
    elif algo == "LightGBM":
        from onnxmltools import convert_lightgbm
        from onnxmltools.convert.common.data_types import FloatTensorType

        inner = convert_lightgbm(
            estimator,
            initial_types=[("X32", FloatTensorType([None, width]))],
            target_opset=OPSET,
            zipmap=False,
        )
        # LightGBM compares float64 features with float64 thresholds: float32 would move rows
        # across splits (measured on California housing: 1 % off). Double thresholds, no rounding.
        _lightgbm_double_thresholds(inner, estimator)
        return _with_float32_rounding(inner, "X32", double=None)
    else:
        raise ValueError(f"{algo} has no converter")
    del TensorProto, helper
    return _with_float32_rounding(inner, "X32", double=False)


def _catboost_model(estimator: Any, classifier: bool) -> Any:
    """CatBoost's own ONNX export (TreeEnsemble over float32 ``features``, as CatBoost itself
    reads them; the lab passes it only the preprocessed numeric matrix, so no categorical
    features), its ZipMap dropped: the ensemble's probability tensor is the output."""
    import os
    import tempfile

    import onnx
    from onnx import helper

    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "model.onnx")
        estimator.save_model(path, format="onnx")
        inner = onnx.load(path)
    trees = [n for n in inner.graph.node if n.op_type.startswith("TreeEnsemble")]
    others = [n.op_type for n in inner.graph.node if n not in trees and n.op_type != "ZipMap"]
    if len(trees) != 1 or others:
        raise ValueError(f"unexpected CatBoost ONNX graph: {[n.op_type for n in inner.graph.node]}")
    tree = trees[0]
    name = "probabilities" if classifier else "variable"
    position = 1 if classifier else 0
    if len(tree.output) <= position:
        raise ValueError("the CatBoost graph has no score output")
    outputs = list(tree.output)
    outputs[position] = name
    del tree.output[:]
    tree.output.extend(outputs)
    kind = onnx.TensorProto.FLOAT
    graph = helper.make_graph(
        [tree],
        inner.graph.name,
        list(inner.graph.input),
        [helper.make_tensor_value_info(name, kind, [None, None])],
        initializer=list(inner.graph.initializer),
    )
    opsets = [o for o in inner.opset_import if o.domain == "ai.onnx.ml"] + [helper.make_opsetid("", OPSET)]
    return helper.make_model(graph, opset_imports=opsets, ir_version=inner.ir_version)


def _with_float32_rounding(inner: Any, name: str, double: bool | None) -> Any:
    """``inner`` with a new input ``X`` (double) cast to float32 (and back to double when the
    inner graph reads doubles; passed as it is when ``double`` is None) before ``name``."""
    from onnx import TensorProto, helper

    if double is None:
        pre = [helper.make_node("Identity", ["X"], [name])]
    else:
        pre = [helper.make_node("Cast", ["X"], ["X_f32" if double else name], to=TensorProto.FLOAT)]
    if double:
        pre.append(helper.make_node("Cast", ["X_f32"], [name], to=TensorProto.DOUBLE))
    shape = [d.dim_value or None for d in inner.graph.input[0].type.tensor_type.shape.dim]
    graph = helper.make_graph(
        pre + list(inner.graph.node),
        inner.graph.name,
        [helper.make_tensor_value_info("X", TensorProto.DOUBLE, shape)],
        list(inner.graph.output),
        initializer=list(inner.graph.initializer),
    )
    out = helper.make_model(graph, opset_imports=list(inner.opset_import), ir_version=inner.ir_version)
    return out


def _lightgbm_double_thresholds(inner: Any, estimator: Any) -> None:
    """Replaces the float32 ``nodes_values`` of onnxmltools' TreeEnsemble node by the booster's own
    float64 thresholds (``nodes_values_as_tensor``, ai.onnx.ml 3), recomputed with onnxmltools'
    own parser in its own node order; ValueError when the two lists do not line up."""
    from collections import Counter

    from onnx import helper, numpy_helper
    from onnxmltools.convert.common.tree_ensemble import get_default_tree_classifier_attribute_pairs
    from onnxmltools.convert.lightgbm.operator_converters.LightGbm import (
        _parse_tree_structure,
        dump_booster_model,
        modify_tree_for_rule_in_set,
    )

    text, info = dump_booster_model(estimator.booster_)
    modify_tree_for_rule_in_set(text, use_float=True, info=info)
    n_classes = max(int(text.get("num_tree_per_iteration", 1)), 1)
    attrs = get_default_tree_classifier_attribute_pairs()
    for i, tree in enumerate(text["tree_info"]):
        _parse_tree_structure(i, i % n_classes, 1.0, tree["tree_structure"], attrs)
    per_tree = Counter(attrs["nodes_treeids"])
    start = [0] * len(per_tree)
    for i in range(1, len(per_tree)):
        start[i] = start[i - 1] + per_tree[i - 1]
    order = [start[t] + n for t, n in zip(attrs["nodes_treeids"], attrs["nodes_nodeids"], strict=True)]
    values = np.array(
        [v for _, v in sorted(zip(order, attrs["nodes_values"], strict=True))], dtype=np.float64
    )
    trees = [n for n in inner.graph.node if n.op_type.startswith("TreeEnsemble")]
    if len(trees) != 1:
        raise ValueError(f"expected one TreeEnsemble node, found {len(trees)}")
    node = trees[0]
    old = next((a for a in node.attribute if a.name == "nodes_values"), None)
    if old is None or len(old.floats) != len(values):
        raise ValueError("the LightGBM graph's thresholds do not line up with the booster's")
    if not np.array_equal(np.asarray(old.floats, dtype=np.float32), values.astype(np.float32)):
        raise ValueError("the LightGBM graph's thresholds do not match the booster's")
    node.attribute.remove(old)
    node.attribute.append(helper.make_attribute("nodes_values_as_tensor", numpy_helper.from_array(values)))
    for opset in inner.opset_import:
        if opset.domain == "ai.onnx.ml":
            opset.version = max(opset.version, ML_OPSET)
