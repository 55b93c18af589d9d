import { describe, expect, test } from "bun:test";
import { CompanyLinker, createCompanyLinker, loadAmbiguousNames, nameAliases } from "./companies.ts";
import { displayName, TickerMap } from "./ticker-map.ts";

const linker = createCompanyLinker();
const tickers = (text: string, hints = {}) => linker.link(text, hints).tickers;

describe("company linking", () => {
  test("cashtags: known tickers, any case; unknown cashtags and dollar amounts are ignored", () => {
    expect(tickers("$AAPL calls printing, $tsla puts")).toEqual(["AAPL", "TSLA"]);
    expect(tickers("$ZZZZQ to the moon, up $5 and $AAPLX")).toEqual([]);
  });

  test("exchange-qualified tickers, with or without a space; share classes map to the primary ticker", () => {
    expect(tickers("NASDAQ:MSFT beats estimates")).toEqual(["MSFT"]);
    expect(tickers("Tesla (NASDAQ: TSLA) and Berkshire Hathaway (NYSE: BRK.B)")).toEqual(["TSLA", "BRK-B"]);
    expect(tickers("(NASDAQ: GOOG)")).toEqual(["GOOGL"]);
    // A ticker the map no longer lists still links when an exchange vouches for it.
    expect(linker.link("Facebook (NASDAQ: FB) and Apple")).toEqual({
      tickers: ["FB", "META", "AAPL"],
      names: ["Meta Platforms, Inc.", "Apple Inc."],
    });
    expect(tickers("Nasdaq: the index fell")).toEqual([]);
  });

  test('company names from the SEC map: "Apple" → AAPL, full names, hyphens and possessives', () => {
    expect(linker.link("Apple unveils a new iPhone")).toEqual({ tickers: ["AAPL"], names: ["Apple Inc."] });
    expect(tickers("Goldman Sachs upgrades Nvidia; Micron Technology falls; Cisco Systems rallies")).toEqual([
      "GS",
      "NVDA",
      "MU",
      "CSCO",
    ]);
    expect(tickers("Coca-Cola and McDonald's shares rose; Bank of America and JPMorgan Chase report")).toEqual([
      "KO",
      "MCD",
      "BAC",
      "JPM",
    ]);
    expect(tickers("Alphabet's Google and Walt Disney Co.")).toEqual(["GOOGL", "DIS"]);
  });

  test("stop-listed everyday words and lower-case words are not linked by name", () => {
    expect(tickers("Target raises guidance; Gap widens; Best of breed; Progressive policies; Visa costs")).toEqual([
      "V",
    ]);
    expect(tickers("an apple a day, amazon rainforest, oracle of delphi")).toEqual([]);
    expect(tickers("The S&P 500 and the SPX rallied; the Dow slipped")).toEqual([]);
    expect(tickers("Stocks Rise As Investors Cheer Strong Earnings From Big Tech")).toEqual([]);
    // The full registrant name still links a stop-listed company.
    expect(tickers("Target Corp shares jumped")).toEqual(["TGT"]);
  });

  test("publisher tickers and SEC filer CIKs are trusted hints", () => {
    expect(tickers("4 - ROYAL GOLD INC (0000085535) (Issuer)", { ciks: [85535] })).toEqual(["RGLD"]);
    // A CIK the map does not know (a 2025 IPO) links nothing rather than something wrong.
    expect(tickers("4 - Hinge Health, Inc. (0001673743) (Issuer)", { ciks: [1673743] })).toEqual([]);
    expect(tickers("Dow Shake-Up Explained", { tickers: ["HD", "AAPL"] })).toEqual(["HD", "AAPL"]);
  });

  test("aliases drop legal forms and /STATE/ tags; descriptors give a short alias", () => {
    expect(nameAliases("JPMORGAN CHASE & CO")).toEqual([["jpmorgan", "chase"]]);
    expect(nameAliases("BANK OF AMERICA CORP /DE/")).toEqual([["bank", "of", "america"]]);
    expect(nameAliases("Cisco Systems, Inc.")).toEqual([["cisco", "systems"], ["cisco"]]);
    expect(nameAliases("NOVO NORDISK A S")).toEqual([["novo", "nordisk"]]);
    expect(displayName("BANK OF AMERICA CORP /DE/")).toBe("Bank of America Corp");
    expect(displayName("Apple Inc.")).toBe("Apple Inc.");
  });

  test("the larger company (earlier in the SEC file) keeps a shared name", () => {
    const map = new TickerMap([
      { cik: 1, ticker: "BIG", title: "Acme Widgets Corp" },
      { cik: 2, ticker: "SML", title: "ACME WIDGETS INC" },
    ]);
    expect(new CompanyLinker(map, loadAmbiguousNames()).link("Acme Widgets reports").tickers).toEqual(["BIG"]);
  });
});
