/**
 * Dates and fiscal calendars for SEC XBRL periods. Facts carry ISO dates only; the
 * filing's own `fy`/`fp` describe the filing, not the fact (a 10-K's comparative columns
 * carry the 10-K's fy), so every label here is derived from the period's dates.
 */

const DAY_MS = 86_400_000;

/** Days since 1970-01-01 (UTC) of an ISO date `YYYY-MM-DD`. */
export function dayNumber(iso: string): number {
  return Math.round(Date.parse(`${iso.slice(0, 10)}T00:00:00Z`) / DAY_MS);
}

export function isoFromDay(day: number): string {
  return new Date(day * DAY_MS).toISOString().slice(0, 10);
}

export function addDays(iso: string, days: number): string {
  return isoFromDay(dayNumber(iso) + days);
}

/** Inclusive length of a duration in days (a calendar quarter is 90-92, a 52-week year 364). */
export function durationDays(start: string, end: string): number {
  return dayNumber(end) - dayNumber(start) + 1;
}

/** Shifts a date by whole calendar years, clamping Feb 29 to Feb 28. */
export function addYears(iso: string, years: number): string {
  const y = Number(iso.slice(0, 4)) + years;
  const md = iso.slice(5, 10) === "02-29" ? "02-28" : iso.slice(5, 10);
  return `${String(y).padStart(4, "0")}-${md}`;
}

export type DurationClass = "quarter" | "half" | "nine_months" | "annual" | "other";

/**
 * Classifies a duration by its length. Fiscal quarters are 13 or 14 weeks and fiscal
 * years 52 or 53 weeks, so the bands are wide enough for both calendars and no wider:
 * a 6- or 9-month year-to-date column is never mistaken for a quarter.
 */
export function classifyDuration(start: string, end: string): DurationClass {
  const d = durationDays(start, end);
  if (d >= 80 && d <= 100) return "quarter";
  if (d >= 170 && d <= 192) return "half";
  if (d >= 260 && d <= 284) return "nine_months";
  if (d >= 350 && d <= 380) return "annual";
  return "other";
}

export type FiscalPeriodCode = "FY" | "Q1" | "Q2" | "Q3" | "Q4";

export interface FiscalLabel {
  fiscal_year: number;
  /** 1..4 for quarters; null for a full fiscal year. */
  quarter: number | null;
  /** The end date of the fiscal year the period belongs to. */
  fiscal_year_end: string;
}

/** Days between the end of a fiscal year's quarters: 52 weeks / 4. */
const QUARTER_DAYS = 91.31;
/** A 52/53-week year drifts up to a week from the calendar anniversary; allow a little more. */
const ANCHOR_SLACK_DAYS = 10;

/**
 * The fiscal calendar of one company: the known fiscal-year end dates (from its annual
 * facts), extrapolated by calendar years where a year is not yet (or no longer) reported.
 */
export class FiscalCalendar {
  private readonly ends: number[];

  /**
   * @param fiscalYearEnds end dates of the company's annual periods
   * @param yearOffset added to the calendar year of a fiscal year's end to name it; learned
   *   from the filer's own labels (see learnYearOffset), 0 for almost every filer
   * @param fallbackMonthDay "MM-DD" used when no annual period is known (e.g. from the
   *   submissions `fiscalYearEnd` "0926" or dei CurrentFiscalYearEndDate "--09-26")
   */
  constructor(
    fiscalYearEnds: readonly string[],
    readonly yearOffset = 0,
    private readonly fallbackMonthDay: string | null = null,
  ) {
    const days = [...new Set(fiscalYearEnds.map(dayNumber))].sort((a, b) => a - b);
    // Collapse near-duplicates (the same year reported with a one-day difference).
    this.ends = days.filter((d, i) => i === 0 || d - (days[i - 1] ?? 0) > 30);
  }

  get knownYearEnds(): string[] {
    return this.ends.map(isoFromDay);
  }

  /** The end of the fiscal year that contains a period ending on `end`, or null. */
  fiscalYearEndFor(end: string): string | null {
    const e = dayNumber(end);
    const fits = (f: number) => f >= e - ANCHOR_SLACK_DAYS && f - e <= 366 - 80 + ANCHOR_SLACK_DAYS;
    const known = this.ends.find(fits);
    if (known !== undefined) return isoFromDay(known);
    const anchor = this.nearestAnchor(e);
    if (anchor === null) return null;
    const years = Math.round((e - dayNumber(anchor)) / 365.25);
    for (const n of [years - 1, years, years + 1]) {
      const f = dayNumber(addYears(anchor, n));
      if (fits(f)) return isoFromDay(f);
    }
    return null;
  }

  /** Fiscal year and quarter of a quarter or annual period ending on `end`. */
  label(end: string, kind: "quarter" | "annual"): FiscalLabel | null {
    const fyEnd = this.fiscalYearEndFor(end);
    if (fyEnd === null) return null;
    const fiscal_year = fiscalYearName(fyEnd, this.yearOffset);
    const gap = dayNumber(fyEnd) - dayNumber(end);
    if (kind === "annual") {
      return Math.abs(gap) <= ANCHOR_SLACK_DAYS ? { fiscal_year, quarter: null, fiscal_year_end: fyEnd } : null;
    }
    const k = Math.round(gap / QUARTER_DAYS);
    if (k < 0 || k > 3 || Math.abs(gap - k * QUARTER_DAYS) > 15) return null;
    return { fiscal_year, quarter: 4 - k, fiscal_year_end: fyEnd };
  }

  private nearestAnchor(e: number): string | null {
    if (this.ends.length > 0) {
      let best = this.ends[0] ?? 0;
      for (const f of this.ends) if (Math.abs(f - e) < Math.abs(best - e)) best = f;
      return isoFromDay(best);
    }
    if (!this.fallbackMonthDay) return null;
    const md = this.fallbackMonthDay;
    return `${isoFromDay(e).slice(0, 4)}-${md}`;
  }
}

/**
 * Names a fiscal year by the calendar year of its end. A 52/53-week year that ends in the
 * first days of January (the "Saturday nearest December 31" calendars) belongs to the year
 * before; `offset` carries a filer's own convention (learned from its filings).
 */
export function fiscalYearName(fyEnd: string, offset = 0): number {
  const year = Number(fyEnd.slice(0, 4));
  const early = fyEnd.slice(5, 7) === "01" && Number(fyEnd.slice(8, 10)) <= 7;
  return (early ? year - 1 : year) + offset;
}

/**
 * The filer's naming convention: the most common difference between the fiscal year a
 * 10-K states for its own (latest) annual period and the calendar-derived name. Comparative
 * columns are excluded by taking, per filing, only the latest-ending annual period.
 */
export function learnYearOffset(own: readonly { fyEnd: string; fy: number }[]): number {
  const counts = new Map<number, number>();
  for (const o of own) {
    const d = o.fy - fiscalYearName(o.fyEnd);
    if (Math.abs(d) <= 1) counts.set(d, (counts.get(d) ?? 0) + 1);
  }
  let best = 0;
  let bestN = 0;
  for (const [d, n] of counts) if (n > bestN || (n === bestN && d === 0)) [best, bestN] = [d, n];
  return best;
}

/** "0926" (submissions) or "--09-26" (dei) to "09-26"; null when malformed. */
export function parseMonthDay(raw: string | null | undefined): string | null {
  if (!raw) return null;
  const m = /^(?:--)?(\d{2})-?(\d{2})$/.exec(raw.trim());
  if (!m) return null;
  const [mm, dd] = [Number(m[1]), Number(m[2])];
  if (mm < 1 || mm > 12 || dd < 1 || dd > 31) return null;
  return `${m[1]}-${m[2]}`;
}
