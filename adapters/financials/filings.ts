/** FilingStore over a SqlClient: 8-K filings and their documents as Markdown. */

import {
  type FilingRecord,
  type FilingStore,
  type FilingText,
  type Presentation,
  presentationRank,
} from "../../domain/financials/presentations.ts";
import type { SqlClient } from "../../domain/ports.ts";
import { insertMany } from "./research-batch.ts";

interface DocRow {
  sequence: number | string;
  doc_type: string;
  doc_type_label: string;
  sec_url: string | null;
  markdown: string;
}

interface FilingRow {
  accession_number: string;
  cik: string | null;
  ticker: string | null;
  company_name: string | null;
  form_type: string | null;
  filed_date: string | null;
}

export class SqlFilingStore implements FilingStore {
  constructor(private readonly sql: SqlClient) {}

  async upsertFiling(f: FilingRecord): Promise<void> {
    await this.sql.transaction(async (tx) => {
      await tx.run("DELETE FROM exhibit_documents WHERE filing_key = ?", [f.filing_key]);
      await tx.run("DELETE FROM exhibit_filings WHERE filing_key = ?", [f.filing_key]);
      await tx.run(
        `INSERT INTO exhibit_filings (filing_key, accession_number, cik, ticker, company_name, form_type, filed_date,
           source_file, indexed_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        [
          f.filing_key,
          f.accession_number,
          f.cik,
          f.ticker,
          f.company_name,
          f.form_type,
          f.filed_date,
          f.source_file,
          new Date().toISOString(),
        ],
      );
      await insertMany(
        tx,
        "exhibit_documents",
        ["filing_key", "sequence", "doc_type", "filename", "description", "doc_type_label", "sec_url", "markdown"],
        f.documents.map((d) => [
          f.filing_key,
          d.sequence,
          d.doc_type,
          d.filename,
          d.description,
          d.doc_type_label,
          d.sec_url,
          d.markdown,
        ]),
      );
    });
  }

  async presentation(accession: string): Promise<Presentation | null> {
    const f = await this.sql.get<FilingRow & { filing_key: string }>(
      `SELECT filing_key, accession_number, cik, ticker, company_name, form_type, filed_date
       FROM exhibit_filings WHERE accession_number = ?`,
      [accession],
    );
    if (!f) return null;
    const docs = await this.sql.all<DocRow>(
      `SELECT sequence, doc_type, doc_type_label, sec_url, markdown FROM exhibit_documents
       WHERE filing_key = ? ORDER BY sequence`,
      [f.filing_key],
    );
    // Highest rank wins; among equals the lowest sequence (the first exhibit) does.
    let best: DocRow | undefined;
    for (const d of docs) if (!best || presentationRank(d) > presentationRank(best)) best = d;
    return {
      accession_number: f.accession_number,
      cik: f.cik,
      ticker: f.ticker,
      company_name: f.company_name,
      form_type: f.form_type,
      exhibit_type: best?.doc_type ?? null,
      doc_type_label: best?.doc_type_label ?? null,
      published_at: f.filed_date,
      sec_url: best?.sec_url ?? null,
      // Exhibits live in SQL, not object storage, so there is no storage URL to give.
      s3_url: null,
      markdown: best?.markdown ?? null,
    };
  }

  async texts(): Promise<FilingText[]> {
    const rows = await this.sql.all<FilingText & { sequence: number | string }>(
      `SELECT f.filing_key, d.doc_type, d.sequence, f.cik, f.ticker, f.company_name, f.filed_date, d.markdown
       FROM exhibit_filings f JOIN exhibit_documents d ON d.filing_key = f.filing_key
       ORDER BY f.filing_key, d.sequence`,
    );
    return rows.map((r) => ({ ...r, sequence: Number(r.sequence) }));
  }
}
