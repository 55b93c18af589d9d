import { describe, expect, test } from "bun:test";
import { sentimentOf } from "./sentiment.ts";

const label = (s: string) => sentimentOf(s).label;

describe("sentiment rules", () => {
  test("a direction takes its polarity from the metric that moved", () => {
    expect(label("Operating profit rose to EUR 13.1 mn from EUR 8.7 mn")).toBe("bullish");
    expect(label("Net sales decreased by 5 % in the second quarter")).toBe("bearish");
    expect(label("The company's costs increased sharply")).toBe("bearish");
    expect(label("Operating loss narrowed to EUR 2.1 mn")).toBe("bullish");
    expect(label("Net loss widened to 3.2 mln euro")).toBe("bearish");
    expect(label("The company will cut 300 jobs at its Oulu plant")).toBe("bearish");
  });

  test("a metric named far before its direction word is still found", () => {
    expect(label("Digia said its consolidated net sales for January-June 2010 were EUR67 .8 m , up 9.7 %")).toBe(
      "bullish",
    );
  });

  test("a figure compared with an earlier one counts when no direction word says it", () => {
    expect(label("Operating profit totalled EUR 9.4 mn , compared with EUR 8.5 mn in 2007")).toBe("bullish");
    expect(label("Net sales were EUR 3.1 mn , compared with EUR 4.5 mn a year earlier")).toBe("bearish");
    expect(label("Sales in 2008 compared with 2007 are reported below")).not.toBe("bullish");
  });

  test("negation flips; phrases read as one event", () => {
    expect(label("Sales did not increase in the quarter")).toBe("bearish");
    expect(label("Cramo slipped to a pretax loss of EUR 6.7 million")).toBe("bearish");
    expect(label("The unit swung to an operating profit of EUR 1 mn")).toBe("bullish");
    expect(label("Metso will temporarily lay off about 3,200 people")).toBe("bearish");
    expect(label("Stora Enso said it would close four mills")).toBe("bearish");
  });

  test("share-capital changes and plain statements are neutral", () => {
    expect(
      label("The corresponding increase in the share capital , EUR422 ,754 , has been entered in the Trade Register"),
    ).toBe("neutral");
    expect(label("The closing of the transaction is scheduled to take place on January 10 , 2008")).toBe("neutral");
    expect(label("The Company serves approximately 3,000 customers in over 100 countries")).toBe("neutral");
  });

  test("news headlines and social posts", () => {
    expect(label("Goldman Sachs shares rise as earnings blow past the Street")).toBe("bullish");
    expect(label("Hertz files for bankruptcy as rental demand collapses")).toBe("bearish");
    expect(label("U.S. Stocks Up as Jobless Claims Edge Lower")).toBe("bullish");
  });

  test("score is in [-1, 1], signed like the label, and deterministic", () => {
    for (const s of ["profit soared to a record", "fraud lawsuit bankruptcy collapse", "the meeting is on Tuesday"]) {
      const a = sentimentOf(s);
      expect(a).toEqual(sentimentOf(s));
      expect(Math.abs(a.score)).toBeLessThanOrEqual(1);
      if (a.label === "bullish") expect(a.score).toBeGreaterThan(0);
      if (a.label === "bearish") expect(a.score).toBeLessThan(0);
    }
  });
});
