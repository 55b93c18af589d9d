import { expect, test } from "bun:test";
import { type CanonicalValue, type ColumnType, parseCreateTable, RowConverter } from "../../domain/rtdb/index.ts";
import { escapeName, escapeQuoted, IlpTableEncoder } from "./ilp.ts";
import { IlpTextEncoder } from "./ilp-reference.ts";

const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
/** What the previous encoder put on the wire: fetch sent its string as UTF-8 (lone surrogates as U+FFFD). */
const wire = (body: string) => new TextEncoder().encode(body);

test("names and symbol values escape space, comma, equals, backslash, CR and LF; quoted strings escape quote, backslash, CR and LF", () => {
  expect(escapeName("plain_name")).toBe("plain_name");
  expect(escapeName("a b,c=d\\e\nf\rg")).toBe("a\\ b\\,c\\=d\\\\e\\\nf\\\rg");
  expect(escapeQuoted('say "hi", a=b\\c\n')).toBe('say \\"hi\\", a=b\\\\c\\\n');
});

test("a row is symbols first, then fields, then the designated timestamp in nanoseconds; nulls are left out", () => {
  const enc = new IlpTableEncoder(
    "t_1",
    [
      { name: "px", type: "DOUBLE" },
      { name: "sym", type: "SYMBOL" },
      { name: "n", type: "LONG" },
      { name: "note", type: "VARCHAR" },
      { name: "ok", type: "BOOLEAN" },
      { name: "at", type: "TIMESTAMP" },
      { name: "ts", type: "TIMESTAMP" },
    ],
    6,
  );
  enc.append([1.5, "A B", 7, 'x"y', true, 5n, 1000n]);
  enc.append([null, null, -3, null, false, null, 2000n]);
  expect(enc.pending).toBe(2);
  expect(text(enc.take())).toBe(
    't_1,sym=A\\ B px=1.5,n=7i,note="x\\"y",ok=t,at=5t 1000000\n' + "t_1 n=-3i,ok=f 2000000\n",
  );
  expect(enc.pending).toBe(0);
  enc.append([2, null, null, null, null, null, 1n]);
  enc.reset();
  expect(enc.take().length).toBe(0);
});

test("numbers: integer digits at every split, floats as String(v), bigint timestamps past 2^53", () => {
  const enc = new IlpTableEncoder(
    "t",
    [
      { name: "f", type: "DOUBLE" },
      { name: "n", type: "LONG" },
      { name: "at", type: "TIMESTAMP" },
      { name: "ts", type: "TIMESTAMP" },
    ],
    3,
  );
  const max = Number.MAX_SAFE_INTEGER;
  const ints = [
    0,
    -0,
    1,
    -1,
    9,
    10,
    999_999_999,
    1e9,
    1e9 + 1,
    -1e9,
    1_000_000_007_000_000,
    max,
    -max,
    2 ** 31,
    2 ** 32,
  ];
  // Just below a multiple of 1e9, where a rounded v / 1e9 could reach the next integer.
  ints.push(9_007_198_999_999_999, -8_999_999_999_999_999, 1_999_999_999, 4_503_599_999_999_999);
  const floats = [-0, 0.1, -2.5e-7, 1e-7, 5e-324, 1e21, 1.7976931348623157e308, 2 ** 53, 3782.1000000000004, 1 / 3];
  const micros = [0n, -1n, 2n ** 53n - 1n, 2n ** 53n, -(2n ** 53n), -62135596800000000n, 253402300799999999n];
  const expected: string[] = [];
  for (const n of ints) {
    enc.append([null, n, null, 7n]);
    expected.push(`t n=${String(n)}i 7000\n`);
  }
  for (const f of floats) {
    enc.append([f, null, null, 7n]);
    expected.push(`t f=${String(f)} 7000\n`);
  }
  for (const us of micros) {
    enc.append([null, null, us, us < 0n ? 0n : us]);
    expected.push(`t at=${us}t ${us < 0n ? 0n : us}000\n`);
  }
  expect(text(enc.take())).toBe(expected.join(""));
});

test("floats with few decimals are written digit by digit, exactly as String(v), and so are their neighbours", () => {
  const enc = new IlpTableEncoder(
    "t",
    [
      { name: "f", type: "DOUBLE" },
      { name: "ts", type: "TIMESTAMP" },
    ],
    1,
  );
  const bits = new DataView(new ArrayBuffer(8));
  /** The double `steps` representable values away from v (same sign, v != 0). */
  const step = (v: number, steps: number) => {
    bits.setFloat64(0, v);
    bits.setBigInt64(0, bits.getBigInt64(0) + BigInt(steps));
    return bits.getFloat64(0);
  };
  const rnd = random(2026);
  const values: number[] = [
    1, 1.5, 999_999_999.5, 999_999_999.999999, 1_000_000_000.5, 0.999999, 1.0000001, 123.456789,
  ];
  for (let r = 0; r < 20_000; r++) {
    const k = 1 + Math.floor(rnd() * 8);
    const v = Math.floor(rnd() * 10 ** (1 + Math.floor(rnd() * 15))) / 10 ** k;
    values.push(v, -v, step(v || 1, 1), step(v || 1, -1), step(v || 1, 3));
  }
  let expected = "";
  for (const v of values) {
    enc.append([v, 0n]);
    expected += `t f=${String(v)} 0000\n`;
  }
  expect(text(enc.take())).toBe(expected);
});

test("NaN is no value, Infinity is refused where an integer or a timestamp is due and written as before into a float", () => {
  const spec = parseCreateTable(
    "CREATE TABLE t (d DOUBLE, l LONG, at TIMESTAMP, ts TIMESTAMP) TIMESTAMP(ts) PARTITION BY DAY WAL",
  );
  const conv = new RowConverter(spec);
  const enc = new IlpTableEncoder("t", spec.columns, conv.designatedIndex);
  const ref = new IlpTextEncoder("t", spec.columns, conv.designatedIndex);
  expect(() => conv.convert({ d: Number.NaN, ts: 1n })).toThrow("needs a value besides the designated timestamp");
  expect(() => conv.convert({ l: Number.POSITIVE_INFINITY, ts: 1n })).toThrow("needs an integer");
  expect(() => conv.convert({ at: Number.NEGATIVE_INFINITY, ts: 1n })).toThrow("needs a timestamp");
  expect(() => conv.convert({ d: 1, ts: Number.POSITIVE_INFINITY })).toThrow("needs a timestamp");
  for (const row of [
    { d: Number.NaN, l: 1, ts: 2n },
    { d: Number.POSITIVE_INFINITY, ts: 3n },
    { d: Number.NEGATIVE_INFINITY, ts: 4n },
  ]) {
    const v = conv.convert(row);
    enc.append(v);
    ref.append(v);
  }
  const body = ref.take();
  expect(body).toBe("t l=1i 2000\nt d=Infinity 3000\nt d=-Infinity 4000\n");
  expect(enc.take()).toEqual(wire(body));
});

// ------------------------------------------------------------------ randomized, against the previous encoder

/** A small deterministic generator (mulberry32), so a failure reproduces from its seed. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const PIECES = [
  "a",
  "Z9_",
  " ",
  ",",
  "=",
  "\\",
  '"',
  "\r",
  "\n",
  "\t",
  "ü",
  "数据",
  "✓",
  "😀", // a surrogate pair
  "\ud83d", // a lone high surrogate
  "\ude00", // a lone low surrogate
  "\u007f",
  "\u0080",
  "\u07ff",
  "\u0800",
  "\uffff",
];

function randomText(rnd: () => number, max: number): string {
  let s = "";
  const n = Math.floor(rnd() * max);
  for (let k = 0; k < n; k++)
    s += rnd() < 0.6 ? "abcXYZ0189_.-:/"[Math.floor(rnd() * 15)] : PIECES[Math.floor(rnd() * PIECES.length)];
  return s;
}

function randomFloat(rnd: () => number): number {
  const r = rnd();
  if (r < 0.3) return Math.round(rnd() * 1e6) / 10 ** Math.floor(rnd() * 6); // prices: few decimals
  if (r < 0.5) return (rnd() - 0.5) * 10 ** Math.floor(rnd() * 40 - 20);
  if (r < 0.6) return Math.floor((rnd() - 0.5) * 2 ** 54); // integral, some past 2^53
  if (r < 0.8) {
    // Any finite double from random bits.
    const b = new DataView(new ArrayBuffer(8));
    b.setUint32(0, (rnd() * 2 ** 32) >>> 0);
    b.setUint32(4, (rnd() * 2 ** 32) >>> 0);
    const v = b.getFloat64(0);
    return Number.isFinite(v) ? v : 1.25;
  }
  return [0, -0, 5e-324, -5e-324, 1e-7, 1e21, 9.999999999999999e20, Number.MAX_VALUE, -Number.MAX_VALUE, 0.1][
    Math.floor(rnd() * 10)
  ]!;
}

function randomValue(rnd: () => number, type: ColumnType): CanonicalValue {
  if (rnd() < 0.15) return null;
  switch (type) {
    case "SYMBOL":
    case "VARCHAR":
      return randomText(rnd, 12);
    case "DOUBLE":
      return randomFloat(rnd);
    case "LONG": {
      const r = rnd();
      if (r < 0.2)
        return [0, -0, Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER, 1e9, 1e9 - 1][Math.floor(rnd() * 6)]!;
      return Math.floor((rnd() - 0.5) * 2 * 10 ** Math.floor(rnd() * 16));
    }
    case "BOOLEAN":
      return rnd() < 0.5;
    default: {
      const r = rnd();
      if (r < 0.2)
        return [-62135596800000000n, 253402300799999999n, 2n ** 53n, 2n ** 53n - 1n, -(2n ** 53n)][
          Math.floor(rnd() * 5)
        ]!;
      return BigInt(Math.floor((rnd() - 0.5) * 2 * 10 ** Math.floor(rnd() * 17)));
    }
  }
}

const TYPES: ColumnType[] = ["SYMBOL", "VARCHAR", "DOUBLE", "LONG", "BOOLEAN", "TIMESTAMP"];

test("randomized tables and rows: the bytes equal the previous encoder's UTF-8, escapes and non-ASCII included", () => {
  for (let seed = 1; seed <= 40; seed++) {
    const rnd = random(seed);
    const columns = Array.from({ length: 2 + Math.floor(rnd() * 7) }, (_, k) => ({
      name: `c${k}${rnd() < 0.3 ? randomText(rnd, 4) : ""}`,
      type: TYPES[Math.floor(rnd() * TYPES.length)]!,
    }));
    columns.push({ name: "ts", type: "TIMESTAMP" });
    const designated = columns.length - 1;
    const table = `t_${seed}${rnd() < 0.3 ? randomText(rnd, 5) : ""}`;
    const enc = new IlpTableEncoder(table, columns, designated);
    const ref = new IlpTextEncoder(table, columns, designated);
    for (let r = 0; r < 300; r++) {
      const values = columns.map((c) => randomValue(rnd, c.type));
      const ts = values[designated] ?? null;
      // The designated timestamp is set and not before 1970 (the converter's checks).
      values[designated] = ts === null || (ts as bigint) < 0n ? BigInt(r) : ts;
      enc.append(values);
      ref.append(values);
    }
    expect(enc.pending).toBe(ref.pending);
    const got = enc.take();
    const want = wire(ref.take());
    if (!Buffer.from(got).equals(Buffer.from(want))) {
      // Show the first differing line, not two megabytes.
      const a = text(got).split("\n");
      const b = text(want).split("\n");
      const k = a.findIndex((line, i) => line !== b[i]);
      expect({ seed, line: a[k] }).toEqual({ seed, line: b[k] });
    }
    expect(got.length).toBe(want.length);
  }
});

test("long strings grow the buffer mid-row without losing bytes; take() starts the next batch empty", () => {
  const columns = [
    { name: "s", type: "SYMBOL" as const },
    { name: "v", type: "VARCHAR" as const },
    { name: "ts", type: "TIMESTAMP" as const },
  ];
  const enc = new IlpTableEncoder("big", columns, 2);
  const ref = new IlpTextEncoder("big", columns, 2);
  const rnd = random(99);
  for (let batch = 0; batch < 3; batch++) {
    for (let r = 0; r < 20; r++) {
      const long =
        "x".repeat(Math.floor(rnd() * 70_000)) + randomText(rnd, 50) + "数".repeat(Math.floor(rnd() * 30_000));
      const values: CanonicalValue[] = [randomText(rnd, 20) || "s", long, BigInt(r)];
      enc.append(values);
      ref.append(values);
    }
    expect(Buffer.from(enc.take()).equals(Buffer.from(wire(ref.take())))).toBe(true);
  }
});

test("through fetch, the bytes a server receives are the same for the previous string body and the new byte body", async () => {
  const got: Uint8Array[] = [];
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      got.push(new Uint8Array(await req.arrayBuffer()));
      return new Response(null, { status: 204 });
    },
  });
  try {
    const columns = [
      { name: "s y", type: "SYMBOL" as const },
      { name: "v", type: "VARCHAR" as const },
      { name: "d", type: "DOUBLE" as const },
      { name: "ts", type: "TIMESTAMP" as const },
    ];
    const enc = new IlpTableEncoder("t", columns, 3);
    const ref = new IlpTextEncoder("t", columns, 3);
    const rnd = random(7);
    for (let r = 0; r < 2000; r++) {
      const values: CanonicalValue[] = [randomText(rnd, 10), randomText(rnd, 30), randomFloat(rnd), BigInt(r)];
      enc.append(values);
      ref.append(values);
    }
    for (const body of [ref.take(), enc.take()]) {
      const res = await fetch(`http://127.0.0.1:${server.port}/write`, { method: "POST", body });
      expect(res.status).toBe(204);
    }
    expect(got.length).toBe(2);
    expect(Buffer.from(got[1]!).equals(Buffer.from(got[0]!))).toBe(true);
  } finally {
    server.stop(true);
  }
});
