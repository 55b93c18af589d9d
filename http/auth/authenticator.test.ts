import { describe, expect, test } from "bun:test";
import { bearerToken } from "./authenticator.ts";

/** What fromBearer accepted before the character loop. */
const REGEX = /^Bearer\s+(\S+)\s*$/i;
const byRegex = (h: string | undefined) => h?.match(REGEX)?.[1] ?? null;

describe("bearerToken parses the Authorization header exactly as the regex did", () => {
  test("listed cases", () => {
    const cases = [
      undefined,
      "",
      "Bearer",
      "Bearer ",
      "Bearer abc",
      "bearer abc",
      "BEARER abc",
      "BeArEr \t abc \t ",
      "Bearer  abc",
      "Bearer abc def",
      "Bearerabc",
      "Basic abc",
      " Bearer abc",
      "Bearer\u00a0abc",
      "Bearer\u3000abc\ufeff",
      "Bearer a\u2028",
      "Bearer a.b.c",
      "Bearer é",
      "Bearer\tx",
    ];
    for (const h of cases) expect([h, bearerToken(h)]).toEqual([h, byRegex(h)]);
  });

  test("random headers built from the characters that matter", () => {
    const alphabet = ["B", "b", "e", "a", "r", "R", "E", " ", "\t", "\u00a0", "\u2003", "x", ".", "\u0130", "K"];
    let seed = 7;
    const next = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed;
    };
    for (let i = 0; i < 20_000; i++) {
      const prefix = next() % 3 === 0 ? "" : ["Bearer", "bearer", "BEARER", "Bearer "][next() % 4];
      let tail = "";
      const n = next() % 8;
      for (let j = 0; j < n; j++) tail += alphabet[next() % alphabet.length];
      const h = `${prefix}${tail}`;
      expect([h, bearerToken(h)]).toEqual([h, byRegex(h)]);
    }
  });
});
