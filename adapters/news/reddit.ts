/**
 * Reddit posts: the listing JSON of /r/{sub}/new.json ({kind: "Listing", data: {children:
 * [{kind: "t3", data: {...}}]}}) and CSV exports made with PRAW (title, score, id, url,
 * comms_num, created, body). The article URL is the post's permalink: the linked URL is
 * often an image or gallery, and the discussion is what the stream reports.
 */
import type { RawNewsItem } from "../../domain/news/ports.ts";
import { collapse, decodeEntities, toIsoOffset } from "../../domain/news/text.ts";
import { parseCsvObjects } from "./csv.ts";

type Obj = Record<string, unknown>;

const str = (v: unknown): string => (typeof v === "string" ? v : "");
const int = (v: unknown): number => {
  const n = typeof v === "number" ? v : Number(v);
  return Number.isFinite(n) ? n : 0;
};

function postItem(d: Obj, fallbackSub: string): RawNewsItem | null {
  const title = collapse(decodeEntities(str(d.title)));
  const id = str(d.id);
  const sub = str(d.subreddit) || fallbackSub;
  const permalink = str(d.permalink);
  const url = permalink
    ? new URL(permalink, "https://www.reddit.com").toString()
    : id
      ? `https://www.reddit.com${sub ? `/r/${sub}` : ""}/comments/${id}/`
      : "";
  if (!title || !url) return null;
  return {
    source_type: "reddit",
    source_name: sub ? `r/${sub}` : "Reddit",
    url,
    title,
    body: collapse(decodeEntities(str(d.selftext) || str(d.body))),
    published_at: toIsoOffset(int(d.created_utc ?? d.created) || null),
    hints: { engagement: int(d.score ?? d.ups) + int(d.num_comments ?? d.comms_num) },
  };
}

export function isRedditListing(doc: unknown): boolean {
  const o = doc as Obj | null;
  return !!o && typeof o === "object" && o.kind === "Listing";
}

/** One listing, or the [post, comments] pair a post's own .json returns. */
export function parseRedditListing(doc: unknown, subreddit = ""): RawNewsItem[] {
  const listings = Array.isArray(doc) ? doc : [doc];
  const out: RawNewsItem[] = [];
  for (const l of listings) {
    if (!isRedditListing(l)) continue;
    const children = ((l as Obj).data as Obj | undefined)?.children;
    if (!Array.isArray(children)) continue;
    for (const c of children) {
      const child = c as Obj;
      if (child?.kind !== "t3" || typeof child.data !== "object" || child.data === null) continue;
      const item = postItem(child.data as Obj, subreddit);
      if (item) out.push(item);
    }
  }
  return out;
}

/**
 * PRAW CSV exports (one subreddit per file; the subreddit is read from each post's URL).
 * Such exports mix in comments as rows titled "Comment" with no URL: they are not posts.
 */
export function parseRedditCsv(text: string, subreddit = ""): RawNewsItem[] {
  const out: RawNewsItem[] = [];
  for (const row of parseCsvObjects(text)) {
    if (row.title === "Comment" && !row.url) continue;
    const sub = /reddit\.com\/r\/([^/]+)\//.exec(row.url ?? "")?.[1] ?? subreddit;
    const item = postItem(row, sub);
    if (item) out.push(item);
  }
  return out;
}

export function looksLikeRedditCsv(text: string): boolean {
  const head = text.slice(0, 200).toLowerCase();
  return head.startsWith("title,") && head.includes("comms_num");
}
