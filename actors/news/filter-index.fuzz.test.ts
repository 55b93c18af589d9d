/**
 * The indexed matcher must agree with domain `matches` (the one statement of the filter
 * semantics) for any filter and article, also while subscribers come, go and change
 * filters. Seeded (STYLE habit 13): the seed is printed; CAIRN_FUZZ_SEED replays it.
 */
import { describe, expect, test } from "bun:test";
import { type Article, matches, type NewsFilter, SENTIMENT_LABELS, SOURCE_TYPES } from "../../domain/news/types.ts";
import { makeArticle, pickDistinct, randomArticle, tickerUniverse, UNIVERSE } from "../../test/news-fixtures.ts";
import { fuzzSeed, type Prng, prng } from "../../test/prng.ts";
import { compileFilter, NewsIndex } from "./filter-index.ts";

const TICKERS = tickerUniverse(12);

/** A filter over small universes (so hits are common), with the edge cases mixed in. */
function randomFilter(rng: Prng): NewsFilter {
  const f: NewsFilter = {};
  const list = (values: readonly string[]) => {
    if (rng.bool(0.15)) return []; // present but empty: no constraint
    const picked = pickDistinct(values, 1 + rng.int(3), rng.next);
    if (rng.bool(0.1)) picked.push("ZZZZ"); // a value no article carries
    if (rng.bool(0.1) && picked[0] !== undefined) picked.push(picked[0]); // a duplicate
    return picked;
  };
  if (rng.bool(0.4)) f.tickers = list(TICKERS);
  if (rng.bool(0.3)) f.categories = list(UNIVERSE.categories);
  if (rng.bool(0.3)) f.countries = list(UNIVERSE.countries);
  if (rng.bool(0.25)) f.source_types = list(SOURCE_TYPES) as NewsFilter["source_types"];
  if (rng.bool(0.25)) f.sentiment = rng.pick(SENTIMENT_LABELS);
  // Thresholds on a coarse grid so that articles often score exactly on one.
  if (rng.bool(0.35)) f.min_impact = rng.int(11) / 10;
  return f;
}

function article(rng: Prng): Article {
  const a = randomArticle(rng, TICKERS);
  if (rng.bool(0.3)) a.impact_score = rng.int(11) / 10;
  // A score that meets no threshold: the index's impact ordering must still admit the
  // filters without one, as domain `matches` does.
  else if (rng.bool(0.03)) a.impact_score = Number.NaN;
  if (rng.bool(0.05) && a.company_tickers[0] !== undefined) a.company_tickers.push(a.company_tickers[0]);
  return a;
}

describe("NewsIndex agrees with domain matches", () => {
  test("random filters x random articles, with subscribers joining, leaving and refiltering", () => {
    const seed = fuzzSeed("news-index");
    const rng = prng(seed);
    const index = new NewsIndex<number>();
    const filters = new Map<number, NewsFilter>();
    let nextId = 0;
    let checked = 0;
    let hits = 0;
    for (let step = 0; step < 4_000; step++) {
      const op = rng.next();
      if (op < 0.3 || filters.size === 0) {
        const f = randomFilter(rng);
        filters.set(nextId, f);
        index.set(nextId++, compileFilter(f));
      } else if (op < 0.4) {
        const id = rng.pick([...filters.keys()]);
        filters.delete(id);
        expect(index.remove(id)).toBe(true);
      } else if (op < 0.5) {
        const id = rng.pick([...filters.keys()]);
        const f = randomFilter(rng);
        filters.set(id, f);
        index.set(id, compileFilter(f));
      } else {
        const a = article(rng);
        const got: number[] = [];
        const n = index.match(a, (id) => got.push(id));
        const want = [...filters].filter(([, f]) => matches(f, a)).map(([id]) => id);
        got.sort((x, y) => x - y);
        if (JSON.stringify(got) !== JSON.stringify(want)) {
          throw new Error(
            `seed ${seed}, step ${step}: index matched ${JSON.stringify(got)}, domain ${JSON.stringify(want)}\n` +
              `article ${JSON.stringify(a)}`,
          );
        }
        expect(n).toBe(got.length);
        checked++;
        hits += got.length;
      }
    }
    expect(index.size).toBe(filters.size);
    // The fuzz must exercise both outcomes, or it proves little.
    expect(checked).toBeGreaterThan(1_000);
    expect(hits).toBeGreaterThan(checked);
  });

  test("filters are keyed by the fields with the fewest values, within the key budget", () => {
    const index = new NewsIndex<string>();
    index.set("t", compileFilter({ tickers: ["AAPL"], categories: ["earnings"] }));
    index.set("c", compileFilter({ categories: ["earnings", "ipo"], sentiment: "bullish", min_impact: 0.4 }));
    index.set("s", compileFilter({ sentiment: "bearish", min_impact: 0.5 }));
    index.set("i", compileFilter({ min_impact: 0.9 }));
    index.set("a", compileFilter({ tickers: [] }));
    // 100 tickers x 2 categories would be 200 keys: the tickers stay out of the key.
    const many = Array.from({ length: 100 }, (_, i) => `T${i}`);
    index.set("w", compileFilter({ tickers: many, categories: ["earnings", "ipo"], countries: ["US"] }));
    // A lone 100-ticker list is still keyed by its tickers (one field is always kept).
    index.set("x", compileFilter({ tickers: many }));
    expect(index.stats()).toEqual({
      subscribers: 7,
      keyed: {
        "tickers+categories": 1,
        "categories+sentiment": 1,
        sentiment: 1,
        "countries+categories": 1,
        tickers: 1,
      },
      impact: 1,
      all: 1,
    });
    index.set("t", compileFilter({}));
    expect(index.stats().keyed["tickers+categories"]).toBeUndefined();
    expect(index.stats().all).toBe(2);
    const hits: string[] = [];
    const a = makeArticle({ company_tickers: ["T7"], categories: ["ipo"], country_codes: ["US"], impact_score: 0.95 });
    index.match(a, (id) => hits.push(id));
    expect(hits.sort()).toEqual(["a", "c", "i", "t", "w", "x"]);
  });
});
