/** The time-series and anomaly request checks from column types (series-checks.ts). */
import { describe, expect, test } from "bun:test";
import { AppError, type ValidationIssue } from "../../errors.ts";
import { checkSeriesRequest } from "./series-checks.ts";

const AIRLINE = [
  { name: "month", type: "date" },
  { name: "passengers", type: "long" },
  { name: "carrier", type: "string" },
];

function issues(fn: () => unknown): ValidationIssue[] {
  try {
    fn();
  } catch (err) {
    if (err instanceof AppError && err.code === "validation") return err.issues ?? [];
    throw err;
  }
  throw new Error("expected a validation error");
}

describe("checkSeriesRequest", () => {
  test("a timeseries run takes the single date/timestamp column as its time column", () => {
    expect(checkSeriesRequest(AIRLINE, { target_column: "passengers" }, "timeseries", "air")).toEqual(["month"]);
    // Named: kept as given (a text column is left to the lab, which parses dates).
    expect(
      checkSeriesRequest(AIRLINE, { target_column: "passengers", feature_columns: ["carrier"] }, "timeseries", "air"),
    ).toEqual(["carrier"]);
  });

  test("no or several time columns, a non-time column, several features: 422 with the candidates", () => {
    const none = issues(() =>
      checkSeriesRequest([{ name: "x", type: "double" }], { target_column: "x" }, "timeseries", "d"),
    );
    expect(none[0]).toMatchObject({ loc: ["body", "feature_columns"], ctx: { candidates: [] } });
    expect(none[0]?.msg).toContain("no date or timestamp column");
    const two = [...AIRLINE, { name: "opened", type: "timestamptz" }];
    const several = issues(() => checkSeriesRequest(two, { target_column: "passengers" }, "timeseries", "d"));
    expect(several[0]?.ctx).toEqual({ candidates: ["month", "opened"] });
    const wrong = issues(() =>
      checkSeriesRequest(AIRLINE, { target_column: "month", feature_columns: ["passengers"] }, "timeseries", "d"),
    );
    expect(wrong.map((i) => i.loc.join("."))).toEqual(["body.target_column", "body.feature_columns.0"]);
    const many = issues(() =>
      checkSeriesRequest(
        AIRLINE,
        { target_column: "passengers", feature_columns: ["month", "carrier"] },
        "timeseries",
        "d",
      ),
    );
    expect(many[0]?.msg).toContain("only its time column");
  });

  test("anomaly: numeric target; the label column numeric or boolean, not a feature; only on anomaly runs", () => {
    const cols = [...AIRLINE, { name: "flag", type: "boolean" }];
    expect(checkSeriesRequest(cols, { target_column: "passengers", label_column: "flag" }, "anomaly", "d")).toEqual([]);
    expect(issues(() => checkSeriesRequest(cols, { target_column: "carrier" }, "anomaly", "d"))[0]?.loc).toEqual([
      "body",
      "target_column",
    ]);
    for (const label of ["carrier", "nope", "passengers"]) {
      const found = issues(() =>
        checkSeriesRequest(cols, { target_column: "passengers", label_column: label }, "anomaly", "d"),
      );
      expect(found[0]?.loc).toEqual(["body", "label_column"]);
    }
    const elsewhere = issues(() =>
      checkSeriesRequest(cols, { target_column: "passengers", label_column: "flag" }, "regression", "d"),
    );
    expect(elsewhere[0]?.msg).toBe("label_column applies to anomaly runs only");
  });
});
