/**
 * Closing prices and shares outstanding for transcript enrichment. Prices come from
 * daily OHLCV files named <TICKER>_*daily*.csv (Date and Close columns); shares from SEC
 * companyfacts (dei:EntityCommonStockSharesOutstanding). Anything missing gives null.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** A call on a weekend or holiday takes the last close at most this many days before. */
const MAX_STALE_DAYS = 4;

export class MarketData {
  private readonly closes = new Map<string, Map<string, number>>();
  private readonly shares = new Map<string, { end: string; val: number }[]>();

  constructor(
    pricesDir: string | null,
    private readonly factsDir: string | null,
  ) {
    if (pricesDir && existsSync(pricesDir)) {
      for (const f of readdirSync(pricesDir)) {
        const m = /^([A-Z.]{1,10})_.*daily.*\.csv$/i.exec(f);
        if (m?.[1]) this.closes.set(m[1].toUpperCase(), readCloses(join(pricesDir, f)));
      }
    }
  }

  static none(): MarketData {
    return new MarketData(null, null);
  }

  closeOn(ticker: string, date: string): number | null {
    const series = this.closes.get(ticker.toUpperCase());
    if (!series) return null;
    const d = new Date(`${date}T00:00:00Z`);
    for (let back = 0; back <= MAX_STALE_DAYS; back++) {
      const day = new Date(d.getTime() - back * 86_400_000).toISOString().slice(0, 10);
      const v = series.get(day);
      if (v !== undefined) return v;
    }
    return null;
  }

  /** Latest reported share count on or before the date. */
  sharesOn(cik: string, date: string): number | null {
    let list = this.shares.get(cik);
    if (!list) {
      list = readShares(this.factsDir ? join(this.factsDir, `CIK${cik}.json`) : null);
      this.shares.set(cik, list);
    }
    let best: { end: string; val: number } | null = null;
    for (const s of list) if (s.end <= date && (!best || s.end > best.end)) best = s;
    return best?.val ?? null;
  }
}

function readCloses(path: string): Map<string, number> {
  const out = new Map<string, number>();
  const [header, ...lines] = readFileSync(path, "utf8").split(/\r?\n/);
  const cols = (header ?? "").split(",").map((c) => c.trim().toLowerCase());
  const di = cols.indexOf("date");
  const ci = cols.indexOf("close");
  if (di < 0 || ci < 0) return out;
  for (const line of lines) {
    const f = line.split(",");
    const day = f[di]?.trim();
    const close = Number(f[ci]);
    if (day && /^\d{4}-\d{2}-\d{2}$/.test(day) && Number.isFinite(close)) out.set(day, close);
  }
  return out;
}

function readShares(path: string | null): { end: string; val: number }[] {
  if (!path || !existsSync(path)) return [];
  const facts = JSON.parse(readFileSync(path, "utf8")) as {
    facts?: { dei?: Record<string, { units?: Record<string, { end: string; val: number }[]> }> };
  };
  return facts.facts?.dei?.EntityCommonStockSharesOutstanding?.units?.shares ?? [];
}
