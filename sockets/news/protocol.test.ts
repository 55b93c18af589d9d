import { describe, expect, test } from "bun:test";
import { FILTER_LIMITS, parseClientMessage } from "./protocol.ts";

const ok = (raw: string) => {
  const r = parseClientMessage(raw);
  if (!r.ok) throw new Error(`refused: ${r.message}`);
  return r.filter;
};
const refused = (raw: string) => {
  const r = parseClientMessage(raw);
  if (r.ok) throw new Error(`accepted: ${JSON.stringify(r.filter)}`);
  return r.message;
};

describe("news stream client messages", () => {
  test("a filter is normalised: codes upper-cased, words lower-cased, duplicates and empty lists gone", () => {
    expect(
      ok(
        JSON.stringify({
          source_types: ["RSS", "rss", "Reddit"],
          min_impact: 0,
          sentiment: " Bearish ",
          countries: ["us", "gb"],
          categories: [" earnings", "Earnings"],
          tickers: ["brk.b", "BRK.B"],
        }),
      ),
    ).toEqual({
      tickers: ["BRK.B"],
      categories: ["earnings"],
      countries: ["US", "GB"],
      sentiment: "bearish",
      min_impact: 0,
      source_types: ["rss", "reddit"],
    });
    expect(ok("{}")).toEqual({});
    expect(ok('{"tickers":[],"countries":null,"sentiment":null,"min_impact":null}')).toEqual({});
  });

  test("malformed JSON is answered with the parser's own text", () => {
    const msg = refused("{not json");
    let parserText = "";
    try {
      JSON.parse("{not json");
    } catch (e) {
      parserText = (e as Error).message;
    }
    expect(msg).toBe(parserText);
  });

  test("invalid values name the field and the rule", () => {
    expect(refused('{"min_impact":2}')).toBe("invalid filter: min_impact must be a number from 0.0 to 1.0 (got 2)");
    expect(refused('{"min_impact":-0.1}')).toMatch(/min_impact must be a number from 0.0 to 1.0/);
    expect(refused('{"min_impact":"0.5"}')).toMatch(/min_impact must be a number/);
    expect(refused('{"sentiment":"happy"}')).toMatch(
      /sentiment must be one of bullish, bearish, neutral \(got "happy"\)/,
    );
    expect(refused('{"source_types":["fax"]}')).toMatch(/source_types must be one of rss, gdelt, reddit, twitter/);
    expect(refused('{"countries":["USA"]}')).toMatch(/ISO 3166-1 alpha-2/);
    expect(refused('{"tickers":"AAPL"}')).toMatch(/tickers must be an array of strings/);
    expect(refused('{"tickers":[""]}')).toMatch(/empty strings/);
    expect(refused('{"ticker":["AAPL"]}')).toBe("invalid filter: unknown filter field(s): ticker");
    expect(refused("[1,2]")).toMatch(/must be a JSON object/);
    expect(refused("null")).toMatch(/must be a JSON object/);
  });

  test("sizes are bounded", () => {
    const many = JSON.stringify({ tickers: Array.from({ length: FILTER_LIMITS.maxValues + 1 }, (_, i) => `T${i}`) });
    expect(refused(many)).toMatch(/at most 500 values/);
    expect(refused(JSON.stringify({ categories: ["x".repeat(65)] }))).toMatch(/at most 64 characters/);
    expect(refused(" ".repeat(FILTER_LIMITS.maxMessageLength + 1))).toMatch(/message too long/);
  });
});
