import { describe, expect, test } from "bun:test";
import { canonicalUrl, TitleIndex, titleWords } from "./dedup.ts";
import { articleId, uuidV5 } from "./ids.ts";

describe("canonical URL", () => {
  test("scheme, www, fragment, default port, tracking parameters and trailing slash do not matter", () => {
    const want = "finance.yahoo.com/news/trump-signs-tiktok-ban-u-012553901.html";
    for (const u of [
      "https://finance.yahoo.com/news/trump-signs-tiktok-ban-u-012553901.html?.tsrc=rss",
      "http://finance.yahoo.com:80/news/trump-signs-tiktok-ban-u-012553901.html#comments",
      "https://www.finance.yahoo.com/news/trump-signs-tiktok-ban-u-012553901.html/?utm_source=x&utm_medium=rss",
      "https://FINANCE.yahoo.com/news/trump-signs-tiktok-ban-u-012553901.html/amp",
    ]) {
      expect(canonicalUrl(u)).toBe(want);
    }
  });

  test("parameters that select content are kept, in a stable order", () => {
    expect(canonicalUrl("http://www.marketwatch.com/news/story.asp?siteid=rss&guid=%7BFFD8%7D&mod=rss")).toBe(
      "marketwatch.com/news/story.asp?guid=%7BFFD8%7D&siteid=rss",
    );
    expect(canonicalUrl("https://a.com/x?b=2&a=1")).toBe(canonicalUrl("https://a.com/x?a=1&b=2"));
    expect(canonicalUrl("https://a.com/x?id=1")).not.toBe(canonicalUrl("https://a.com/x?id=2"));
  });

  test("non-http URLs have no canonical form", () => {
    expect(canonicalUrl("file:///tmp/x")).toBeNull();
    expect(canonicalUrl("not a url")).toBeNull();
  });
});

describe("near-duplicate headlines", () => {
  const day = Date.parse("2020-08-26T00:00:00Z");

  test("a re-published wire story with a publisher suffix or small edits is the same story", () => {
    const idx = new TitleIndex();
    idx.add("a", "GLOBAL MARKETS-Shares scale record peak on upbeat results, dollar eases", day);
    expect(
      idx.findDuplicate("Global markets: shares scale record peak on upbeat results, dollar eases - Reuters", day),
    ).toBe("a");
    expect(idx.findDuplicate("Shares scale record peak on upbeat results as dollar eases", day + 3600_000)).toBe("a");
    expect(idx.findDuplicate("Shares slump from record peak as dollar jumps", day)).toBeNull();
  });

  test("short headlines need an exact match; the same words days apart are a new story", () => {
    const idx = new TitleIndex();
    idx.add("a", "Stock market today", day);
    expect(idx.findDuplicate("Stock market today", day + 3600_000)).toBe("a");
    expect(idx.findDuplicate("Stock market tomorrow", day)).toBeNull();
    expect(idx.findDuplicate("Stock market today", day + 4 * 86_400_000)).toBeNull();
  });

  test("a publisher suffix is only stripped when it is short and the head is long", () => {
    expect(titleWords("Stocks rally on stimulus hopes - CNBC")).toEqual(["stocks", "rally", "stimulus", "hopes"]);
    expect(titleWords("4 - CARVANA CO. (0001690820) (Issuer)")).toEqual(["4", "carvana", "co", "0001690820", "issuer"]);
  });

  test("the index is bounded: the oldest titles are forgotten first", () => {
    const idx = new TitleIndex({ capacity: 2, threshold: 0.8, windowMs: 1e12 });
    idx.add("a", "Apple unveils new iPhone lineup today", day);
    idx.add("b", "Tesla delivers record number of cars", day);
    idx.add("c", "Amazon opens new warehouse in Ohio", day);
    expect(idx.size).toBe(2);
    expect(idx.findDuplicate("Apple unveils new iPhone lineup today", day)).toBeNull();
    expect(idx.findDuplicate("Tesla delivers record number of cars", day)).toBe("b");
  });
});

describe("article ids", () => {
  test("UUID v5 of the canonical URL: stable, valid, distinct", () => {
    // RFC 9562 appendix A.4 test vector (DNS namespace, "www.example.com").
    expect(uuidV5("www.example.com", "6ba7b810-9dad-11d1-80b4-00c04fd430c8")).toBe(
      "2ed6657d-e927-568b-95e1-2665a8aea6a2",
    );
    const id = articleId("nasdaq.com/articles/x");
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(articleId("nasdaq.com/articles/x")).toBe(id);
    expect(articleId("nasdaq.com/articles/y")).not.toBe(id);
  });
});
