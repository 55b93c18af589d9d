import { describe, expect, test } from "bun:test";
import {
  addYears,
  classifyDuration,
  durationDays,
  FiscalCalendar,
  fiscalYearName,
  learnYearOffset,
  parseMonthDay,
} from "./calendar.ts";

describe("durations", () => {
  test("13/14-week quarters and 52/53-week years; year-to-date columns are their own class", () => {
    expect(durationDays("2024-12-29", "2025-03-29")).toBe(91);
    expect(classifyDuration("2024-12-29", "2025-03-29")).toBe("quarter");
    expect(classifyDuration("2022-06-26", "2022-09-24")).toBe("quarter");
    expect(classifyDuration("2020-06-28", "2020-10-03")).toBe("quarter"); // 14 weeks
    expect(classifyDuration("2024-09-29", "2025-03-29")).toBe("half");
    expect(classifyDuration("2024-09-29", "2025-06-28")).toBe("nine_months");
    expect(classifyDuration("2023-10-01", "2024-09-28")).toBe("annual");
    expect(classifyDuration("2019-09-29", "2020-09-26")).toBe("annual");
    expect(classifyDuration("2022-09-25", "2023-09-30")).toBe("annual"); // 53 weeks
    expect(classifyDuration("2024-01-01", "2024-01-31")).toBe("other");
  });

  test("addYears clamps February 29", () => {
    expect(addYears("2024-02-29", 1)).toBe("2025-02-28");
    expect(addYears("2023-09-30", -2)).toBe("2021-09-30");
  });
});

describe("fiscal calendar", () => {
  // Apple: 52/53-week years ending on the last Saturday of September.
  const apple = new FiscalCalendar(["2022-09-24", "2023-09-30", "2024-09-28"]);

  test("labels quarters by their position in the fiscal year", () => {
    expect(apple.label("2023-12-30", "quarter")).toEqual({
      fiscal_year: 2024,
      quarter: 1,
      fiscal_year_end: "2024-09-28",
    });
    expect(apple.label("2024-03-30", "quarter")?.quarter).toBe(2);
    expect(apple.label("2024-06-29", "quarter")?.quarter).toBe(3);
    expect(apple.label("2024-09-28", "quarter")?.quarter).toBe(4);
    expect(apple.label("2024-09-28", "annual")).toEqual({
      fiscal_year: 2024,
      quarter: null,
      fiscal_year_end: "2024-09-28",
    });
  });

  test("extrapolates years that are not (yet) reported", () => {
    expect(apple.label("2025-03-29", "quarter")).toEqual({
      fiscal_year: 2025,
      quarter: 2,
      fiscal_year_end: "2025-09-28",
    });
    expect(apple.label("2020-12-26", "quarter")?.fiscal_year).toBe(2021);
  });

  test("January year ends (NVIDIA, Snowflake) are named by the year they end in", () => {
    const nvda = new FiscalCalendar(["2024-01-28", "2025-01-26"]);
    expect(nvda.label("2024-04-28", "quarter")).toEqual({
      fiscal_year: 2025,
      quarter: 1,
      fiscal_year_end: "2025-01-26",
    });
    expect(nvda.label("2024-10-27", "quarter")?.quarter).toBe(3);
  });

  test("a year ending in the first days of January belongs to the year before", () => {
    expect(fiscalYearName("2022-01-01")).toBe(2021);
    expect(fiscalYearName("2022-01-29")).toBe(2022);
    expect(fiscalYearName("2023-12-30")).toBe(2023);
  });

  test("without any annual period the configured year end anchors the calendar", () => {
    const nike = new FiscalCalendar([], 0, "05-31");
    expect(nike.label("2023-02-28", "quarter")).toEqual({
      fiscal_year: 2023,
      quarter: 3,
      fiscal_year_end: "2023-05-31",
    });
    expect(new FiscalCalendar([]).label("2023-02-28", "quarter")).toBeNull();
  });

  test("the naming offset is learned from each annual report's own period", () => {
    expect(
      learnYearOffset([
        { fyEnd: "2024-02-03", fy: 2023 },
        { fyEnd: "2023-01-28", fy: 2022 },
      ]),
    ).toBe(-1);
    expect(learnYearOffset([{ fyEnd: "2024-09-28", fy: 2024 }])).toBe(0);
    expect(learnYearOffset([])).toBe(0);
    const retail = new FiscalCalendar(["2024-02-03"], -1);
    expect(retail.label("2024-02-03", "annual")?.fiscal_year).toBe(2023);
  });

  test("month-day formats of submissions and dei", () => {
    expect(parseMonthDay("0926")).toBe("09-26");
    expect(parseMonthDay("--05-31")).toBe("05-31");
    expect(parseMonthDay("1331")).toBeNull();
    expect(parseMonthDay(null)).toBeNull();
  });
});
