/**
 * NewsStore over a SqlClient: one implementation for bun:sqlite and Postgres (tables in
 * migrations.ts). Array fields are JSON text on the article row, for reading it back, and
 * one row each in news_article_tags, for filtering; both are written in one transaction.
 */

import type { NewsPage, NewsQuery, NewsStore, StoredArticle } from "../../domain/news/ports.ts";
import type { Article, ArticleWire } from "../../domain/news/types.ts";
import type { SqlClient, SqlParam } from "../../domain/ports.ts";

/** The stored row: the wire shape (arrays as JSON text) plus paging fields; numerics as the driver returns them. */
type ArticleRow = Omit<ArticleWire, "sentiment_score" | "impact_score"> & {
  seq: number;
  sentiment_score: number | string;
  impact_score: number | string;
  ingested_at: string;
};

const COLUMNS =
  "seq, article_id, url, title, snippet, summary, source_name, source_type, published_at, categories, country_codes, " +
  "company_tickers, company_names, sentiment_label, sentiment_score, impact_score, impact_label, ingested_at";

/** Tag kinds and the filter field each serves. */
const TAG_KINDS = { ticker: "tickers", category: "categories", country: "countries" } as const;

function toArticle(r: ArticleRow): Article {
  return {
    article_id: r.article_id,
    url: r.url,
    title: r.title,
    snippet: r.snippet,
    summary: r.summary,
    source_name: r.source_name,
    source_type: r.source_type,
    published_at: r.published_at,
    categories: JSON.parse(r.categories) as string[],
    country_codes: JSON.parse(r.country_codes) as string[],
    company_tickers: JSON.parse(r.company_tickers) as string[],
    company_names: JSON.parse(r.company_names) as string[],
    sentiment_label: r.sentiment_label,
    sentiment_score: Number(r.sentiment_score),
    impact_score: Number(r.impact_score),
    impact_label: r.impact_label,
    ingested_at: r.ingested_at,
  };
}

const marks = (n: number) => Array.from({ length: n }, () => "?").join(", ");

export class SqlNewsStore implements NewsStore {
  constructor(private readonly sql: SqlClient) {}

  async insert(a: StoredArticle): Promise<boolean> {
    return this.sql.transaction(async (tx) => {
      // ON CONFLICT DO NOTHING on either unique key: a repeated URL (or the same id, which
      // is derived from it) is a duplicate, not an error; RETURNING tells which happened.
      const rows = await tx.all<{ seq: number }>(
        `INSERT INTO news_articles (article_id, canonical_url, url, title, snippet, summary, source_name, source_type,
           published_at, categories, country_codes, company_tickers, company_names, sentiment_label, sentiment_score,
           impact_score, impact_label, ingested_at)
         VALUES (${marks(18)}) ON CONFLICT DO NOTHING RETURNING seq`,
        [
          a.article_id,
          a.canonical_url,
          a.url,
          a.title,
          a.snippet,
          a.summary,
          a.source_name,
          a.source_type,
          a.published_at,
          JSON.stringify(a.categories),
          JSON.stringify(a.country_codes),
          JSON.stringify(a.company_tickers),
          JSON.stringify(a.company_names),
          a.sentiment_label,
          a.sentiment_score,
          a.impact_score,
          a.impact_label,
          a.ingested_at,
        ],
      );
      const seq = rows[0]?.seq;
      if (seq === undefined) return false;
      const tags: [string, string][] = [];
      const byKind = [
        ["ticker", a.company_tickers],
        ["category", a.categories],
        ["country", a.country_codes],
      ] as const;
      for (const [kind, values] of byKind) for (const v of new Set(values)) tags.push([kind, v]);
      if (tags.length > 0) {
        const params: SqlParam[] = tags.flatMap(([kind, value]) => [seq, kind, value]);
        await tx.run(
          `INSERT INTO news_article_tags (seq, kind, value) VALUES ${tags.map(() => "(?, ?, ?)").join(", ")}`,
          params,
        );
      }
      return true;
    });
  }

  async get(articleId: string): Promise<Article | null> {
    const row = await this.sql.get<ArticleRow>(`SELECT ${COLUMNS} FROM news_articles WHERE article_id = ?`, [
      articleId,
    ]);
    return row ? toArticle(row) : null;
  }

  async list(q: NewsQuery): Promise<NewsPage> {
    const where: string[] = [];
    const params: SqlParam[] = [];
    // Same semantics as domain/news/types/types.ts `matches`: OR within a field, AND across fields.
    for (const [kind, field] of Object.entries(TAG_KINDS)) {
      const wanted = q[field];
      if (!wanted || wanted.length === 0) continue;
      where.push(
        `EXISTS (SELECT 1 FROM news_article_tags t WHERE t.seq = a.seq AND t.kind = ? AND t.value IN (${marks(wanted.length)}))`,
      );
      params.push(kind, ...wanted);
    }
    if (q.source_types && q.source_types.length > 0) {
      where.push(`a.source_type IN (${marks(q.source_types.length)})`);
      params.push(...q.source_types);
    }
    if (q.sentiment !== undefined) {
      where.push("a.sentiment_label = ?");
      params.push(q.sentiment);
    }
    if (q.min_impact !== undefined) {
      where.push("a.impact_score >= ?");
      params.push(q.min_impact);
    }
    if (q.from !== undefined) {
      where.push("a.published_at >= ?");
      params.push(q.from);
    }
    if (q.to !== undefined) {
      where.push("a.published_at < ?");
      params.push(q.to);
    }
    if (q.after !== undefined) {
      where.push("a.seq < ?");
      params.push(q.after);
    }
    // One row more than asked says whether another page follows.
    params.push(q.limit + 1);
    const rows = await this.sql.all<ArticleRow>(
      `SELECT ${COLUMNS.split(", ")
        .map((c) => `a.${c}`)
        .join(", ")} FROM news_articles a
       ${where.length ? `WHERE ${where.join(" AND ")}` : ""}
       ORDER BY a.seq DESC LIMIT ?`,
      params,
    );
    const page = rows.slice(0, q.limit);
    const last = page.at(-1);
    return { articles: page.map(toArticle), next: rows.length > q.limit && last ? Number(last.seq) : null };
  }

  async recentTitles(limit: number): Promise<{ article_id: string; title: string; published_at: string }[]> {
    return this.sql.all(`SELECT article_id, title, published_at FROM news_articles ORDER BY seq DESC LIMIT ?`, [limit]);
  }
}
