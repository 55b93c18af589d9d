import { describe, expect, test } from "bun:test";
import { AppError } from "../errors.ts";
import { DdlError, normaliseDdl, parseCreateTable, parseCreateTableRequest } from "./ddl.ts";

const TRADES =
  "CREATE TABLE trades (symbol SYMBOL CAPACITY 300 NOCACHE INDEX CAPACITY 512, side SYMBOL, price DOUBLE, " +
  "amount LONG, ts TIMESTAMP) TIMESTAMP(ts) PARTITION BY DAY WAL;";

function refusal(sql: string): DdlError {
  try {
    parseCreateTable(sql);
  } catch (err) {
    if (err instanceof DdlError) return err;
    throw err;
  }
  throw new Error(`accepted: ${sql}`);
}

describe("parseCreateTable: accepted statements", () => {
  test("the spec's shape, with symbol options and defaults", () => {
    const spec = parseCreateTable(TRADES);
    expect(spec).toEqual({
      name: "trades",
      ifNotExists: false,
      designated: "ts",
      partitionBy: "DAY",
      wal: true,
      columns: [
        // 300 rounds up to the next power of two, as QuestDB does.
        { name: "symbol", type: "SYMBOL", symbol: { capacity: 512, cached: false, index: { capacity: 512 } } },
        { name: "side", type: "SYMBOL", symbol: { capacity: 256, cached: true, index: null } },
        { name: "price", type: "DOUBLE" },
        { name: "amount", type: "LONG" },
        { name: "ts", type: "TIMESTAMP" },
      ],
    });
    expect(normaliseDdl(spec)).toBe(
      "CREATE TABLE trades (symbol SYMBOL CAPACITY 512 NOCACHE INDEX CAPACITY 512, side SYMBOL CAPACITY 256 CACHE, " +
        "price DOUBLE, amount LONG, ts TIMESTAMP) TIMESTAMP(ts) PARTITION BY DAY WAL",
    );
  });

  test("every supported type, IF NOT EXISTS, case-insensitive keywords, comments, no semicolon", () => {
    const sql = `create table if not exists Ticks ( -- a comment
      s symbol index, d double, l long, i int, sh short, b byte, f float, bo boolean, st string,
      v varchar, t timestamp, dt date, c char, u uuid
    ) timestamp(T) partition by hour wal`;
    const spec = parseCreateTable(sql);
    expect(spec.ifNotExists).toBe(true);
    expect(spec.name).toBe("Ticks");
    expect(spec.designated).toBe("t");
    expect(spec.partitionBy).toBe("HOUR");
    expect(spec.columns.map((c) => c.type)).toEqual([
      "SYMBOL",
      "DOUBLE",
      "LONG",
      "INT",
      "SHORT",
      "BYTE",
      "FLOAT",
      "BOOLEAN",
      "STRING",
      "VARCHAR",
      "TIMESTAMP",
      "DATE",
      "CHAR",
      "UUID",
    ]);
    expect(spec.columns[0]?.symbol).toEqual({ capacity: 256, cached: true, index: { capacity: 256 } });
  });

  test("quoted identifiers and contextual keywords as names; the normalised DDL reparses to the same spec", () => {
    const spec = parseCreateTable(
      'CREATE TABLE "quotes" ("timestamp" TIMESTAMP, wal DOUBLE) TIMESTAMP("timestamp") PARTITION BY MONTH WAL',
    );
    expect(spec.name).toBe("quotes");
    expect(spec.columns).toEqual([
      { name: "timestamp", type: "TIMESTAMP" },
      { name: "wal", type: "DOUBLE" },
    ]);
    expect(parseCreateTable(normaliseDdl(spec))).toEqual(spec);
  });
});

describe("parseCreateTable: refusals point at the offending token", () => {
  const cases: [string, string, string, number][] = [
    [
      "only CREATE TABLE",
      "DROP TABLE trades",
      "only CREATE TABLE statements are accepted: expected CREATE TABLE at position 0, found 'DROP'",
      0,
    ],
    [
      "CREATE of something else",
      "CREATE VIEW v AS SELECT 1",
      "only CREATE TABLE statements are accepted: expected CREATE TABLE at position 7, found 'VIEW'",
      7,
    ],
    [
      "empty",
      "   ",
      "only CREATE TABLE statements are accepted: expected CREATE TABLE at position 3, found end of statement",
      3,
    ],
    [
      "missing PARTITION BY",
      "CREATE TABLE t (ts TIMESTAMP) TIMESTAMP(ts) WAL",
      "expected PARTITION BY at position 44, found 'WAL'",
      44,
    ],
    [
      "bad partition unit",
      "CREATE TABLE t (ts TIMESTAMP) TIMESTAMP(ts) PARTITION BY YEAR WAL",
      "expected DAY, HOUR or MONTH at position 57, found 'YEAR'",
      57,
    ],
    [
      "NONE partitioning",
      "CREATE TABLE t (ts TIMESTAMP) TIMESTAMP(ts) PARTITION BY NONE WAL",
      "expected DAY, HOUR or MONTH at position 57, found 'NONE'",
      57,
    ],
    [
      "missing WAL",
      "CREATE TABLE t (ts TIMESTAMP) TIMESTAMP(ts) PARTITION BY DAY",
      "expected WAL at position 60, found end of statement",
      60,
    ],
    [
      "BYPASS WAL",
      "CREATE TABLE t (ts TIMESTAMP) TIMESTAMP(ts) PARTITION BY DAY BYPASS WAL",
      "expected WAL at position 61, found 'BYPASS'",
      61,
    ],
    [
      "missing designated timestamp",
      "CREATE TABLE t (ts TIMESTAMP) PARTITION BY DAY WAL",
      "expected TIMESTAMP(column) at position 30, found 'PARTITION'",
      30,
    ],
    [
      "designated column unknown",
      "CREATE TABLE t (ts TIMESTAMP) TIMESTAMP(x) PARTITION BY DAY WAL",
      "unknown column 'x' at position 40",
      40,
    ],
    [
      "designated column not a TIMESTAMP",
      "CREATE TABLE t (d DATE) TIMESTAMP(d) PARTITION BY DAY WAL",
      "designated timestamp column 'd' at position 34 must be of type TIMESTAMP, not DATE",
      34,
    ],
    [
      "unknown type",
      "CREATE TABLE t (x BLOB, ts TIMESTAMP) TIMESTAMP(ts) PARTITION BY DAY WAL",
      "expected a column type (SYMBOL, DOUBLE, LONG, INT, SHORT, BYTE, FLOAT, BOOLEAN, STRING, VARCHAR, TIMESTAMP, DATE, CHAR, UUID) at position 18, found 'BLOB'",
      18,
    ],
    [
      "duplicate column",
      "CREATE TABLE t (ts TIMESTAMP, TS DOUBLE) TIMESTAMP(ts) PARTITION BY DAY WAL",
      "duplicate column 'TS' at position 30",
      30,
    ],
    [
      "trailing tokens",
      "CREATE TABLE t (ts TIMESTAMP) TIMESTAMP(ts) PARTITION BY DAY WAL; DROP TABLE t",
      "expected end of statement at position 66, found 'DROP'",
      66,
    ],
    ["unexpected character", "CREATE TABLE t.x (ts TIMESTAMP)", "unexpected character at position 14, found '.'", 14],
    [
      "symbol capacity too small",
      "CREATE TABLE t (s SYMBOL CAPACITY 1, ts TIMESTAMP) TIMESTAMP(ts) PARTITION BY DAY WAL",
      "symbol capacity at position 34 must be between 2 and 1073741824, found '1'",
      34,
    ],
    [
      "INDEX on a non-symbol",
      "CREATE TABLE t (d DOUBLE INDEX, ts TIMESTAMP) TIMESTAMP(ts) PARTITION BY DAY WAL",
      "expected ')' at position 25, found 'INDEX'",
      25,
    ],
    ["unterminated quote", 'CREATE TABLE "t (ts TIMESTAMP)', "unterminated quoted identifier at position 13", 13],
  ];
  for (const [title, sql, message, position] of cases) {
    test(title, () => {
      const err = refusal(sql);
      expect(err.message).toBe(message);
      expect(err.position).toBe(position);
    });
  }

  test("invalid table names are refused", () => {
    expect(refusal(`CREATE TABLE "bad-name" (ts TIMESTAMP) TIMESTAMP(ts) PARTITION BY DAY WAL`).message).toStartWith(
      "invalid table name at position 13, found '\"bad-name\"'",
    );
    const long = "a".repeat(128);
    expect(refusal(`CREATE TABLE ${long} (ts TIMESTAMP) TIMESTAMP(ts) PARTITION BY DAY WAL`).token).toBe(long);
    expect(
      parseCreateTable(`CREATE TABLE ${long.slice(1)} (ts TIMESTAMP) TIMESTAMP(ts) PARTITION BY DAY WAL`).name,
    ).toBe(long.slice(1));
  });

  test("parseCreateTableRequest wraps a refusal in the section 7 body", () => {
    const sql = "CREATE TABLE t (ts TIMESTAMP) TIMESTAMP(ts) WAL";
    let caught: unknown;
    try {
      parseCreateTableRequest(sql);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(AppError);
    expect((caught as AppError).status).toBe(422);
    expect((caught as AppError).toBody()).toEqual({
      detail: [
        {
          loc: ["body", "sql"],
          msg: "expected PARTITION BY at position 44, found 'WAL'",
          type: "ddl_invalid",
          input: sql,
          ctx: { position: 44, token: "WAL" },
        },
      ],
    });
  });
});
