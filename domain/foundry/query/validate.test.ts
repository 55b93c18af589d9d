/** The statement fence: whatever planned it, only a bounded read of the tenant's own tables passes. */
import { describe, expect, test } from "bun:test";
import { AppError } from "../../errors.ts";
import { checkCypher, checkSql, MAX_STATEMENT_CHARS } from "./validate.ts";

const TABLES = ["companies", "income_statements", "filings", "market_daily"];

function refusal(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(AppError);
    expect((e as AppError).code).toBe("validation");
    const issue = (e as AppError).issues?.[0];
    expect(issue?.loc).toBeDefined();
    return issue?.msg ?? "";
  }
  throw new Error("expected a refusal");
}

describe("checkSql", () => {
  test("a plain SELECT passes with a LIMIT added and its tables named", () => {
    const c = checkSql(
      "SELECT c.ticker, i.revenue FROM companies c JOIN income_statements i ON c.cik = i.cik WHERE i.fiscal_year = 2023;",
      TABLES,
      1000,
    );
    expect(c.sql).toBe(
      "SELECT c.ticker, i.revenue FROM companies c JOIN income_statements i ON c.cik = i.cik WHERE i.fiscal_year = 2023 LIMIT 1001",
    );
    expect(c.tables).toEqual(["companies", "income_statements"]);
  });

  test("CTEs, subqueries, comma joins and a LIMIT within the cap pass; comments are dropped", () => {
    const c = checkSql(
      `WITH big AS (SELECT cik FROM income_statements WHERE revenue > 1e11) -- the large ones
       SELECT count(*) FROM companies, big WHERE companies.cik = big.cik AND companies.cik IN (SELECT cik FROM filings) LIMIT 10`,
      TABLES,
      1000,
    );
    expect(c.sql).not.toContain("--");
    expect(c.sql.endsWith("LIMIT 10")).toBe(true);
    expect(c.tables).toEqual(["companies", "filings", "income_statements"]);
  });

  test("a comment cannot swallow the added LIMIT", () => {
    const c = checkSql("SELECT * FROM filings -- LIMIT 5", TABLES, 100);
    expect(c.sql).toBe("SELECT * FROM filings LIMIT 101");
  });

  test("string literals keep their quotes and cannot smuggle words", () => {
    const c = checkSql("SELECT * FROM companies WHERE name = 'DROP TABLE x; DELETE' LIMIT 1", TABLES, 10);
    expect(c.sql).toContain("'DROP TABLE x; DELETE'");
    expect(refusal(() => checkSql("SELECT * FROM companies WHERE name = 'a\\' ; DROP TABLE x", TABLES, 10))).toContain(
      "backslash",
    );
  });

  test.each([
    ["INSERT INTO companies VALUES ('x')", "only read-only SELECT"],
    ["DELETE FROM companies", "only read-only SELECT"],
    ["DROP TABLE companies", "only read-only SELECT"],
    ["CREATE TABLE x AS SELECT * FROM companies", "only read-only SELECT"],
    ["COPY companies TO '/tmp/x.csv'", "only read-only SELECT"],
    ["ATTACH '/tmp/other.db' AS o", "only read-only SELECT"],
    ["PRAGMA database_list", "only read-only SELECT"],
    ["SET threads = 1", "only read-only SELECT"],
    ["SELECT 1; DROP TABLE companies", "one statement only"],
    ["SELECT * FROM companies; SELECT * FROM filings", "one statement only"],
    ["WITH x AS (DELETE FROM companies RETURNING *) SELECT * FROM x", "'DELETE' is not allowed"],
    ["SELECT * INTO copy FROM companies", "'INTO' is not allowed"],
  ])("refuses a write or admin statement: %s", (sql, msg) => {
    expect(refusal(() => checkSql(sql, TABLES, 100))).toContain(msg);
  });

  test.each([
    ["SELECT * FROM svc_tenant_other.companies", "tables are named bare"],
    ["SELECT svc_tenant_other.companies.cik FROM companies", "qualified by 'svc_tenant_other'"],
    ["SELECT * FROM other_ns.companies", "tables are named bare"],
    ["SELECT * FROM lake.svc_tenant_x.companies", "tables are named bare"],
    ["SELECT lake.x.cik FROM companies", "three-part names"],
    ["SELECT * FROM information_schema.tables", "tables are named bare"],
    [
      "SELECT (SELECT count(*) FROM companies) AS n, information_schema.tables.x FROM companies",
      "qualified by 'information_schema'",
    ],
    ["SELECT main.companies.cik FROM companies", "qualified by 'main'"],
    ["SELECT * FROM secret_table", "no table 'secret_table'"],
    ["SELECT * FROM read_parquet('/etc/passwd')", "function 'read_parquet' is not allowed"],
    ["SELECT * FROM read_csv_auto('s3://bucket/x.csv')", "function 'read_csv_auto' is not allowed"],
    ["SELECT * FROM iceberg_scan('/warehouse/other')", "is not allowed"],
    ["SELECT * FROM glob('/*')", "function 'glob' is not allowed"],
    ["SELECT getenv('HOME') FROM companies", "function 'getenv' is not allowed"],
    ["SELECT * FROM duckdb_settings()", "function 'duckdb_settings' is not allowed"],
    ['SELECT * FROM companies c JOIN "svc_tenant_b".filings f ON c.cik = f.cik', "svc_tenant_b"],
  ])("refuses a read outside the tenant's tables: %s", (sql, msg) => {
    expect(refusal(() => checkSql(sql, TABLES, 100))).toContain(msg);
  });

  test("refuses a LIMIT above the row cap, or one that is not a number; huge statements", () => {
    expect(refusal(() => checkSql("SELECT * FROM filings LIMIT 1000000", TABLES, 1000))).toContain(
      "above the row limit of 1000",
    );
    expect(refusal(() => checkSql("SELECT * FROM filings LIMIT (SELECT 5)", TABLES, 1000))).toContain("whole number");
    expect(refusal(() => checkSql(`SELECT ${"1 + ".repeat(MAX_STATEMENT_CHARS)}1`, TABLES, 10))).toContain(
      "longer than",
    );
  });

  test("a LIMIT inside a subquery does not count as the top-level one", () => {
    const c = checkSql("SELECT * FROM (SELECT * FROM filings LIMIT 5) f", TABLES, 50);
    expect(c.sql.endsWith("LIMIT 51")).toBe(true);
  });

  test("refuses characters outside strings and parameters", () => {
    expect(refusal(() => checkSql("SELECT * FROM companies WHERE cik = $1", TABLES, 10))).toContain("parameters");
    expect(refusal(() => checkSql("SELECT * FROM companies WHERE cik = \u0000", TABLES, 10))).toContain("U+0");
    expect(refusal(() => checkSql("SELECT * FROM companies WHERE (cik = 1", TABLES, 10))).toContain("unbalanced");
  });
});

describe("checkCypher", () => {
  test("a read over the model passes", () => {
    const q = "MATCH (s:Company)-[:SUBSIDIARY_OF]->(p:Company) WHERE p.ticker = $ticker RETURN s.name";
    expect(checkCypher(q).cypher).toBe(q);
  });
  test.each([
    "MATCH (c:Company) DETACH DELETE c",
    "CREATE (:Company {cik: '1'})",
    "MATCH (c:Company) SET c.name = 'x' RETURN c",
    "CALL db.labels()",
    "MATCH (n) RETURN n",
    "MATCH (c:t_other_Company) RETURN c",
    "MATCH (c:Company) RETURN c; MATCH (d:Company) RETURN d",
  ])("refuses %s", (q) => {
    expect(() => checkCypher(q)).toThrow(AppError);
  });
});
