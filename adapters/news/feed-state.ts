/**
 * FeedStateStore over a SqlClient (table news_feeds). A claim is one conditional UPDATE, so
 * of several instances polling the same feeds exactly one wins each due poll; a poller that
 * dies holding a lease loses it when leased_until passes.
 */
import type { FeedClaim, FeedOutcome, FeedState, FeedStateStore } from "../../domain/news/ports.ts";
import type { SqlClient } from "../../domain/ports.ts";

const EPOCH = new Date(0).toISOString();

interface FeedRow extends FeedState {
  leased_until: string | null;
}

const COLUMNS =
  "feed_key, url, etag, last_modified, failures, next_poll_at, leased_until, last_status, last_error, last_polled_at";

function toState(r: FeedRow): FeedState {
  return {
    feed_key: r.feed_key,
    url: r.url,
    etag: r.etag,
    last_modified: r.last_modified,
    failures: Number(r.failures),
    next_poll_at: r.next_poll_at,
    last_status: r.last_status === null ? null : Number(r.last_status),
    last_error: r.last_error,
    last_polled_at: r.last_polled_at,
  };
}

export class SqlFeedStateStore implements FeedStateStore {
  constructor(private readonly sql: SqlClient) {}

  async claim(feedKey: string, url: string, now: Date, leaseMs: number): Promise<FeedClaim> {
    const at = now.toISOString();
    const until = new Date(now.getTime() + leaseMs).toISOString();
    await this.sql.run(
      `INSERT INTO news_feeds (feed_key, url, next_poll_at, updated_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (feed_key) DO NOTHING`,
      [feedKey, url, EPOCH, at],
    );
    const { changes } = await this.sql.run(
      `UPDATE news_feeds SET leased_until = ?, url = ?, updated_at = ?
       WHERE feed_key = ? AND next_poll_at <= ? AND (leased_until IS NULL OR leased_until <= ?)`,
      [until, url, at, feedKey, at, at],
    );
    const row = await this.sql.get<FeedRow>(`SELECT ${COLUMNS} FROM news_feeds WHERE feed_key = ?`, [feedKey]);
    if (!row) throw new Error(`feed state ${feedKey} vanished while claiming it`);
    if (changes === 1) return { claimed: true, state: toState(row) };
    const leased = row.leased_until && row.leased_until > at ? row.leased_until : null;
    return { claimed: false, retryAt: leased && leased > row.next_poll_at ? leased : row.next_poll_at };
  }

  async release(feedKey: string, o: FeedOutcome): Promise<void> {
    await this.sql.run(
      `UPDATE news_feeds SET etag = ?, last_modified = ?, failures = ?, next_poll_at = ?, last_status = ?,
         last_error = ?, last_polled_at = ?, leased_until = NULL, updated_at = ?
       WHERE feed_key = ?`,
      [
        o.etag,
        o.last_modified,
        o.failures,
        o.next_poll_at,
        o.last_status,
        o.last_error,
        o.last_polled_at,
        new Date().toISOString(),
        feedKey,
      ],
    );
  }

  async get(feedKey: string): Promise<FeedState | null> {
    const row = await this.sql.get<FeedRow>(`SELECT ${COLUMNS} FROM news_feeds WHERE feed_key = ?`, [feedKey]);
    return row ? toState(row) : null;
  }
}
