/**
 * Correctness of the served statements and ratios against values derived independently of
 * the pipeline, for every company in the shared companyfacts data:
 *
 *  - reported lines equal the latest-filed value the filings give for the period;
 *  - Q1+Q2 and Q1+Q2+Q3 equal the 6- and 9-month year-to-date columns the 10-Qs report;
 *  - gross profit = revenue - cost of revenue wherever the filer tags all three;
 *  - EPS x weighted shares = net income within the rounding of a per-share cent;
 *  - fiscal years and quarters agree with each report's own fiscal focus;
 *  - Apple FY2021-2023 equal the statement table extracted from its 10-K (sec/xbrl/extracted);
 *  - current ratio and ROE equal the balance-sheet values of the filings; market caps equal
 *    the unadjusted close x the cover-page shares of the original report (split consistency).
 *
 * The match rate is printed (and recorded in docs/ratios.md).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FINANCIALS_MIGRATIONS, SqlFinancialsStore } from "../../adapters/financials/index.ts";
import { migrate, SqliteClient } from "../../adapters/sql/index.ts";
import type { IncomeStatementRecord, RatioRecord } from "../../domain/financials/fields.ts";
import { ingestSecDirectory } from "../../pipelines/financials/sec/index.ts";
import { sharedData } from "../shared-data.ts";
import { type Check, independentChecks } from "./sec-checks.ts";

const sec = sharedData("sec", "SEC correctness");

/**
 * Checks that fail because the filings disagree with themselves, not because of a derivation
 * error; each was traced to the raw facts. They stay in the printed match rate. Any other
 * failure fails the suite.
 */
const SOURCE_INCONSISTENCIES: Record<string, string> = {
  "0001045810|EPS x shares = net income|earnings_per_share 2016-Q3":
    "NVIDIA's FY2017 10-K quarterly table revises Q3 FY2016 net income to $247M (10-Q: $246M) but keeps EPS $0.45 on 542M shares",
  "0001318605|year-to-date sum|operating_income 2014-Q1..Q2":
    "Tesla's Q2 2014 10-Q: six-month operating loss $72,722K vs Q1 $43,967K + Q2 $28,753K = $72,720K (beyond rounding in thousands)",
  "0001318605|EPS x shares = net income|earnings_per_share 2019-Q1":
    "Tesla's Q1 2019 10-Q: EPS -$4.10 on 172,989K shares implies -$709M; the tagged net loss to common is -$702.1M",
  "0001318605|EPS x shares = net income|earnings_per_share_diluted 2019-Q1":
    "as above (basic = diluted in a loss quarter)",
};

describe.skipIf(!sec)("SEC statements and ratios: correctness against the filings", () => {
  let dir: string;
  let sql: SqliteClient;
  let store: SqlFinancialsStore;
  const checks: Check[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "cairn-sec-correct-"));
    sql = new SqliteClient(join(dir, "financials.sqlite"));
    await migrate(sql, FINANCIALS_MIGRATIONS);
    store = new SqlFinancialsStore(sql);
    const report = await ingestSecDirectory(sec as string, store);
    expect(report.errors).toEqual([]);
    const factsDir = join(sec as string, "companyfacts");
    for (const file of readdirSync(factsDir).sort()) {
      const raw = JSON.parse(readFileSync(join(factsDir, file), "utf8")) as unknown;
      const cik = file.slice(3, 13);
      const income: IncomeStatementRecord[] = await store.income(cik, { limit: 1000 });
      const ratios: RatioRecord[] = await store.ratios(cik, { limit: 1000 });
      const provenance = await sql.all<{ fiscal_year: number; fiscal_period_code: string; provenance: string }>(
        "SELECT fiscal_year, fiscal_period_code, provenance FROM fin_income WHERE cik = ?",
        [cik],
      );
      const ratioProvenance = await sql.all<{ fiscal_year: number; fiscal_period: string; provenance: string }>(
        "SELECT fiscal_year, fiscal_period, provenance FROM fin_ratios WHERE cik = ?",
        [cik],
      );
      checks.push(
        ...independentChecks({ cik, raw, income, ratios, provenance, ratioProvenance, secDir: sec as string }),
      );
    }
  }, 120_000);
  afterAll(async () => {
    await sql?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test("match rate over every independent check", () => {
    const byKind = new Map<string, { pass: number; total: number }>();
    for (const c of checks) {
      const k = byKind.get(c.kind) ?? { pass: 0, total: 0 };
      k.total++;
      if (c.pass) k.pass++;
      byKind.set(c.kind, k);
    }
    const pass = checks.filter((c) => c.pass).length;
    const lines = [...byKind].map(([k, v]) => `  ${k.padEnd(34)} ${v.pass}/${v.total}`);
    process.stdout.write(
      `SEC correctness: ${pass}/${checks.length} checks match (${((pass / checks.length) * 100).toFixed(2)}%)\n${lines.join("\n")}\n`,
    );
    const failures = checks.filter((c) => !c.pass);
    for (const f of failures) {
      const why = SOURCE_INCONSISTENCIES[`${f.cik}|${f.kind}|${f.what}`];
      process.stdout.write(`  MISMATCH ${f.kind} ${f.cik} ${f.what}: ${f.detail}${why ? ` [source: ${why}]` : ""}\n`);
    }
    expect(checks.length).toBeGreaterThan(3000);
    expect(failures.filter((f) => !SOURCE_INCONSISTENCIES[`${f.cik}|${f.kind}|${f.what}`])).toEqual([]);
  });
});
