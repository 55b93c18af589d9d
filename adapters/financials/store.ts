/**
 * FinancialsReader + FinancialsWriter over a SqlClient (bun:sqlite or Postgres; tables in
 * migrations.ts). Statements and ratios are materialised at ingest, so a read is one
 * indexed range scan. Writes replace a company's rows in one transaction and yield to the
 * event loop between insert batches, so a long ingest never stalls request handling.
 */
import {
  type CompanyFacts,
  type CompanyFactsBundle,
  type CompanyProfile,
  type FilingRow,
  INCOME_FIELDS,
  type IncomeStatementRecord,
  RATIO_FIELDS,
  type RatioRecord,
  type RevenueSegmentRecord,
  type StatementQuery,
  type StoredFact,
  type StoredSegment,
} from "../../domain/financials/fields.ts";
import type { FinancialsStore } from "../../domain/financials/ports.ts";
import type { SqlClient, SqlParam } from "../../domain/ports.ts";
import { BATCH_ROWS, bool, filterSql, insertRows, num, type Row, str, yieldToLoop } from "./rows.ts";
import { readRevenueSegments, writeSegments } from "./segments.ts";

const INCOME_SELECT = `SELECT cik, ticker, fiscal_period_code, period_type, report_period, fiscal_year, accession_number, ${INCOME_FIELDS.join(", ")} FROM fin_income WHERE cik = ?`;
const RATIO_SELECT = `SELECT cik, ticker, fiscal_period, period, currency, report_period, fiscal_year, market_cap_is_trailing, accession_number, ${RATIO_FIELDS.join(", ")} FROM fin_ratios WHERE cik = ?`;

export class SqlFinancialsStore implements FinancialsStore {
  private changes = 0;

  constructor(readonly sql: SqlClient) {}

  generation(): number {
    return this.changes;
  }

  /** Runs a write, then moves the generation on (readers captured the old one before reading). */
  private async write<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } finally {
      this.changes++;
    }
  }

  // -- reads ---------------------------------------------------------------------------

  async income(cik: string, q: StatementQuery): Promise<IncomeStatementRecord[]> {
    const f = filterSql(q, "fiscal_period_code");
    const rows = await this.sql.all<Row>(
      `${INCOME_SELECT}${f.where} ORDER BY report_period DESC, fiscal_period_code ASC LIMIT ?`,
      [cik, ...f.params, q.limit],
    );
    return rows.map((r) => {
      const rec = {
        cik: str(r.cik),
        ticker: str(r.ticker),
        fiscal_period_code: str(r.fiscal_period_code),
        period_type: str(r.period_type),
        report_period: str(r.report_period),
        fiscal_year: num(r.fiscal_year),
        accession_number: String(r.accession_number),
      } as IncomeStatementRecord;
      for (const c of INCOME_FIELDS) rec[c] = num(r[c]);
      return rec;
    });
  }

  async ratios(cik: string, q: StatementQuery): Promise<RatioRecord[]> {
    const f = filterSql(q, "fiscal_period");
    const rows = await this.sql.all<Row>(
      `${RATIO_SELECT}${f.where} ORDER BY report_period DESC, fiscal_period ASC LIMIT ?`,
      [cik, ...f.params, q.limit],
    );
    return rows.map((r) => {
      const rec = {
        cik: str(r.cik),
        ticker: str(r.ticker),
        fiscal_period: str(r.fiscal_period),
        period: str(r.period),
        currency: str(r.currency),
        report_period: str(r.report_period),
        fiscal_year: num(r.fiscal_year),
        market_cap_is_trailing: bool(r.market_cap_is_trailing),
        accession_number: String(r.accession_number),
      } as RatioRecord;
      for (const c of RATIO_FIELDS) rec[c] = num(r[c]);
      return rec;
    });
  }

  async company(cik: string): Promise<CompanyFacts | null> {
    const c = await this.sql.get<Row>("SELECT * FROM fin_companies WHERE cik = ?", [cik]);
    if (!c) return null;
    const facts = await this.sql.all<Row>(
      "SELECT taxonomy, concept, unit, value, period_end, accession_number FROM fin_latest_facts WHERE cik = ? ORDER BY taxonomy, concept, unit",
      [cik],
    );
    return {
      cik,
      name: str(c.name),
      ticker: str(c.ticker),
      tickers: JSON.parse(String(c.tickers)) as string[],
      exchanges: JSON.parse(String(c.exchanges)) as string[],
      sic: str(c.sic),
      sic_description: str(c.sic_description),
      fiscal_year_end: str(c.fiscal_year_end),
      state_of_incorporation: str(c.state_of_incorporation),
      facts: facts.map((f) => ({
        concept: String(f.concept),
        taxonomy: String(f.taxonomy),
        unit: String(f.unit),
        value: Number(f.value),
        period_end: String(f.period_end),
        accession_number: String(f.accession_number),
      })),
    };
  }

  revenueSegments(cik: string, q: StatementQuery): Promise<RevenueSegmentRecord[]> {
    return readRevenueSegments(this.sql, cik, q);
  }

  async listCiks(): Promise<string[]> {
    return (await this.sql.all<{ cik: string }>("SELECT cik FROM fin_companies ORDER BY cik")).map((r) => r.cik);
  }

  // -- writes --------------------------------------------------------------------------

  async sourceFingerprint(cik: string, source: string): Promise<string | null> {
    const r = await this.sql.get<{ fingerprint: string }>(
      "SELECT fingerprint FROM fin_sources WHERE cik = ? AND source = ?",
      [cik, source],
    );
    return r?.fingerprint ?? null;
  }

  async setFingerprint(cik: string, source: string, fingerprint: string): Promise<void> {
    return this.write(async () => {
      await this.sql.run(
        `INSERT INTO fin_sources (cik, source, fingerprint) VALUES (?, ?, ?)
         ON CONFLICT (cik, source) DO UPDATE SET fingerprint = excluded.fingerprint`,
        [cik, source, fingerprint],
      );
    });
  }

  async upsertCompany(p: CompanyProfile): Promise<void> {
    return this.write(async () => {
      await this.sql.run(
        `INSERT INTO fin_companies (cik, name, ticker, tickers, exchanges, sic, sic_description, fiscal_year_end, state_of_incorporation)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (cik) DO UPDATE SET
           name = COALESCE(excluded.name, fin_companies.name),
           ticker = COALESCE(excluded.ticker, fin_companies.ticker),
           tickers = CASE WHEN excluded.tickers <> '[]' THEN excluded.tickers ELSE fin_companies.tickers END,
           exchanges = CASE WHEN excluded.exchanges <> '[]' THEN excluded.exchanges ELSE fin_companies.exchanges END,
           sic = COALESCE(excluded.sic, fin_companies.sic),
           sic_description = COALESCE(excluded.sic_description, fin_companies.sic_description),
           fiscal_year_end = COALESCE(excluded.fiscal_year_end, fin_companies.fiscal_year_end),
           state_of_incorporation = COALESCE(excluded.state_of_incorporation, fin_companies.state_of_incorporation)`,
        [
          p.cik,
          p.name,
          p.ticker,
          JSON.stringify(p.tickers),
          JSON.stringify(p.exchanges),
          p.sic,
          p.sic_description,
          p.fiscal_year_end,
          p.state_of_incorporation,
        ],
      );
    });
  }

  async upsertFilings(cik: string, rows: FilingRow[]): Promise<void> {
    return this.write(async () => {
      const unique = [...new Map(rows.map((r) => [r.accession_number, r])).values()];
      const one = "(?, ?, ?, ?, ?, ?)";
      await this.sql.transaction(async (tx) => {
        for (let i = 0; i < unique.length; i += BATCH_ROWS) {
          const batch = unique.slice(i, i + BATCH_ROWS);
          await tx.run(
            `INSERT INTO fin_filings (cik, accession_number, form, filing_date, report_date, primary_document)
             VALUES ${batch.map(() => one).join(", ")}
             ON CONFLICT (cik, accession_number) DO UPDATE SET
               form = excluded.form, filing_date = excluded.filing_date,
               report_date = COALESCE(excluded.report_date, fin_filings.report_date),
               primary_document = COALESCE(excluded.primary_document, fin_filings.primary_document)`,
            batch.flatMap((r) => [cik, r.accession_number, r.form, r.filing_date, r.report_date, r.primary_document]),
          );
          await yieldToLoop();
        }
      });
    });
  }

  async findFiling(cik: string, form: string, reportDate: string): Promise<string | null> {
    const r = await this.sql.get<{ accession_number: string }>(
      "SELECT accession_number FROM fin_filings WHERE cik = ? AND form = ? AND report_date = ? ORDER BY filing_date ASC LIMIT 1",
      [cik, form, reportDate],
    );
    return r?.accession_number ?? null;
  }

  async replaceCompanyFacts(b: CompanyFactsBundle): Promise<void> {
    return this.write(async () => {
      const factRow = (f: StoredFact): SqlParam[] => [
        b.cik,
        f.taxonomy,
        f.concept,
        f.unit,
        f.start,
        f.end,
        f.val,
        f.accn,
        f.fy,
        f.fp,
        f.form,
        f.filed,
        f.frame,
      ];
      await this.sql.transaction(async (tx) => {
        for (const t of ["fin_facts", "fin_latest_facts", "fin_income", "fin_ratios"])
          await tx.run(`DELETE FROM ${t} WHERE cik = ?`, [b.cik]);
        await insertRows(
          tx,
          "fin_facts",
          [
            "cik",
            "taxonomy",
            "concept",
            "unit",
            "period_start",
            "period_end",
            "val",
            "accession_number",
            "fy",
            "fp",
            "form",
            "filed",
            "frame",
          ],
          b.facts.map(factRow),
        );
        await insertRows(
          tx,
          "fin_latest_facts",
          ["cik", "taxonomy", "concept", "unit", "value", "period_end", "accession_number"],
          b.latest.map((f) => [b.cik, f.taxonomy, f.concept, f.unit, f.val, f.end, f.accn]),
        );
        await insertRows(
          tx,
          "fin_income",
          [
            "cik",
            "ticker",
            "fiscal_year",
            "fiscal_period_code",
            "period_type",
            "period_start",
            "report_period",
            "accession_number",
            ...INCOME_FIELDS,
            "provenance",
          ],
          b.income.map(({ record: r, period_start, provenance }) => [
            b.cik,
            r.ticker,
            r.fiscal_year,
            r.fiscal_period_code,
            r.period_type,
            period_start,
            r.report_period,
            r.accession_number,
            ...INCOME_FIELDS.map((c) => r[c]),
            JSON.stringify(provenance),
          ]),
        );
        await insertRows(
          tx,
          "fin_ratios",
          [
            "cik",
            "ticker",
            "fiscal_year",
            "fiscal_period",
            "period",
            "currency",
            "report_period",
            "market_cap_is_trailing",
            "accession_number",
            ...RATIO_FIELDS,
            "provenance",
          ],
          b.ratios.map(({ record: r, provenance }) => [
            b.cik,
            r.ticker,
            r.fiscal_year,
            r.fiscal_period,
            r.period,
            r.currency,
            r.report_period,
            r.market_cap_is_trailing,
            r.accession_number,
            ...RATIO_FIELDS.map((c) => r[c]),
            JSON.stringify(provenance),
          ]),
        );
        await tx.run(
          `INSERT INTO fin_sources (cik, source, fingerprint) VALUES (?, 'companyfacts', ?)
           ON CONFLICT (cik, source) DO UPDATE SET fingerprint = excluded.fingerprint`,
          [b.cik, b.fingerprint],
        );
      });
    });
  }

  async replaceSegments(cik: string, source: string, fingerprint: string, rows: StoredSegment[]): Promise<void> {
    return this.write(() => writeSegments(this.sql, cik, source, fingerprint, rows));
  }
}
