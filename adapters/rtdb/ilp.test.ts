import { expect, test } from "bun:test";
import { escapeName, escapeQuoted, IlpTableEncoder } from "./ilp.ts";

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
  expect(enc.take()).toBe('t_1,sym=A\\ B px=1.5,n=7i,note="x\\"y",ok=t,at=5t 1000000\n' + "t_1 n=-3i,ok=f 2000000\n");
  expect(enc.pending).toBe(0);
  enc.append([2, null, null, null, null, null, 1n]);
  enc.reset();
  expect(enc.take()).toBe("");
});
