import { describe, expect, test } from "bun:test";
import { ConfigError, loadConfig } from "./config.ts";

describe("news configuration", () => {
  test("CAIRN_NEWS_FEEDS is a comma-separated list of type:url; unset means no feeds", () => {
    expect(loadConfig({}).news).toEqual({
      feeds: [],
      pollMs: 300_000,
      concurrency: 4,
      tickerMap: undefined,
      xBearerToken: undefined,
    });
    const c = loadConfig({
      CAIRN_NEWS_FEEDS:
        "rss:https://www.sec.gov/cgi-bin/browse-edgar?action=getcurrent&output=atom, reddit:https://www.reddit.com/r/stocks/new.json",
      CAIRN_NEWS_POLL_MS: "60000",
      CAIRN_NEWS_CONCURRENCY: "2",
    });
    expect(c.news.feeds).toEqual([
      { type: "rss", url: "https://www.sec.gov/cgi-bin/browse-edgar?action=getcurrent&output=atom" },
      { type: "reddit", url: "https://www.reddit.com/r/stocks/new.json" },
    ]);
    expect(c.news).toMatchObject({ pollMs: 60_000, concurrency: 2 });
  });

  test("a bad entry fails start-up and names the variable and the entry", () => {
    expect(() => loadConfig({ CAIRN_NEWS_FEEDS: "https://example.com/feed.xml" })).toThrow(ConfigError);
    expect(() => loadConfig({ CAIRN_NEWS_FEEDS: "telegram:https://t.me/x" })).toThrow(
      /CAIRN_NEWS_FEEDS: entry 'telegram:https:\/\/t.me\/x'/,
    );
    expect(() => loadConfig({ CAIRN_NEWS_POLL_MS: "10" })).toThrow(/CAIRN_NEWS_POLL_MS/);
  });
});
