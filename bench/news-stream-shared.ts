/**
 * What the news-stream benchmark's processes share: the workload (seeded articles and the
 * subscribers' filter mix) and the IPC messages between the orchestrator
 * (bench/news-stream.ts), the server (news-stream-server.ts) and the clients
 * (news-stream-clients.ts).
 *
 * The filter mix models watch-lists: most subscribers follow a few tickers, some follow a
 * category in a country above an impact bar, a few follow social sources by sentiment,
 * and one in a thousand takes everything. With 1,000 articles/s it averages about fifty
 * recipients per article; the server reports the exact number it matched.
 */
import type { Article, NewsFilter } from "../domain/news/types.ts";
import { makeArticle, pickDistinct, UNIVERSE } from "../test/news-fixtures.ts";
import { type Prng, prng } from "../test/prng.ts";
import type { Summary } from "./runner.ts";

export const TICKER_COUNT = 2_000;
export const TICKERS = Array.from({ length: TICKER_COUNT }, (_, i) => `T${String(i).padStart(4, "0")}`);

/** Mildly skewed (Zipf s=0.5): some names are in the news more than others. */
const zipfCdf = (() => {
  const w = TICKERS.map((_, i) => 1 / Math.sqrt(i + 1));
  const total = w.reduce((a, b) => a + b, 0);
  let acc = 0;
  return w.map((x) => {
    acc += x / total;
    return acc;
  });
})();
function zipfTicker(rng: Prng): string {
  const u = rng.next();
  let lo = 0;
  let hi = zipfCdf.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((zipfCdf[mid] ?? 1) < u) lo = mid + 1;
    else hi = mid;
  }
  return TICKERS[lo] as string;
}

/** The i-th article of the run (content only; the server stamps the url at publish time). */
export function benchArticle(seed: number, i: number): Article {
  const rng = prng(seed * 1_000_003 + i);
  const tickers = new Set<string>();
  for (let k = rng.int(4); k > 0; k--) tickers.add(zipfTicker(rng));
  const country = rng.bool(0.6) ? ["US"] : pickDistinct(UNIVERSE.countries, 1 + rng.int(2), rng.next);
  const impact = Math.round(rng.next() * 1000) / 1000;
  return makeArticle(
    {
      article_id: `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`,
      company_tickers: [...tickers],
      company_names: [...tickers].map((t) => `${t} Holdings Inc.`),
      categories: pickDistinct(UNIVERSE.categories, 1 + rng.int(2), rng.next),
      country_codes: country,
      source_type: rng.pick(["rss", "rss", "gdelt", "reddit", "twitter"] as const),
      sentiment_label: rng.pick(UNIVERSE.sentiments),
      impact_score: impact,
      impact_label: impact >= 0.7 ? "high" : impact >= 0.4 ? "medium" : "low",
    },
    i,
  );
}

/** Subscriber i's filter. */
export function benchFilter(seed: number, i: number): NewsFilter {
  if (i % 1000 === 999) return {};
  const rng = prng(seed * 7_919 + i);
  const r = rng.next();
  if (r < 0.7) return { tickers: pickDistinct(TICKERS, 1 + rng.int(3), rng.next) };
  if (r < 0.85) {
    return {
      categories: [rng.pick(UNIVERSE.categories)],
      countries: [rng.pick(UNIVERSE.countries)],
      min_impact: 0.6,
    };
  }
  if (r < 0.95) {
    return {
      source_types: [rng.pick(["reddit", "twitter"] as const)],
      sentiment: rng.pick(UNIVERSE.sentiments),
      min_impact: 0.9,
    };
  }
  return {
    countries: [rng.pick(UNIVERSE.countries.slice(1))],
    categories: pickDistinct(UNIVERSE.categories, 2, rng.next),
  };
}

/** The publish time rides in the url, so a client reads it without parsing the frame. */
export const STAMP = "?t=";
export function stampUrl(base: string, phase: number): string {
  return `${base}${STAMP}${(performance.timeOrigin + performance.now()).toFixed(3)}&p=${phase}`;
}

export type ServerMode = "cairn" | "bare";

/** Orchestrator -> server. */
export type ServerCommand =
  | { cmd: "publish"; phase: number; rate: number; seconds: number }
  | { cmd: "stats" }
  | { cmd: "end" }
  /** Exit cleanly (so a --cpu-prof profile gets written). */
  | { cmd: "exit" };

/** Server -> orchestrator. */
export type ServerEvent =
  | { type: "ready"; port: number; apiKey: string; rss: number; heap: number }
  | {
      type: "published";
      phase: number;
      articles: number;
      /** Recipients matched for those articles (the deliveries owed). */
      expected: number;
      seconds: number;
      /** When the phase's first article was published (epoch ms, the stamps' clock). */
      startedAt: number;
      /** Server CPU seconds (user + system) spent during the phase. */
      cpu: number;
      /** Event-loop lag during the phase (how late a 2 ms timer fired), ms. */
      lag: Summary;
    }
  | {
      type: "stats";
      rss: number;
      heap: number;
      subscribers: number;
      /** The most articles any one connection has lost (the stalled one). */
      maxDropped: number;
      /** Bytes Bun holds for the most backed-up socket (bare mode: its unbounded-ish buffer). */
      maxBuffered: number;
    };

/** Orchestrator -> clients. */
export type ClientCommand = { cmd: "report" };

export interface PhaseReport {
  phase: number;
  /** Article messages received for articles published in this phase. */
  received: number;
  /** Publish-to-receive latency over those messages, ms. */
  latency: Summary;
  /** When the last of them arrived (epoch ms). */
  lastAt: number;
}

/** Clients -> orchestrator. */
export type ClientEvent =
  | { type: "connected"; clients: number; failed: number; ms: number; cpu: number }
  /** cpu: the clients process's CPU seconds so far (user + system). */
  | { type: "report"; phases: PhaseReport[]; maxDropped: number; closed: number; cpu: number };
