/** News feed items -> (article)-[:MENTIONS]->(company) in the company graph (see ./parse.ts). */
import { type GraphBuilder, nameKey, slug } from "./parse.ts";

// ---------- News ----------

interface FeedItem {
  title?: unknown;
  link?: unknown;
  guid?: unknown;
  pubDate?: unknown;
  tickers?: unknown;
}

/** RSS items of a feed JSON list; returns the number of MENTIONS added. Run after the filings. */
export function addNewsItems(b: GraphBuilder, fileName: string, json: unknown): number {
  if (!Array.isArray(json)) return 0;
  const names = b
    .registrants()
    .map((r) => ({ cik: r.cik, key: nameKey(r.name).replace(/\s*&$/, "") }))
    .filter((r) => r.key.replace(/[^A-Z]/g, "").length >= 4)
    .map((r) => ({ cik: r.cik, re: new RegExp(`(^|[^A-Z0-9])${r.key.replace(/[&]/g, "\\&")}([^A-Z0-9]|$)`) }));
  let n = 0;
  for (const [i, raw] of json.entries()) {
    const item = raw as FeedItem;
    const title = String(item.title ?? "").trim();
    if (!title) continue;
    const ciks = new Set<string>();
    for (const t of String(item.tickers ?? "")
      .split(/[,\s]+/)
      .filter(Boolean)) {
      const cik = b.directory.byTicker.get(t.toUpperCase());
      if (cik) ciks.add(b.company(cik, null));
    }
    const upper = title.toUpperCase();
    for (const r of names) if (r.re.test(upper)) ciks.add(r.cik);
    if (ciks.size === 0) continue;
    const ref = String(item.guid ?? item.link ?? "").trim() || `${fileName}#${i}`;
    const id = `news:${slug(ref).slice(0, 120)}`;
    const when = Date.parse(String(item.pubDate ?? ""));
    b.node("NewsArticle", id, {
      id,
      title,
      published_at: Number.isFinite(when) ? new Date(when).toISOString() : null,
    });
    for (const cik of ciks) {
      b.rel("MENTIONS", id, cik, {});
      n++;
    }
  }
  return n;
}
