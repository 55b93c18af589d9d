"""The artifacts of time-series and anomaly runs: what a forecast or a score needs later.

Both are serialised like the classification/regression ``TrainedModel`` (joblib bytes, sha256,
``lab.models.artifacts.load_artifact``) and carry the same ``format``, ``problem_type`` and
``algorithm`` attributes.

- :class:`ForecastModel`: the winning algorithm refitted on the whole series (ARIMA: the
  statsmodels results with the chosen orders; Prophet: its JSON serialisation, the form Prophet
  supports across processes), the frequency, season and last timestamp, and ARIMA's log
  transform. ``forecast(steps)`` continues the series from its last timestamp.
- :class:`AnomalyModel`: the preferred detector (IsolationForest) behind its preprocessing
  (median imputation, standard scaling), the score threshold of the run (rows at or below it
  are anomalies), the input columns and, for a value series, the derived series features fitted
  on the training rows (``anomaly.SeriesFeaturizer``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from lab.models.artifacts import FORMAT


@dataclass
class ForecastModel:
    algorithm: str  # ARIMA | Prophet
    freq: str  # pandas offset alias of the series' grid
    season: int  # points per season the model used (1: none)
    last_timestamp: str  # ISO; the first forecast is one step after it
    points: int  # points the model was fitted on
    log: bool  # ARIMA fitted log values: forecasts are exponentiated
    state: Any  # ARIMA: statsmodels ARIMAResults; Prophet: model_to_json text
    target: str = ""
    time_column: str = ""
    problem_type: str = "timeseries"
    format: str = FORMAT

    def timestamps(self, steps: int) -> pd.DatetimeIndex:
        return pd.date_range(pd.Timestamp(self.last_timestamp), periods=steps + 1, freq=self.freq)[1:]

    def forecast(self, steps: int) -> pd.DataFrame:
        """``steps`` values after the last timestamp: columns ``ds`` and ``yhat``."""
        if not isinstance(steps, int) or steps < 1:
            raise ValueError(f"steps must be a positive integer, got {steps!r}")
        if self.algorithm == "ARIMA":
            values = np.asarray(self.state.forecast(steps=steps), dtype=float)
            if self.log:
                values = np.exp(values)
        else:
            import warnings

            from prophet.serialize import model_from_json

            model = model_from_json(self.state)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                future = model.make_future_dataframe(periods=steps, freq=self.freq, include_history=False)
                values = model.predict(future)["yhat"].to_numpy(dtype=float)
        return pd.DataFrame({"ds": self.timestamps(steps), "yhat": values})


@dataclass
class AnomalyModel:
    algorithm: str  # the detector used for inference (IsolationForest)
    pipeline: Any  # sklearn Pipeline: preprocess, detector
    threshold: float  # scores at or below are anomalies (the run's contamination quantile)
    target: str  # the value column scored
    inputs: list[str]  # columns a row must carry (target first); the time column comes on top
    features: list[str]  # columns the pipeline sees (inputs plus derived series features)
    time_column: str | None
    featurizer: Any  # anomaly.SeriesFeaturizer fitted on the training rows, or None
    contamination: float
    problem_type: str = "anomaly"
    format: str = FORMAT

    def _features(self, frame: pd.DataFrame) -> pd.DataFrame:
        needed = [*self.inputs, *([self.time_column] if self.time_column else [])]
        missing = [c for c in needed if c not in frame.columns]
        if missing:
            raise ValueError(f"rows lack the model's column(s) {missing[:10]}")
        rows = frame.reset_index(drop=True)
        if self.featurizer is None:
            return rows[self.features].astype(float)
        derived = self.featurizer.transform(rows)  # sorted by time, original positions in "_row"
        extra = [c for c in self.inputs if c != self.target]
        out = derived.join(rows[extra].astype(float), on="_row") if extra else derived
        return out.sort_values("_row", kind="stable").reset_index(drop=True)[self.features]

    def score(self, frame: pd.DataFrame) -> np.ndarray:
        """Anomaly scores in the order of ``frame``'s rows (higher = more normal)."""
        return np.asarray(self.pipeline.score_samples(self._features(frame)), dtype=float)

    def flag(self, frame: pd.DataFrame) -> np.ndarray:
        """True for the rows whose score is at or below the stored threshold."""
        return self.score(frame) <= self.threshold
