/**
 * The request checks of time-series and anomaly runs that the dataset's column types answer
 * (spec 4.9; docs/foundry-models.md), before the lab's own checks on the rows:
 *
 * - timeseries: a numeric target; the time column is `feature_columns[0]` (the only entry: the
 *   forecast is univariate; a date, timestamp or text column the lab parses), else the table's
 *   single date/timestamp column; none or several is 422 naming the candidates. The resolved
 *   time column becomes the run's `feature_columns`, so the lab and the record agree on it.
 * - anomaly: a numeric target (the value scored); `label_column` (beyond the spec, optional)
 *   must be a numeric or boolean column that is neither the target nor a feature.
 * - `label_column` on any other problem type is 422.
 */
import { AppError, type ValidationIssue } from "../../errors.ts";
import type { LakehouseColumn } from "../../lakehouse/ports.ts";
import type { ProblemType } from "./model.ts";

const NUMERIC = /^(int|long|float|double|decimal\(.*\))$/;
const TIME = new Set(["date", "timestamp", "timestamptz"]);

export interface SeriesRequest {
  target_column: string;
  feature_columns?: string[] | undefined;
  label_column?: string | null | undefined;
}

const issue = (loc: string[], msg: string, input: unknown, ctx: Record<string, unknown> = {}): ValidationIssue => ({
  loc,
  msg,
  type: "value_error",
  input,
  ctx,
});

/**
 * The feature columns the run is queued with (timeseries: `[time column]`; otherwise as
 * requested), or 422 with one item per fault. Columns the table lacks are left to the shared
 * checks (checks.ts), which name them.
 */
export function checkSeriesRequest(
  columns: LakehouseColumn[],
  req: SeriesRequest,
  problem: ProblemType | null,
  dataset: string,
): string[] {
  const types = new Map(columns.map((c) => [c.name, c.type.toLowerCase()]));
  const features = req.feature_columns ?? [];
  const label = req.label_column ?? null;
  const issues: ValidationIssue[] = [];
  let resolved = features;
  if (label !== null && problem !== "anomaly") {
    issues.push(issue(["body", "label_column"], "label_column applies to anomaly runs only", label));
  }
  if (problem === "timeseries" || problem === "anomaly") {
    const targetType = types.get(req.target_column);
    if (targetType !== undefined && !NUMERIC.test(targetType)) {
      const why =
        problem === "timeseries"
          ? "a time-series run forecasts a numeric series"
          : "anomaly detection scores a numeric value column";
      issues.push(
        issue(
          ["body", "target_column"],
          `Column '${req.target_column}' is not numeric (${targetType}): ${why}`,
          req.target_column,
          {
            type: targetType,
          },
        ),
      );
    }
  }
  if (problem === "timeseries") {
    const candidates = columns
      .filter((c) => c.name !== req.target_column && TIME.has(c.type.toLowerCase()))
      .map((c) => c.name);
    if (features.length > 1) {
      issues.push(
        issue(
          ["body", "feature_columns"],
          "A time-series run forecasts one series: feature_columns may name only its time column",
          features,
          { candidates },
        ),
      );
    } else if (features.length === 1) {
      const t = types.get(features[0] as string);
      if (t !== undefined && !TIME.has(t) && t !== "string") {
        issues.push(
          issue(
            ["body", "feature_columns", "0"],
            `Column '${features[0]}' (${t}) is not a date or timestamp column`,
            features[0],
            {
              candidates,
            },
          ),
        );
      }
    } else if (candidates.length === 1) {
      resolved = candidates;
    } else {
      const msg =
        candidates.length === 0
          ? `Dataset '${dataset}' has no date or timestamp column to order the series by: name the time column as feature_columns[0]`
          : `Dataset '${dataset}' has several date/timestamp columns (${candidates.join(", ")}): name the time column as feature_columns[0]`;
      issues.push(issue(["body", "feature_columns"], msg, features, { candidates }));
    }
  }
  if (problem === "anomaly" && label !== null) {
    const t = types.get(label);
    if (t === undefined) {
      issues.push(issue(["body", "label_column"], `Column '${label}' is not in dataset '${dataset}'`, label));
    } else if (label === req.target_column || features.includes(label)) {
      issues.push(issue(["body", "label_column"], "The label column cannot also be the target or a feature", label));
    } else if (!NUMERIC.test(t) && t !== "boolean") {
      issues.push(
        issue(["body", "label_column"], `Column '${label}' (${t}) must be 0/1 or boolean`, label, { type: t }),
      );
    }
  }
  if (issues.length) throw AppError.validation(issues);
  return resolved;
}
