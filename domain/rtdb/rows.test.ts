import { expect, test } from "bun:test";
import { parseCreateTable } from "./ddl.ts";
import { batchesOf, microsToIso, RowConverter, toEpochMicros } from "./rows.ts";
import type { Row } from "./table-spec.ts";

test("timestamps: ISO text (zones, fractions), Date, epoch ms (number), epoch us (bigint)", () => {
  const us = 1767225600123456n; // 2026-01-01T00:00:00.123456Z
  expect(toEpochMicros("2026-01-01T00:00:00.123456Z")).toBe(us);
  expect(toEpochMicros("2026-01-01 00:00:00.123456")).toBe(us);
  expect(toEpochMicros("2026-01-01T00:00:00.123456789Z")).toBe(us);
  expect(toEpochMicros("2026-01-01T02:00:00.123456+02:00")).toBe(us);
  expect(toEpochMicros("2025-12-31T19:30:00.123456-0430")).toBe(us);
  expect(toEpochMicros("2026-01-01")).toBe(us - 123456n);
  expect(toEpochMicros(new Date("2026-01-01T00:00:00.123Z"))).toBe(us - 456n);
  expect(toEpochMicros(1767225600123)).toBe(us - 456n);
  expect(toEpochMicros(us)).toBe(us);
  expect(microsToIso(us)).toBe("2026-01-01T00:00:00.123456Z");
  expect(microsToIso(-1n)).toBe("1969-12-31T23:59:59.999999Z");
  for (const bad of ["2026-02-30", "2026-13-01", "2026-01-01T24:00:00Z", "yesterday", ""]) {
    expect(() => toEpochMicros(bad)).toThrow();
  }
  expect(() => toEpochMicros(Number.NaN)).toThrow();
  expect(() => toEpochMicros(new Date("nope"))).toThrow();
  expect(() => toEpochMicros(10n ** 19n)).toThrow("outside years 1..9999");
});

test("the converter matches names case-insensitively and checks every type's range", () => {
  const spec = parseCreateTable(
    "CREATE TABLE t (s SYMBOL, b BYTE, sh SHORT, i INT, l LONG, d DOUBLE, c CHAR, u UUID, ok BOOLEAN, ts TIMESTAMP) " +
      "TIMESTAMP(ts) PARTITION BY DAY WAL",
  );
  const conv = new RowConverter(spec);
  expect(
    conv.convert({
      S: "x",
      b: -128,
      sh: 32767,
      i: 5,
      l: 2n ** 53n - 1n,
      d: Number.NaN,
      c: "z",
      u: "123E4567E89B12D3A456426614174000",
      OK: false,
      Ts: "2026-01-01T00:00:00Z",
    }),
  ).toEqual([
    "x",
    -128,
    32767,
    5,
    2 ** 53 - 1,
    null,
    "z",
    "123e4567-e89b-12d3-a456-426614174000",
    false,
    1767225600000000n,
  ]);
  const ts = "2026-01-01T00:00:00Z";
  const refuse = (row: Row, msg: string) => expect(() => conv.convert(row)).toThrow(msg);
  refuse({ b: 128, ts }, "row 2: column 'b' 128 is outside the BYTE range [-128, 127]");
  refuse({ l: 2n ** 53n, ts }, "column 'l' 9007199254740992 is outside the LONG range");
  refuse({ i: 1.5, ts }, "column 'i' is INT and needs an integer, got 1.5");
  refuse({ c: "ab", ts }, "column 'c' is CHAR and needs a one-character string");
  refuse({ u: "not-a-uuid", ts }, "column 'u' is UUID and needs a UUID string");
  refuse({ ok: 1, ts }, "column 'ok' is BOOLEAN and needs a boolean, got 1");
  refuse({ s: "a\0b", ts }, "column 's' contains a NUL character");
  refuse({ s: 5, ts }, "column 's' is SYMBOL and needs a string, got 5");
  refuse({ s: "x", ts: true }, "column 'ts' is TIMESTAMP and needs a timestamp, got true");
  expect(conv.converted).toBe(10);
  // The buffer form resets every slot between rows.
  const out = new Array(spec.columns.length);
  conv.convertInto({ s: "a", i: 1, ts }, out);
  expect(conv.convertInto({ d: 2, ts }, out)).toEqual([
    null,
    null,
    null,
    null,
    null,
    2,
    null,
    null,
    null,
    1767225600000000n,
  ]);
});

test("batches: arrays and async batches are split to the limit, never merged; empty batches vanish", async () => {
  const rows = (n: number): Row[] => Array.from({ length: n }, (_, i) => ({ i }));
  const sizes = async (src: Row[] | AsyncIterable<Row[]>) => {
    const out: number[] = [];
    for await (const b of batchesOf(src, 4)) out.push(b.length);
    return out;
  };
  expect(await sizes(rows(10))).toEqual([4, 4, 2]);
  expect(await sizes([])).toEqual([]);
  async function* gen() {
    yield rows(3);
    yield [];
    yield rows(9);
  }
  expect(await sizes(gen())).toEqual([3, 4, 4, 1]);
});

test("fast paths accept and refuse exactly what the general checks do, whatever the key order or case of each row", () => {
  const spec = parseCreateTable(
    "CREATE TABLE t (s SYMBOL, v VARCHAR, b BYTE, sh SHORT, i INT, l LONG, d DOUBLE, ts TIMESTAMP) " +
      "TIMESTAMP(ts) PARTITION BY DAY WAL",
  );
  const conv = new RowConverter(spec);
  const out = new Array(spec.columns.length);
  // Same keys as the row before, then reordered, renamed by case, fewer and more keys: the
  // remembered key positions never map a key to another row's column.
  expect(conv.convertInto({ s: "a", b: 127, ts: 1n }, out)).toEqual(["a", null, 127, null, null, null, null, 1n]);
  expect(conv.convertInto({ s: "b", b: -128, ts: 2n }, out)).toEqual(["b", null, -128, null, null, null, null, 2n]);
  expect(conv.convertInto({ b: 0, s: "c", ts: 3n }, out)).toEqual(["c", null, 0, null, null, null, null, 3n]);
  expect(conv.convertInto({ B: -0, S: "d", TS: 4n }, out)).toEqual(["d", null, -0, null, null, null, null, 4n]);
  expect(conv.convertInto({ ts: 5n, l: -(2 ** 53 - 1) }, out)).toEqual([
    null,
    null,
    null,
    null,
    null,
    -(2 ** 53 - 1),
    null,
    5n,
  ]);
  expect(conv.convertInto({ ts: 6n, l: 7, sh: -32768, i: 2147483647, v: "x y", d: -0.5 }, out)).toEqual([
    null,
    "x y",
    null,
    -32768,
    2147483647,
    7,
    -0.5,
    6n,
  ]);
  const refuse = (row: Row, msg: string) => expect(() => conv.convertInto(row, out)).toThrow(msg);
  refuse({ ts: 7n, l: 2 ** 53 }, "row 7: column 'l' 9007199254740992 is outside the LONG range");
  refuse({ ts: 8n, b: 128 }, "row 8: column 'b' 128 is outside the BYTE range [-128, 127]");
  refuse({ ts: 9n, sh: -32769 }, "row 9: column 'sh' -32769 is outside the SHORT range");
  refuse({ ts: 10n, i: -2147483648 }, "row 10: column 'i' -2147483648 is outside the INT range");
  refuse({ ts: 11n, i: 0.5 }, "row 11: column 'i' is INT and needs an integer, got 0.5");
  refuse({ ts: 12n, i: Number.POSITIVE_INFINITY }, "row 12: column 'i' is INT and needs an integer, got Infinity");
  refuse({ ts: 13n, i: Number.NaN }, "row 13: column 'i' is INT and needs an integer, got NaN");
  refuse({ ts: 14n, v: "nul\0inside" }, "row 14: column 'v' contains a NUL character");
  refuse({ ts: 15n, s: 1 }, "row 15: column 's' is SYMBOL and needs a string, got 1");
  refuse({ ts: 16n, nope: 1 }, "row 16: column 'nope' is not a column of table 't'");
  refuse({ ts: 17n, s: "ok", nope: 1 }, "row 17: column 'nope' is not a column of table 't'");
  // Integers as bigint still take the general path.
  expect(conv.convertInto({ ts: 18n, l: 5n, b: 1n }, out)).toEqual([null, null, 1, null, null, 5, null, 18n]);
});
