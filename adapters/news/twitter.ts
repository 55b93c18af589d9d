/**
 * X/Twitter posts: API v2 responses ({data: [{id, text, created_at, author_id, entities:
 * {cashtags}, public_metrics}], includes: {users: [{id, username}]}}) and v1.1 status
 * arrays / search results ({statuses: [...]}, full_text, user.screen_name, entities.symbols).
 * A post has no headline: its first line (cut to 140 characters) serves as the title.
 */
import type { RawNewsItem } from "../../domain/news/ports.ts";
import { collapse, decodeEntities, toIsoOffset, truncate } from "../../domain/news/text.ts";

type Obj = Record<string, unknown>;

const str = (v: unknown): string => (typeof v === "string" ? v : typeof v === "number" ? String(v) : "");
const obj = (v: unknown): Obj => (typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Obj) : {});
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

function metricsSum(m: Obj): number {
  return ["like_count", "retweet_count", "reply_count", "quote_count", "favorite_count"].reduce((s, k) => {
    const n = Number(m[k]);
    return s + (Number.isFinite(n) ? n : 0);
  }, 0);
}

function postToItem(
  text: string,
  id: string,
  username: string,
  createdAt: string,
  tickers: string[],
  engagement: number,
): RawNewsItem | null {
  const clean = collapse(decodeEntities(text));
  if (!clean || !id) return null;
  const firstLine = collapse(decodeEntities(text.split("\n")[0] ?? "")) || clean;
  const handle = username || "i";
  return {
    source_type: "twitter",
    source_name: username ? `@${username}` : "X",
    url: `https://x.com/${handle}/status/${id}`,
    title: truncate(firstLine, 140),
    body: clean,
    published_at: toIsoOffset(createdAt),
    hints: { ...(tickers.length ? { tickers } : {}), engagement },
  };
}

function parseV2(doc: Obj): RawNewsItem[] {
  const users = new Map<string, string>();
  for (const u of arr(obj(doc.includes).users)) users.set(str(obj(u).id), str(obj(u).username));
  const posts = Array.isArray(doc.data) ? doc.data : doc.data ? [doc.data] : [];
  const out: RawNewsItem[] = [];
  for (const p of posts) {
    const t = obj(p);
    const tickers = arr(obj(t.entities).cashtags)
      .map((c) => str(obj(c).tag).toUpperCase())
      .filter(Boolean);
    const item = postToItem(
      str(t.note_tweet ? obj(t.note_tweet).text : t.text),
      str(t.id),
      users.get(str(t.author_id)) ?? "",
      str(t.created_at),
      tickers,
      metricsSum(obj(t.public_metrics)),
    );
    if (item) out.push(item);
  }
  return out;
}

function parseV1(statuses: unknown[]): RawNewsItem[] {
  const out: RawNewsItem[] = [];
  for (const s of statuses) {
    const t = obj(s);
    const tickers = arr(obj(t.entities).symbols)
      .map((c) => str(obj(c).text).toUpperCase())
      .filter(Boolean);
    const item = postToItem(
      str(t.full_text) || str(t.text),
      str(t.id_str) || str(t.id),
      str(obj(t.user).screen_name),
      str(t.created_at),
      tickers,
      metricsSum(t),
    );
    if (item) out.push(item);
  }
  return out;
}

export function isTwitterDoc(doc: unknown): boolean {
  if (Array.isArray(doc)) return doc.length > 0 && ("id_str" in obj(doc[0]) || "full_text" in obj(doc[0]));
  const o = obj(doc);
  const first = obj(Array.isArray(o.data) ? o.data[0] : o.data);
  return (
    ("text" in first && "id" in first) || Array.isArray(o.statuses) || ("meta" in o && "result_count" in obj(o.meta))
  );
}

export function parseTwitter(doc: unknown): RawNewsItem[] {
  if (Array.isArray(doc)) return parseV1(doc);
  const o = obj(doc);
  if (Array.isArray(o.statuses)) return parseV1(o.statuses);
  return parseV2(o);
}
