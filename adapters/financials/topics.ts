/** TopicStore over a SqlClient: stable topic ids, per-document mentions, emerging topics. */

import type {
  EmergingTopic,
  EmergingTopicCompany,
  EmergingTopicInput,
  ExtractedTopic,
  ExtractedTopicsQuery,
  TopicDocument,
  TopicMention,
  TopicStore,
} from "../../domain/financials/topics.ts";
import type { SqlClient, SqlParam } from "../../domain/ports.ts";
import { insertMany } from "./research-batch.ts";

type Numeric = number | string;

interface EmergingRow {
  id: Numeric;
  topic_id: Numeric;
  name: string;
  lift: Numeric;
  recent_share: Numeric;
  baseline_share: Numeric;
  recent_doc_count: Numeric;
  window_start: string;
  window_end: string;
  baseline_start: string;
  detected_at: string;
}

const EMERGING_SELECT = `SELECT e.id, e.topic_id, t.name, e.lift, e.recent_share, e.baseline_share, e.recent_doc_count,
  e.window_start, e.window_end, e.baseline_start, e.detected_at FROM emerging_topics e JOIN topics t ON t.id = e.topic_id`;

/** Averages are reported to 4 decimals: more is noise for a keyword score. */
const round4 = (v: Numeric) => Math.round(Number(v) * 10_000) / 10_000;

function toEmerging(r: EmergingRow): EmergingTopic {
  return {
    emerging_topic_id: Number(r.id),
    topic_id: Number(r.topic_id),
    topic: r.name,
    lift: round4(r.lift),
    recent_share: round4(r.recent_share),
    baseline_share: round4(r.baseline_share),
    recent_doc_count: Number(r.recent_doc_count),
    window_start: r.window_start,
    window_end: r.window_end,
    baseline_start: r.baseline_start,
    detected_at: r.detected_at,
  };
}

export class SqlTopicStore implements TopicStore {
  constructor(private readonly sql: SqlClient) {}

  async replaceCorpus(docs: TopicDocument[], mentions: TopicMention[]): Promise<Map<string, number>> {
    return this.sql.transaction(async (tx) => {
      const names = [...new Set(mentions.map((m) => m.topic))].sort();
      const at = new Date().toISOString();
      // Topic rows are never deleted or renamed: that is what keeps ids stable.
      await insertMany(
        tx,
        "topics",
        ["name", "created_at"],
        names.map((n) => [n, at]),
        "ON CONFLICT (name) DO NOTHING",
      );
      const ids = new Map<string, number>();
      for (const r of await tx.all<{ id: Numeric; name: string }>("SELECT id, name FROM topics")) {
        ids.set(r.name, Number(r.id));
      }
      await tx.run("DELETE FROM topic_mentions");
      await tx.run("DELETE FROM topic_documents");
      await insertMany(
        tx,
        "topic_documents",
        ["doc_id", "source_type", "cik", "ticker", "company_name", "doc_date", "date_basis"],
        docs.map((d) => [d.doc_id, d.source_type, d.cik, d.ticker, d.company_name, d.doc_date, d.date_basis]),
      );
      await insertMany(
        tx,
        "topic_mentions",
        ["topic_id", "doc_id", "importance", "sentiment", "mentions"],
        mentions.map((m) => [ids.get(m.topic) ?? null, m.doc_id, m.importance, m.sentiment, m.mentions]),
      );
      return new Map(names.map((n) => [n, ids.get(n) ?? 0]));
    });
  }

  async extracted(cik: string, q: ExtractedTopicsQuery): Promise<ExtractedTopic[]> {
    const params: SqlParam[] = [cik, q.date_from, q.date_to];
    let source = "";
    if (q.source_type !== "all") {
      source = "AND d.source_type = ?";
      params.push(q.source_type);
    }
    const rows = await this.sql.all<{
      topic_name: string;
      doc_count: Numeric;
      avg_importance: Numeric;
      avg_sentiment: Numeric;
      latest_date: string;
      earliest_date: string;
    }>(
      `SELECT t.name AS topic_name, CAST(COUNT(*) AS INTEGER) AS doc_count,
         CAST(AVG(m.importance) AS DOUBLE PRECISION) AS avg_importance,
         CAST(AVG(m.sentiment) AS DOUBLE PRECISION) AS avg_sentiment,
         MAX(d.doc_date) AS latest_date, MIN(d.doc_date) AS earliest_date
       FROM topic_mentions m
       JOIN topic_documents d ON d.doc_id = m.doc_id
       JOIN topics t ON t.id = m.topic_id
       WHERE d.cik = ? AND d.doc_date >= ? AND d.doc_date <= ? ${source}
       GROUP BY t.id, t.name
       ORDER BY doc_count DESC, avg_importance DESC, topic_name
       LIMIT ?`,
      [...params, q.limit],
    );
    return rows.map((r) => ({
      topic_name: r.topic_name,
      doc_count: Number(r.doc_count),
      avg_importance: round4(r.avg_importance),
      avg_sentiment: round4(r.avg_sentiment),
      latest_date: r.latest_date,
      earliest_date: r.earliest_date,
    }));
  }

  async companyName(cik: string): Promise<string | null> {
    const r = await this.sql.get<{ name: string | null }>(
      "SELECT MAX(company_name) AS name FROM topic_documents WHERE cik = ?",
      [cik],
    );
    return r?.name ?? null;
  }

  async replaceEmerging(list: EmergingTopicInput[], detectedAt: string): Promise<EmergingTopic[]> {
    await this.sql.transaction(async (tx) => {
      await tx.run("UPDATE emerging_topics SET is_current = ?", [false]);
      for (const e of list) {
        const topic = await tx.get<{ id: Numeric }>("SELECT id FROM topics WHERE name = ?", [e.topic]);
        if (!topic) continue;
        // Upsert on topic_id keeps the emerging id of a topic that emerged before.
        await tx.run(
          `INSERT INTO emerging_topics (topic_id, lift, recent_share, baseline_share, recent_doc_count, window_start,
             window_end, baseline_start, detected_at, is_current) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
           ON CONFLICT (topic_id) DO UPDATE SET lift = excluded.lift, recent_share = excluded.recent_share,
             baseline_share = excluded.baseline_share, recent_doc_count = excluded.recent_doc_count,
             window_start = excluded.window_start, window_end = excluded.window_end,
             baseline_start = excluded.baseline_start, detected_at = excluded.detected_at,
             is_current = excluded.is_current`,
          [
            Number(topic.id),
            e.lift,
            e.recent_share,
            e.baseline_share,
            e.recent_doc_count,
            e.window_start,
            e.window_end,
            e.baseline_start,
            detectedAt,
            true,
          ],
        );
      }
    });
    return this.listEmerging();
  }

  async listEmerging(): Promise<EmergingTopic[]> {
    const rows = await this.sql.all<EmergingRow>(
      `${EMERGING_SELECT} WHERE e.is_current = ? ORDER BY e.lift DESC, e.recent_doc_count DESC, t.name`,
      [true],
    );
    return rows.map(toEmerging);
  }

  async getEmerging(id: number): Promise<EmergingTopic | null> {
    const r = await this.sql.get<EmergingRow>(`${EMERGING_SELECT} WHERE e.id = ?`, [id]);
    return r ? toEmerging(r) : null;
  }

  async emergingCompanies(e: EmergingTopic, limit: number): Promise<EmergingTopicCompany[]> {
    const rows = await this.sql.all<{
      cik: string;
      doc_count: Numeric;
      company_name: string | null;
      ticker: string | null;
      latest_date: string;
    }>(
      `SELECT d.cik, CAST(COUNT(*) AS INTEGER) AS doc_count, MAX(d.company_name) AS company_name,
         MAX(d.ticker) AS ticker, MAX(d.doc_date) AS latest_date
       FROM topic_mentions m JOIN topic_documents d ON d.doc_id = m.doc_id
       WHERE m.topic_id = ? AND d.cik IS NOT NULL AND d.doc_date >= ? AND d.doc_date <= ?
       GROUP BY d.cik
       ORDER BY doc_count DESC, latest_date DESC, d.cik
       LIMIT ?`,
      [e.topic_id, e.window_start, e.window_end, limit],
    );
    // Spec 2.17 types both as strings: an unknown name or ticker is "" rather than null.
    return rows.map((r) => ({
      cik: r.cik,
      doc_count: Number(r.doc_count),
      company_name: r.company_name ?? "",
      ticker: r.ticker ?? "",
      latest_date: r.latest_date,
    }));
  }
}
