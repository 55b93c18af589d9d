"""One preprocessing pipeline for every algorithm, fitted on the training split and saved with the model.

Each feature gets its own small transformer inside a ``ColumnTransformer`` so that every output
column can be traced back to the feature it came from (SHAP and importances are reported per
original feature, summed over its one-hot and missing-indicator columns):

- numeric (numbers, booleans, datetimes as epoch seconds): median imputation with a missing
  indicator when the training split had gaps, then standard scaling (the linear models and SVMs
  need it, the trees do not mind);
- categorical (strings, categories): a constant ``"__missing__"`` category for gaps, then one-hot
  encoding of at most ``MAX_CATEGORIES`` categories, rarer ones folded into an infrequent bucket;
  categories never seen in training encode as all zeros.

Free-text columns (strings that are nearly all distinct) and all-null columns are refused
before any work starts: they carry nothing a tabular model can use.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from sklearn.compose import ColumnTransformer
from sklearn.impute import SimpleImputer
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import FunctionTransformer, OneHotEncoder, StandardScaler

MAX_CATEGORIES = 32
TEXT_MIN_DISTINCT = 100
TEXT_DISTINCT_SHARE = 0.5


@dataclass(frozen=True)
class ColumnKinds:
    numeric: list[str]
    categorical: list[str]


def _is_numeric(series: pd.Series) -> bool:
    return (
        pd.api.types.is_numeric_dtype(series)
        or pd.api.types.is_bool_dtype(series)
        or pd.api.types.is_datetime64_any_dtype(series)
    )


def classify_columns(frame: pd.DataFrame, features: list[str]) -> ColumnKinds:
    """Numeric and categorical features; ValueError for all-null and free-text columns."""
    all_null = [c for c in features if frame[c].isna().all()]
    if all_null:
        raise ValueError(
            f"feature column(s) {_names(all_null)} contain only nulls; leave them out of feature_columns"
        )
    numeric: list[str] = []
    categorical: list[str] = []
    text: list[str] = []
    for c in features:
        s = frame[c]
        if _is_numeric(s):
            numeric.append(c)
            continue
        present = s.dropna()
        distinct = present.astype(str).nunique()
        if distinct >= TEXT_MIN_DISTINCT and distinct > TEXT_DISTINCT_SHARE * len(present):
            text.append(c)
        else:
            categorical.append(c)
    if text:
        raise ValueError(
            f"feature column(s) {_names(text)} hold free text (almost every value distinct); "
            "a tabular model cannot use them: leave them out of feature_columns"
        )
    return ColumnKinds(numeric=numeric, categorical=categorical)


def _names(cols: list[str]) -> str:
    shown = ", ".join(repr(c) for c in cols[:10])
    return shown + (f" and {len(cols) - 10} more" if len(cols) > 10 else "")


def _to_float(x: object) -> np.ndarray:
    frame = pd.DataFrame(x)
    out = np.empty(frame.shape, dtype=np.float64)
    for i, col in enumerate(frame.columns):
        s = frame[col]
        if pd.api.types.is_datetime64_any_dtype(s):
            if getattr(s.dt, "tz", None) is not None:
                s = s.dt.tz_convert("UTC").dt.tz_localize(None)
            values = s.astype("datetime64[ns]").astype("int64").astype(np.float64) / 1e9
            values[s.isna().to_numpy()] = np.nan
            out[:, i] = values
        else:
            out[:, i] = pd.to_numeric(s, errors="coerce").astype("float64").to_numpy(na_value=np.nan)
    return out


def _to_str(x: object) -> np.ndarray:
    frame = pd.DataFrame(x)
    return frame.astype(object).where(frame.notna(), "__missing__").astype(str).to_numpy()


def build_preprocessor(kinds: ColumnKinds) -> ColumnTransformer:
    """The unfitted transformer: one step per feature, named by the feature's position."""
    steps = []
    for c in kinds.numeric:
        steps.append(
            (
                f"num{len(steps)}",
                Pipeline(
                    [
                        ("float", FunctionTransformer(_to_float, feature_names_out="one-to-one")),
                        (
                            "impute",
                            SimpleImputer(strategy="median", add_indicator=True, keep_empty_features=True),
                        ),
                        ("scale", StandardScaler()),
                    ]
                ),
                [c],
            )
        )
    for c in kinds.categorical:
        steps.append(
            (
                f"cat{len(steps)}",
                Pipeline(
                    [
                        ("str", FunctionTransformer(_to_str, feature_names_out="one-to-one")),
                        (
                            "onehot",
                            OneHotEncoder(
                                handle_unknown="infrequent_if_exist",
                                max_categories=MAX_CATEGORIES,
                                sparse_output=False,
                                dtype=np.float64,
                            ),
                        ),
                    ]
                ),
                [c],
            )
        )
    return ColumnTransformer(steps, remainder="drop", sparse_threshold=0.0, verbose_feature_names_out=False)


def output_groups(fitted: ColumnTransformer) -> list[tuple[str, int, int]]:
    """(feature, start, stop) of each feature's output columns in the fitted transformer."""
    groups = []
    for name, _, cols in fitted.transformers_:
        if name == "remainder":
            continue
        sl = fitted.output_indices_[name]
        groups.append((cols[0], sl.start, sl.stop))
    return groups


def aggregate(values: np.ndarray, groups: list[tuple[str, int, int]]) -> np.ndarray:
    """Sums axis 1 of ``values`` (rows x columns [x classes]) over each feature's output columns."""
    return np.stack([values[:, a:b].sum(axis=1) for _, a, b in groups], axis=1)
