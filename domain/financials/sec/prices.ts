/**
 * Closing prices for market-based ratios. Two file shapes are understood: Yahoo-style
 * daily CSVs (Date,Open,High,Low,Close,Adj Close,Volume) named after their ticker, and the
 * long monthly table (symbol,date,price) whose "Jan 1 2000" rows hold that month's last
 * close (checked against known closes, e.g. AAPL Dec 2009 = 210.73 = the Dec 31 close).
 *
 * Both shapes are split-adjusted as of their download, which is at or after their last
 * row; that last date is the series' split basis (see ratios for the restatement).
 */
import { dayNumber, isoFromDay } from "./calendar.ts";

export interface PricePoint {
  date: string;
  close: number;
}

export interface PriceSeries {
  ticker: string;
  interval: "daily" | "monthly";
  /** Prices are on the share basis in force on this date (the series' last row). */
  basisDate: string;
  /** Ascending by date. */
  points: PricePoint[];
  /** Where the series came from (file name), for provenance. */
  source: string;
}

function finish(
  ticker: string,
  interval: PriceSeries["interval"],
  points: PricePoint[],
  source: string,
): PriceSeries | null {
  points.sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
  const last = points.at(-1);
  return last ? { ticker, interval, basisDate: last.date, points, source } : null;
}

/** A Yahoo-style daily CSV; the Close column (split-adjusted, not dividend-adjusted). */
export function parseDailyCsv(text: string, ticker: string, source: string): PriceSeries | null {
  const lines = text.split(/\r?\n/).filter((l) => l.trim() !== "");
  const header = (lines.shift() ?? "").split(",").map((h) => h.trim().toLowerCase());
  const di = header.indexOf("date");
  const ci = header.indexOf("close");
  if (di < 0 || ci < 0) return null;
  const points: PricePoint[] = [];
  for (const line of lines) {
    const cells = line.split(",");
    const date = cells[di]?.trim() ?? "";
    const close = Number(cells[ci]);
    if (/^\d{4}-\d{2}-\d{2}$/.test(date) && Number.isFinite(close) && close > 0) points.push({ date, close });
  }
  return finish(ticker.toUpperCase(), "daily", points, source);
}

const MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];

/** Last calendar day of the month of "Mon D YYYY". */
function monthEnd(label: string): string | null {
  const m = /^([A-Za-z]{3})\s+\d{1,2}\s+(\d{4})$/.exec(label.trim());
  if (!m) return null;
  const month = MONTHS.indexOf((m[1] ?? "").toLowerCase());
  if (month < 0) return null;
  const firstOfNext = Date.UTC(Number(m[2]), month + 1, 1) / 86_400_000;
  return isoFromDay(firstOfNext - 1);
}

/** The long monthly table (symbol,date,price): one series per symbol. */
export function parseMonthlyLongCsv(text: string, source: string): PriceSeries[] {
  const lines = text.split(/\r?\n/).filter((l) => l.trim() !== "");
  const header = (lines.shift() ?? "").split(",").map((h) => h.trim().toLowerCase());
  const si = header.indexOf("symbol");
  const di = header.indexOf("date");
  const pi = header.indexOf("price");
  if (si < 0 || di < 0 || pi < 0) return [];
  const by = new Map<string, PricePoint[]>();
  for (const line of lines) {
    const cells = line.split(",");
    const ticker = (cells[si] ?? "").trim().toUpperCase();
    const date = monthEnd(cells[di] ?? "");
    const close = Number(cells[pi]);
    if (!ticker || !date || !Number.isFinite(close) || close <= 0) continue;
    const list = by.get(ticker) ?? [];
    list.push({ date, close });
    by.set(ticker, list);
  }
  return [...by].flatMap(([t, pts]) => finish(t, "monthly", pts, source) ?? []);
}

export interface PriceAt {
  date: string;
  close: number;
  /** True when the close is on or before the wanted date, false when after it. */
  onOrBefore: boolean;
  series: PriceSeries;
}

/** How far a close may be from the wanted date: a week for daily series, a month for monthly. */
const MAX_GAP_DAYS = { daily: 7, monthly: 31 } as const;

/**
 * The close on or just before `date` (within the series' sampling gap); failing that, the
 * first close after it within the same gap (a series that starts just after `date`).
 */
export function priceAt(series: PriceSeries, date: string): PriceAt | null {
  const pts = series.points;
  const want = dayNumber(date);
  const gap = MAX_GAP_DAYS[series.interval];
  let lo = 0;
  let hi = pts.length - 1;
  let idx = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if ((pts[mid]?.date ?? "") <= date) {
      idx = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  const before = idx >= 0 ? pts[idx] : undefined;
  if (before && want - dayNumber(before.date) <= gap) return { ...before, onOrBefore: true, series };
  const after = pts[idx + 1];
  if (after && dayNumber(after.date) - want <= gap) return { ...after, onOrBefore: false, series };
  return null;
}
