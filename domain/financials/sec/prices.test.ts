import { describe, expect, test } from "bun:test";
import { parseDailyCsv, parseMonthlyLongCsv, priceAt } from "./prices.ts";

const daily = `Date,Open,High,Low,Close,Adj Close,Volume
2010-01-27,1,1,1,15.50,14.9,100
2010-01-28,1,1,1,15.10,14.5,100
2010-01-29,1,1,1,14.90,14.3,100
2010-02-01,1,1,1,15.20,14.6,100
`;

describe("price series", () => {
  test("daily Yahoo CSV: the Close column, split basis at the last row", () => {
    const s = parseDailyCsv(daily, "nvda", "NVDA.csv");
    expect(s?.ticker).toBe("NVDA");
    expect(s?.basisDate).toBe("2010-02-01");
    expect(s?.points[0]).toEqual({ date: "2010-01-27", close: 15.5 });
    expect(parseDailyCsv("a,b\n1,2\n", "X", "x.csv")).toBeNull();
  });

  test("the monthly long table holds the month's last close under the month's first day", () => {
    const list = parseMonthlyLongCsv(
      "symbol,date,price\nAAPL,Dec 1 2009,210.73\nAAPL,Jan 1 2010,192.06\nMSFT,Feb 1 2000,36.35\n",
      "m.csv",
    );
    const aapl = list.find((s) => s.ticker === "AAPL");
    expect(aapl?.points).toEqual([
      { date: "2009-12-31", close: 210.73 },
      { date: "2010-01-31", close: 192.06 },
    ]);
    expect(list.find((s) => s.ticker === "MSFT")?.points[0]?.date).toBe("2000-02-29");
    expect(aapl?.interval).toBe("monthly");
  });

  test("the close on or just before a date; else the first close after; else none", () => {
    const s = parseDailyCsv(daily, "NVDA", "NVDA.csv");
    if (!s) throw new Error("no series");
    expect(priceAt(s, "2010-01-31")).toMatchObject({ date: "2010-01-29", close: 14.9, onOrBefore: true });
    expect(priceAt(s, "2010-01-28")).toMatchObject({ date: "2010-01-28", onOrBefore: true });
    expect(priceAt(s, "2010-01-25")).toMatchObject({ date: "2010-01-27", onOrBefore: false });
    expect(priceAt(s, "2010-01-10")).toBeNull();
    expect(priceAt(s, "2010-03-01")).toBeNull();
  });
});
