/** Categories, countries and impact: the small rule-based enrichment steps. */
import { describe, expect, test } from "bun:test";
import { categorize } from "./categories.ts";
import { countriesIn } from "./countries.ts";
import { impactOf } from "./impact.ts";

describe("categories", () => {
  test("keyword rules over headline and text", () => {
    expect(categorize("China's Alibaba beats quarterly revenue, profit estimates", "")).toEqual(["earnings"]);
    expect(categorize("Box (BOX) 2nd quarter earnings: what to expect", "")).toEqual(["earnings"]);
    expect(categorize("Salesforce raises full-year guidance", "")).toEqual(["guidance"]);
    expect(categorize("Nvidia agrees to buy Arm for $40 billion", "")).toEqual(["mergers_acquisitions"]);
    expect(categorize("Airbnb files for IPO", "")).toEqual(["ipo"]);
    expect(categorize("Hertz files for Chapter 11 bankruptcy protection", "")).toEqual(["bankruptcy"]);
    expect(categorize("SEC probes Nikola over fraud claims", "")).toEqual(["regulatory"]);
    expect(categorize("Fed holds interest rates near zero", "")).toEqual(["macro"]);
    expect(categorize("Gold ends at record above $2,000", "")).toEqual(["commodities"]);
    expect(categorize("Bitcoin tops $11,000", "")).toEqual(["crypto"]);
    expect(categorize("Lumber futures price climbs to record high", "")).toEqual(["markets", "commodities"]);
  });

  test("acronyms are case-sensitive: 'fed up' is not the Fed, 'ipo' in a word is not an IPO", () => {
    expect(categorize("Investors fed up with the tipoff", "")).toEqual([]);
  });

  test("publisher labels, SEC form types and GDELT themes map to the same slugs", () => {
    expect(categorize("Dow Shake-Up Explained", "", ["Earnings", "Stocks"])).toEqual(["earnings", "markets"]);
    expect(categorize("4 - CARVANA CO. (0001690820) (Issuer)", "", ["4"], true)).toEqual([
      "insider_trading",
      "filings",
    ]);
    expect(categorize("10-Q - ACME (0000000001) (Filer)", "", ["10-Q"], true)).toEqual(["earnings", "filings"]);
    expect(categorize("Ordinary headline", "", ["ECON_STOCKMARKET", "TAX_FNCACT"])).toEqual(["markets"]);
    // A form-like label from a non-SEC feed is not a filing.
    expect(categorize("Ordinary headline", "", ["4"])).toEqual([]);
  });
});

describe("countries", () => {
  test("names, demonyms, cities and institutions to ISO-2, sorted", () => {
    expect(countriesIn("China's Alibaba beats estimates", "")).toEqual(["CN"]);
    expect(countriesIn("Fed minutes; Bank of England holds; Tokyo stocks fall", "")).toEqual(["GB", "JP", "US"]);
    expect(countriesIn("Finnish Ponsse expands in Tallinn", "")).toEqual(["EE", "FI"]);
    expect(countriesIn("U.S. Stocks Up as Jobless Claims Edge Lower", "")).toEqual(["US"]);
  });

  test("case and lookalikes: 'us', 'polish', New Mexico, Bank of America are not countries", () => {
    expect(countriesIn("Join us to polish the plan in New Mexico", "Bank of America and Latin America")).toEqual([]);
  });

  test("GDELT location hints are merged", () => {
    expect(countriesIn("Ordinary headline", "", ["de", "XX1"])).toEqual(["DE"]);
  });
});

describe("impact", () => {
  test("a takeover with strong sentiment about named companies from a wire is high", () => {
    const i = impactOf({ categories: ["mergers_acquisitions"], sentimentScore: 0.8, companies: 2, sourceType: "rss" });
    expect(i).toEqual({ score: 0.915, label: "high" });
  });

  test("a market wrap without companies is low-to-medium; the score stays in [0, 1]", () => {
    expect(impactOf({ categories: ["markets"], sentimentScore: 0, companies: 0, sourceType: "rss" })).toEqual({
      score: 0.355,
      label: "low",
    });
    const max = impactOf({ categories: ["bankruptcy"], sentimentScore: -5, companies: 9, sourceType: "rss" });
    expect(max.score).toBe(1);
  });

  test("social posts earn source weight with engagement", () => {
    const quiet = impactOf({
      categories: ["earnings"],
      sentimentScore: 0.5,
      companies: 1,
      sourceType: "reddit",
      engagement: 0,
    });
    const viral = impactOf({
      categories: ["earnings"],
      sentimentScore: 0.5,
      companies: 1,
      sourceType: "reddit",
      engagement: 20_000,
    });
    expect(viral.score).toBeGreaterThan(quiet.score);
    expect(viral.score).toBe(
      impactOf({ categories: ["earnings"], sentimentScore: 0.5, companies: 1, sourceType: "rss" }).score,
    );
  });
});
