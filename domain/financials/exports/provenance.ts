/** Period labels and filing links shared by the export builders. */

const ACCESSION_RE = /^\d{10}-\d{2}-\d{6}$/;

/** The filing's folder on EDGAR, or undefined when the accession number is not in SEC form. */
export function edgarFilingUrl(cik: string | null, accession: string): string | undefined {
  if (!cik || !/^\d{1,10}$/.test(cik) || !ACCESSION_RE.test(accession)) return undefined;
  return `https://www.sec.gov/Archives/edgar/data/${Number(cik)}/${accession.replaceAll("-", "")}/`;
}

/** "FY2023" for annual records, "Q3 FY2024" for quarters; the period end when the year is unknown. */
export function periodLabel(
  fiscalPeriod: string | null,
  fiscalYear: number | null,
  reportPeriod: string | null,
): string {
  const fp = fiscalPeriod ?? "FY";
  if (fiscalYear === null) return reportPeriod ? `${fp} ${reportPeriod}` : fp;
  return fp === "FY" ? `FY${fiscalYear}` : `${fp} FY${fiscalYear}`;
}

/** Excel sheet and file names: keep them to a safe character set. */
export function safeFileStem(raw: string): string {
  return raw.replace(/[^A-Za-z0-9._-]+/g, "-").replace(/^-+|-+$/g, "") || "export";
}

export function dateStamp(d: Date): string {
  return d.toISOString().slice(0, 10).replaceAll("-", "");
}
