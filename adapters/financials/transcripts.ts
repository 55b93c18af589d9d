/** TranscriptStore over a SqlClient (SQLite and Postgres; tables in migrations.ts). */

import {
  TRANSCRIPT_SOURCE_RANK,
  type TranscriptAnalyst,
  type TranscriptExecutive,
  type TranscriptQuery,
  type TranscriptRecord,
  type TranscriptStore,
  type TranscriptSummary,
  type TranscriptText,
  type UpsertOutcome,
  type Utterance,
} from "../../domain/financials/transcripts.ts";
import type { SqlClient, SqlParam } from "../../domain/ports.ts";
import { insertMany } from "./research-batch.ts";

type SummaryRow = Omit<TranscriptSummary, "executives" | "analysts"> & {
  executives: string;
  analysts: string;
  cik: string | null;
};

const SUMMARY_COLS = `doc_id, ticker, exchange, company_name, cik, call_date, fiscal_year, fiscal_quarter, period_label,
  executives, analysts, total_words, total_utterances, executive_word_count, analyst_word_count, market_cap_usd,
  stock_price_at_close, indexed_at`;

const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

function toSummary(r: SummaryRow): TranscriptSummary {
  return {
    doc_id: r.doc_id,
    ticker: r.ticker,
    exchange: r.exchange,
    company_name: r.company_name,
    call_date: r.call_date,
    fiscal_year: num(r.fiscal_year),
    fiscal_quarter: num(r.fiscal_quarter),
    period_label: r.period_label,
    executives: JSON.parse(r.executives) as TranscriptExecutive[],
    analysts: JSON.parse(r.analysts) as TranscriptAnalyst[],
    total_words: num(r.total_words),
    total_utterances: num(r.total_utterances),
    executive_word_count: num(r.executive_word_count),
    analyst_word_count: num(r.analyst_word_count),
    market_cap_usd: num(r.market_cap_usd),
    stock_price_at_close: num(r.stock_price_at_close),
    indexed_at: r.indexed_at,
  };
}

function where(q: TranscriptQuery): { sql: string; params: SqlParam[] } {
  const parts: string[] = [];
  const params: SqlParam[] = [];
  if (q.ticker !== undefined) {
    parts.push("ticker = ?");
    params.push(q.ticker.toUpperCase());
  }
  if (q.fiscal_year !== undefined) {
    parts.push("fiscal_year = ?");
    params.push(q.fiscal_year);
  }
  if (q.fiscal_quarter !== undefined) {
    parts.push("fiscal_quarter = ?");
    params.push(q.fiscal_quarter);
  }
  // An undated call matches no date bound: NULL comparisons are never true.
  if (q.from_date !== undefined) {
    parts.push("call_date >= ?");
    params.push(q.from_date);
  }
  if (q.to_date !== undefined) {
    parts.push("call_date <= ?");
    params.push(q.to_date);
  }
  return { sql: parts.length ? `WHERE ${parts.join(" AND ")}` : "", params };
}

export class SqlTranscriptStore implements TranscriptStore {
  constructor(private readonly sql: SqlClient) {}

  async upsert(t: TranscriptRecord): Promise<UpsertOutcome> {
    const rank = TRANSCRIPT_SOURCE_RANK[t.source_format];
    const s = t.summary;
    return this.sql.transaction(async (tx) => {
      const existing = await tx.get<{ source_rank: number }>("SELECT source_rank FROM transcripts WHERE doc_id = ?", [
        s.doc_id,
      ]);
      if (existing && Number(existing.source_rank) > rank) return "kept_existing";
      await tx.run("DELETE FROM transcript_utterances WHERE doc_id = ?", [s.doc_id]);
      await tx.run("DELETE FROM transcripts WHERE doc_id = ?", [s.doc_id]);
      await tx.run(
        `INSERT INTO transcripts (${SUMMARY_COLS}, source_format, source_rank, source_file)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        [
          s.doc_id,
          s.ticker,
          s.exchange,
          s.company_name,
          t.cik,
          s.call_date,
          s.fiscal_year,
          s.fiscal_quarter,
          s.period_label,
          JSON.stringify(s.executives),
          JSON.stringify(s.analysts),
          s.total_words,
          s.total_utterances,
          s.executive_word_count,
          s.analyst_word_count,
          s.market_cap_usd,
          s.stock_price_at_close,
          s.indexed_at,
          t.source_format,
          rank,
          t.source_file,
        ],
      );
      await insertMany(
        tx,
        "transcript_utterances",
        ["doc_id", "seq", "section", "speaker", "role", "text", "word_count"],
        t.utterances.map((u) => [s.doc_id, u.seq, u.section, u.speaker, u.role, u.text, u.word_count]),
      );
      return existing ? "updated" : "inserted";
    });
  }

  async list(q: TranscriptQuery): Promise<{ total: number; transcripts: TranscriptSummary[] }> {
    const w = where(q);
    const count = await this.sql.get<{ n: number | string }>(
      `SELECT CAST(COUNT(*) AS INTEGER) AS n FROM transcripts ${w.sql}`,
      w.params,
    );
    // CASE keeps undated calls last in both dialects (their NULL ordering differs).
    const rows = await this.sql.all<SummaryRow>(
      `SELECT ${SUMMARY_COLS} FROM transcripts ${w.sql}
       ORDER BY CASE WHEN call_date IS NULL THEN 1 ELSE 0 END, call_date DESC, fiscal_year DESC,
                fiscal_quarter DESC, ticker, doc_id
       LIMIT ? OFFSET ?`,
      [...w.params, q.limit, q.offset],
    );
    return { total: Number(count?.n ?? 0), transcripts: rows.map(toSummary) };
  }

  async texts(): Promise<TranscriptText[]> {
    const heads = await this.sql.all<SummaryRow>(`SELECT ${SUMMARY_COLS} FROM transcripts ORDER BY doc_id`);
    const rows = await this.sql.all<Utterance & { doc_id: string }>(
      "SELECT doc_id, seq, section, speaker, role, text, word_count FROM transcript_utterances ORDER BY doc_id, seq",
    );
    const byDoc = new Map<string, Utterance[]>();
    for (const { doc_id, ...u } of rows) {
      const list = byDoc.get(doc_id) ?? [];
      list.push({ ...u, seq: Number(u.seq), word_count: Number(u.word_count) });
      byDoc.set(doc_id, list);
    }
    return heads.map((h) => ({
      doc_id: h.doc_id,
      cik: h.cik,
      ticker: h.ticker,
      company_name: h.company_name,
      call_date: h.call_date,
      fiscal_year: num(h.fiscal_year),
      fiscal_quarter: num(h.fiscal_quarter),
      utterances: byDoc.get(h.doc_id) ?? [],
    }));
  }
}
