/**
 * Revenue segments in SQL: one record per period and breakdown axis on read (rows from
 * several source documents deduplicated per member), replaced per source document on write.
 */
import type { RevenueSegmentRecord, StatementQuery, StoredSegment } from "../../domain/financials/fields.ts";
import type { SqlClient } from "../../domain/ports.ts";
import { filterSql, insertRows, num, type Row, str } from "./rows.ts";

export async function readRevenueSegments(
  sql: SqlClient,
  cik: string,
  q: StatementQuery,
): Promise<RevenueSegmentRecord[]> {
  const f = filterSql(q, "fiscal_period");
  const periods = await sql.all<{ period_start: string; period_end: string }>(
    `SELECT DISTINCT period_start, period_end FROM fin_segments WHERE cik = ?${f.where} ORDER BY period_end DESC, period_start DESC LIMIT ?`,
    [cik, ...f.params, q.limit],
  );
  if (periods.length === 0) return [];
  // Periods come newest first: the last one bounds the row scan.
  const oldest = periods.at(-1)?.period_end ?? "";
  const wanted = new Set(periods.map((p) => `${p.period_start}|${p.period_end}`));
  const rows = await sql.all<Row>(
    `SELECT s.*, c.ticker FROM fin_segments s LEFT JOIN fin_companies c ON c.cik = s.cik
     WHERE s.cik = ? AND s.period_end >= ?${filterSql(q, "fiscal_period", "s.").where}`,
    [cik, oldest, ...f.params],
  );
  // One value per (period, axis, member): the row from the latest identified filing.
  const best = new Map<string, Row>();
  for (const r of rows) {
    const span = `${r.period_start}|${r.period_end}`;
    if (!wanted.has(span)) continue;
    const k = `${span}|${r.axis}|${r.member}`;
    const cur = best.get(k);
    if (!cur || String(r.accession_number ?? "") > String(cur.accession_number ?? "")) best.set(k, r);
  }
  const groups = new Map<string, RevenueSegmentRecord>();
  for (const r of best.values()) {
    const k = `${r.period_end}|${r.period_start}|${r.axis}`;
    let g = groups.get(k);
    if (!g) {
      g = {
        cik,
        ticker: str(r.ticker),
        accession_number: str(r.accession_number),
        fiscal_year: num(r.fiscal_year),
        fiscal_period: str(r.fiscal_period),
        period_type: String(r.period_type),
        period_start: String(r.period_start),
        report_period: String(r.period_end),
        currency: String(r.currency),
        concept: String(r.concept),
        axis: String(r.axis),
        segments: [],
      };
      groups.set(k, g);
    }
    g.segments.push({ member: String(r.member), label: String(r.label), revenue: Number(r.value) });
  }
  const out = [...groups.values()];
  for (const g of out) g.segments.sort((a, b) => b.revenue - a.revenue || (a.member < b.member ? -1 : 1));
  return out.sort((a, b) =>
    a.report_period !== b.report_period
      ? a.report_period < b.report_period
        ? 1
        : -1
      : a.period_start !== b.period_start
        ? a.period_start < b.period_start
          ? 1
          : -1
        : a.axis < b.axis
          ? -1
          : 1,
  );
}

export async function writeSegments(
  sql: SqlClient,
  cik: string,
  source: string,
  fingerprint: string,
  rows: StoredSegment[],
): Promise<void> {
  await sql.transaction(async (tx) => {
    await tx.run("DELETE FROM fin_segments WHERE cik = ? AND source = ?", [cik, source]);
    await insertRows(
      tx,
      "fin_segments",
      [
        "cik",
        "source",
        "accession_number",
        "concept",
        "axis",
        "member",
        "label",
        "period_start",
        "period_end",
        "fiscal_year",
        "fiscal_period",
        "period_type",
        "value",
        "currency",
      ],
      rows.map((s) => [
        cik,
        source,
        s.accession_number,
        s.concept,
        s.axis,
        s.member,
        s.label,
        s.period_start,
        s.period_end,
        s.fiscal_year,
        s.fiscal_period,
        s.period_type,
        s.value,
        s.currency,
      ]),
    );
    await tx.run(
      `INSERT INTO fin_sources (cik, source, fingerprint) VALUES (?, ?, ?)
       ON CONFLICT (cik, source) DO UPDATE SET fingerprint = excluded.fingerprint`,
      [cik, `segments:${source}`, fingerprint],
    );
  });
}
