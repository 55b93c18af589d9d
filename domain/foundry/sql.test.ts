/**
 * The dataset compiler refuses injection and cross-namespace names in every field with a
 * validation error (422 body), and renders values only as typed, escaped literals.
 */
import { describe, expect, test } from "bun:test";
import { AppError } from "../errors.ts";
import type { DatasetSpec } from "./dataset.ts";
import { compileDataset, stringLiteral, typedLiteral, windowMs } from "./sql.ts";

const NS = "svc_tenant_acme";
const schemas = {
  companies: [
    { name: "cik", type: "string" },
    { name: "ticker", type: "string" },
    { name: "name", type: "string" },
    { name: "employees", type: "long" },
  ],
  income: [
    { name: "cik", type: "string" },
    { name: "fiscal_year", type: "int" },
    { name: "revenue", type: "double" },
    { name: "period_end", type: "date" },
    { name: "filed_at", type: "timestamptz" },
  ],
};
const ctx = { namespace: NS, output_table: "foundry_x", schemas };
const base: DatasetSpec = {
  name: "x",
  source_tables: [
    { table: "companies", alias: "c" },
    { table: "income", alias: "i", columns: ["fiscal_year", "revenue"] },
  ],
  joins: [{ left_table: "c", right_table: "i", left_col: "cik", right_col: "cik" }],
  filters: [{ column: "i.fiscal_year", op: ">=", value: "2020" }],
};

function issuesOf(spec: DatasetSpec): string[] {
  try {
    compileDataset(spec, ctx);
  } catch (e) {
    expect(e).toBeInstanceOf(AppError);
    const err = e as AppError;
    expect(err.status).toBe(422);
    return (err.issues ?? []).map((i) => i.loc.join("."));
  }
  throw new Error("compiled, but should have been refused");
}

const HOSTILE = [
  "companies; DROP TABLE companies",
  "companies --",
  "`companies`",
  '"companies"',
  "companies) UNION SELECT * FROM secrets (",
  `${NS}.companies`,
  "svc_tenant_other.companies",
  "cairn.svc_tenant_other.companies",
  "../companies",
  "companies\u0000",
  "ＣＯＭＰＡＮＩＥＳ",
  "read_csv('/etc/passwd')",
];

describe("dataset compiler", () => {
  test("a good spec compiles to the spec's Spark form and a DuckDB twin", () => {
    const out = compileDataset(base, ctx);
    expect(out.sql).toBe(
      "CREATE TABLE IF NOT EXISTS `svc_tenant_acme`.`foundry_x` USING iceberg AS\n" +
        "SELECT `c`.`cik` AS `cik`, `c`.`ticker` AS `ticker`, `c`.`name` AS `name`, `c`.`employees` AS `employees`, " +
        "`i`.`fiscal_year` AS `fiscal_year`, `i`.`revenue` AS `revenue`\n" +
        "FROM `svc_tenant_acme`.`companies` AS `c`\n" +
        "LEFT JOIN `svc_tenant_acme`.`income` AS `i` ON `c`.`cik` = `i`.`cik`\n" +
        "WHERE `i`.`fiscal_year` >= CAST(2020 AS BIGINT)",
    );
    expect(out.select.duckdb).toContain('FROM "svc_tenant_acme"."companies" AS "c"');
    expect(out.tables).toEqual(["companies", "income"]);
  });

  test.each(HOSTILE)("table name %p is refused", (table) => {
    expect(issuesOf({ ...base, source_tables: [{ table }], joins: [], filters: [] })).toEqual([
      "body.source_tables.0.table",
    ]);
  });

  test.each(HOSTILE)("alias %p is refused", (alias) => {
    expect(issuesOf({ ...base, source_tables: [{ table: "companies", alias }], joins: [], filters: [] })).toContain(
      "body.source_tables.0.alias",
    );
  });

  test.each(["cik; --", "cik`", "*", "c.cik", "1=1", "cik) OR (1=1"])("selected column %p is refused", (col) => {
    expect(
      issuesOf({ ...base, source_tables: [{ table: "companies", columns: [col] }], joins: [], filters: [] }),
    ).toEqual(["body.source_tables.0.columns.0"]);
  });

  test.each(["i.revenue; DROP", "x.revenue", "svc_tenant_other.companies.cik", "revenue`", "(revenue)"])(
    "filter column %p is refused",
    (column) => {
      expect(issuesOf({ ...base, filters: [{ column, op: "=", value: "1" }] })).toEqual(["body.filters.0.column"]);
    },
  );

  test.each(["; DROP TABLE x", "= 1 OR 1 =", "OR", "==>", "between", "regexp", "IS NOT DISTINCT FROM"])(
    "filter op %p is refused",
    (op) => {
      expect(issuesOf({ ...base, filters: [{ column: "i.revenue", op, value: "1" }] })).toEqual(["body.filters.0.op"]);
    },
  );

  test.each([
    ["i.fiscal_year", "2020 OR 1=1"],
    ["i.fiscal_year", "2020; DROP TABLE x"],
    ["i.fiscal_year", "99999999999"],
    ["i.revenue", "1e999"],
    ["i.revenue", "NaN"],
    ["i.period_end", "2024-02-30"],
    ["i.period_end", "2024-01-01' OR '1'='1"],
    ["i.filed_at", "yesterday"],
    ["c.employees", "0x10"],
  ])("a %p value that is not of the column's type (%p) is refused", (column, value) => {
    expect(issuesOf({ ...base, filters: [{ column, op: "=", value }] })).toEqual(["body.filters.0.value"]);
  });

  test("string values are never spliced: escaped per dialect", () => {
    const evil = "x' OR '1'='1' -- \\' ;";
    const out = compileDataset({ ...base, filters: [{ column: "c.name", op: "=", value: evil }] }, ctx);
    expect(out.select.spark).toContain("WHERE `c`.`name` = 'x\\' OR \\'1\\'=\\'1\\' -- \\\\\\' ;'");
    expect(out.select.duckdb).toContain(`WHERE "c"."name" = 'x'' OR ''1''=''1'' -- \\'' ;'`);
    expect(stringLiteral("a'b\\", "spark")).toBe("'a\\'b\\\\'");
    expect(stringLiteral("a'b\\", "duckdb")).toBe("'a''b\\'");
  });

  test("typed literals", () => {
    expect(typedLiteral("2020", "int", "spark")).toBe("CAST(2020 AS BIGINT)");
    expect(typedLiteral(" 1.5 ", "double", "duckdb")).toBe("CAST('1.5' AS DOUBLE)");
    expect(typedLiteral("2024-02-29", "date", "spark")).toBe("DATE '2024-02-29'");
    expect(typedLiteral("2024-02-29T10:00:00+02:00", "timestamptz", "spark")).toBe(
      "TIMESTAMP '2024-02-29 08:00:00.000'",
    );
    expect(typedLiteral("TRUE", "boolean", "duckdb")).toBe("TRUE");
    expect(() => typedLiteral("yes", "boolean", "duckdb")).toThrow();
  });

  test("in lists: typed one by one, JSON arrays keep commas inside values", () => {
    const out = compileDataset(
      { ...base, filters: [{ column: "c.name", op: "in", value: '["Acme, Inc.", "O\'Brien"]' }] },
      ctx,
    );
    expect(out.select.duckdb).toContain(`"c"."name" IN ('Acme, Inc.', 'O''Brien')`);
    expect(issuesOf({ ...base, filters: [{ column: "i.fiscal_year", op: "in", value: "2020,twenty" }] })).toEqual([
      "body.filters.0.value",
    ]);
  });

  test.each([
    [{ left_table: "c; DROP", right_table: "i", left_col: "cik", right_col: "cik" }, "body.joins.0.left_table"],
    [
      { left_table: "c", right_table: "svc_tenant_other.income", left_col: "cik", right_col: "cik" },
      "body.joins.0.right_table",
    ],
    [{ left_table: "c", right_table: "i", left_col: "cik = i.cik OR 1", right_col: "cik" }, "body.joins.0.left_col"],
    [{ left_table: "c", right_table: "i", left_col: "cik", right_col: "cik`" }, "body.joins.0.right_col"],
    [{ left_table: "c", right_table: "i", left_col: "cik", right_col: "revenue" }, "body.joins.0.right_col"],
  ])("join %p is refused at %p", (join, loc) => {
    expect(issuesOf({ ...base, joins: [join] })).toContain(loc);
  });

  test("a source that is not joined is refused", () => {
    expect(issuesOf({ ...base, joins: [] })).toEqual(["body.source_tables.1.table"]);
  });

  test.each([
    [
      { realtime_table: "bars; DROP TABLE x", column: "close", agg: "avg", window: "7d" },
      "body.realtime_cols.0.realtime_table",
    ],
    [
      { realtime_table: "t_other.bars", column: "close", agg: "avg", window: "7d" },
      "body.realtime_cols.0.realtime_table",
    ],
    [{ realtime_table: "bars", column: "close) FROM x --", agg: "avg", window: "7d" }, "body.realtime_cols.0.column"],
    [{ realtime_table: "bars", column: "close", agg: "avg(close)); --", window: "7d" }, "body.realtime_cols.0.agg"],
    [{ realtime_table: "bars", column: "close", agg: "avg", window: "7d; DROP" }, "body.realtime_cols.0.window"],
    [{ realtime_table: "bars", column: "close", agg: "avg", window: "99999999d" }, "body.realtime_cols.0.window"],
    [
      { realtime_table: "bars", column: "close", agg: "avg", window: "7d", join_column: "cik OR 1=1" },
      "body.realtime_cols.0.join_column",
    ],
    [
      { realtime_table: "bars", column: "close", agg: "avg", window: "7d", output_column: "x; DROP" },
      "body.realtime_cols.0.output_column",
    ],
  ])("time-series feature %p is refused at %p", (rt, loc) => {
    expect(issuesOf({ ...base, realtime_cols: [{ join_column: "c.ticker", ...rt }] })).toContain(loc);
  });

  test("graph features need the graph rules, and output columns may not collide", () => {
    expect(
      issuesOf({ ...base, graph_features: [{ label: "Company", cypher_fragment: "RETURN 1", output_column: "n" }] }),
    ).toEqual(["body.graph_features.0.label"]);
    const withRules = {
      ...ctx,
      graphKey: () => "cik",
      checkGraph: () => {
        throw AppError.validation([
          {
            loc: ["body", "graph_features", "0", "cypher_fragment"],
            msg: "write clause",
            type: "value_error",
            input: "",
            ctx: {},
          },
        ]);
      },
    };
    expect(() =>
      compileDataset(
        { ...base, graph_features: [{ label: "Company", cypher_fragment: "CREATE (n)", output_column: "n" }] },
        withRules,
      ),
    ).toThrow(AppError);
    const ok = compileDataset(
      { ...base, graph_features: [{ label: "Company", cypher_fragment: "RETURN 1", output_column: "n" }] },
      { ...withRules, checkGraph: () => {} },
    );
    expect(ok.relations).toEqual([
      { name: "__graph_0", kind: "graph", index: 0, output_column: "n", key: { alias: "c", column: "cik" } },
    ]);
    expect(ok.select.spark).toContain("LEFT JOIN `__graph_0` ON `__graph_0`.`key` = CAST(`c`.`cik` AS STRING)");
    expect(() =>
      compileDataset(
        { ...base, graph_features: [{ label: "Company", cypher_fragment: "RETURN 1", output_column: "revenue" }] },
        { ...withRules, checkGraph: () => {} },
      ),
    ).toThrow("Validation failed");
  });

  test("windows", () => {
    expect(windowMs("7d")).toBe(7 * 86_400_000);
    expect(windowMs("12h")).toBe(12 * 3_600_000);
    expect(windowMs("2w")).toBe(14 * 86_400_000);
    for (const w of ["0d", "7", "d", "7 d", "-7d", "7y", "7d7d"]) expect(windowMs(w)).toBeNull();
  });
});
