import { Database } from "bun:sqlite";
import { expect, test } from "bun:test";
import { ftsMatchExpression, MAX_QUERY_TERMS, STOP_WORDS } from "./fts-query.ts";

test("terms are quoted and OR-ed; operators and punctuation lose their meaning", () => {
  expect(ftsMatchExpression('revenue AND "growth" NOT col:x*')).toBe('"revenue" OR "growth" OR "col" OR "x"');
  expect(ftsMatchExpression("  ¿?! ")).toBeNull();
  expect(ftsMatchExpression("Café café CAFÉ")).toBe('"café"');
  const many = Array.from({ length: 200 }, (_, i) => `w${i}`).join(" ");
  expect(ftsMatchExpression(many)?.split(" OR ")).toHaveLength(MAX_QUERY_TERMS);
});

test("every expression is valid FTS5 syntax, whatever the input", () => {
  const db = new Database(":memory:");
  db.exec(
    "CREATE VIRTUAL TABLE f USING fts5(text, tokenize = 'porter unicode61'); INSERT INTO f VALUES ('near the column');",
  );
  const hostile = ['"', "NEAR(", "a OR", "^x", "* -", "col:near", "AND AND", "(((", "x\u0000y", "ﬁnance", "日本語"];
  for (const q of hostile) {
    const m = ftsMatchExpression(q);
    if (m) expect(() => db.query("SELECT rowid FROM f WHERE f MATCH ?").all(m)).not.toThrow();
  }
  expect(db.query("SELECT rowid FROM f WHERE f MATCH ?").all(ftsMatchExpression("col:near") as string)).toHaveLength(1);
  db.close();
});

test("stop-words are dropped next to content words, kept when they are all there is", () => {
  expect(ftsMatchExpression("What was the revenue of Apple in 2019?")).toBe('"revenue" OR "apple" OR "2019"');
  // A query of stop-words only still searches them rather than matching nothing.
  expect(ftsMatchExpression("to be or not to be")).toBe('"to" OR "be" OR "or" OR "not"');
  expect(STOP_WORDS.has("revenue")).toBe(false);
  // The term cap counts content words: 70 stop-words then one content word keep that word.
  const padded = `${Array.from({ length: 70 }, (_, i) => [...STOP_WORDS][i % STOP_WORDS.size]).join(" ")} margin`;
  expect(ftsMatchExpression(padded)).toBe('"margin"');
});
