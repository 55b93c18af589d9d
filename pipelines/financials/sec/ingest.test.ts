import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FINANCIALS_MIGRATIONS, SqlFinancialsStore } from "../../../adapters/financials/index.ts";
import { migrate, SqliteClient } from "../../../adapters/sql/index.ts";
import type { SqlClient } from "../../../domain/ports.ts";
import { FIXTURE_CIK, writeSecFixture } from "../../../test/sec-fixture.ts";
import { sharedData } from "../../../test/shared-data.ts";
import { ingestSecDirectory, makeSecIngestHandler } from "./index.ts";
import { sha256 } from "./ingest.ts";

const TABLES = [
  "fin_companies",
  "fin_sources",
  "fin_filings",
  "fin_facts",
  "fin_latest_facts",
  "fin_income",
  "fin_ratios",
  "fin_segments",
];

/** Row count and a content hash of every table, in a stable order. */
async function snapshot(sql: SqlClient): Promise<Record<string, { rows: number; hash: string }>> {
  const out: Record<string, { rows: number; hash: string }> = {};
  for (const t of TABLES) {
    const rows = await sql.all<Record<string, unknown>>(`SELECT * FROM ${t}`);
    const lines = rows.map((r) => JSON.stringify(Object.entries(r).sort(([a], [b]) => (a < b ? -1 : 1)))).sort();
    out[t] = { rows: rows.length, hash: sha256(lines.join("\n")) };
  }
  return out;
}

async function freshStore(dir: string) {
  const sql = new SqliteClient(join(dir, "financials.sqlite"));
  await migrate(sql, FINANCIALS_MIGRATIONS);
  return { sql, store: new SqlFinancialsStore(sql) };
}

describe("sec ingest (synthetic filer)", () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "cairn-sec-"));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test("ingests, and re-ingesting the same files changes nothing", async () => {
    const data = writeSecFixture(join(dir, "v1", "sec"));
    const { sql, store } = await freshStore(join(dir, "db1"));
    const first = await ingestSecDirectory(data, store, { marketDir: null });
    expect(first.errors).toEqual([]);
    expect(first.companyfacts).toEqual([{ cik: FIXTURE_CIK, status: "ingested", income: 5, ratios: 5 }]);
    const before = await snapshot(sql);
    expect(before.fin_income?.rows).toBe(5);
    const again = await ingestSecDirectory(data, store, { marketDir: null });
    expect(again.companyfacts[0]?.status).toBe("unchanged");
    expect(again.submissions[0]?.status).toBe("unchanged");
    expect(await snapshot(sql)).toEqual(before);
    // Forcing a full re-derivation rewrites the same rows.
    await ingestSecDirectory(data, store, { marketDir: null, force: true });
    expect(await snapshot(sql)).toEqual(before);
    await sql.close();
  });

  test("a newer filing for a period replaces the older one (restatement wins)", async () => {
    const { sql, store } = await freshStore(join(dir, "db2"));
    await ingestSecDirectory(writeSecFixture(join(dir, "v2a", "sec")), store, { marketDir: null });
    const [fy] = await store.income(FIXTURE_CIK, { limit: 1, fiscal_year: 2022, period: "FY" });
    expect(fy).toMatchObject({ revenue: 460, accession_number: "0000999999-23-000001" });
    const report = await ingestSecDirectory(writeSecFixture(join(dir, "v2b", "sec"), { restated: true }), store, {
      marketDir: null,
    });
    expect(report.companyfacts[0]?.status).toBe("ingested");
    const [restated] = await store.income(FIXTURE_CIK, { limit: 1, fiscal_year: 2022, period: "FY" });
    expect(restated).toMatchObject({ revenue: 470, accession_number: "0000999999-24-000001" });
    const [q4] = await store.income(FIXTURE_CIK, { limit: 1, fiscal_year: 2022, period: "Q4" });
    expect(q4?.revenue).toBe(140);
    const [latest] = await store.income(FIXTURE_CIK, { limit: 1 });
    expect(latest).toMatchObject({ fiscal_year: 2023, fiscal_period_code: "FY", ticker: "ACME" });
    await sql.close();
  });

  test("queue handler: validates the payload and reports counts", async () => {
    const { sql, store } = await freshStore(join(dir, "db3"));
    const logger = (await import("pino")).default({ level: "silent" });
    const handler = makeSecIngestHandler({ store, client: null, marketDir: null, logger });
    const ctx = (data: unknown) => ({
      id: "1",
      name: "ingest",
      data: data as never,
      attempt: 1,
      progress: async () => {},
    });
    const result = await handler(ctx({ dir: writeSecFixture(join(dir, "v3", "sec")), market_dir: null }));
    expect(result).toMatchObject({ companyfacts: { ingested: 1, unchanged: 0 }, submissions: { ingested: 1 } });
    await expect(handler(ctx({ dir: "" }))).rejects.toThrow(/invalid sec-ingest job/);
    await expect(handler(ctx({ ciks: ["320193"] }))).rejects.toThrow(/online SEC ingest is off/);
    await sql.close();
  });
});

const sec = sharedData("sec", "SEC ingest");
describe.skipIf(!sec)("sec ingest (shared SEC data)", () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "cairn-sec-shared-"));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test("every company ingests; a second ingest leaves every table byte-identical", async () => {
    const { sql, store } = await freshStore(dir);
    const report = await ingestSecDirectory(sec as string, store);
    expect(report.errors).toEqual([]);
    expect(report.companyfacts.map((c) => c.status)).toEqual(Array(7).fill("ingested"));
    expect(report.segments.map((s) => [s.source, s.status])).toEqual([
      ["xbrl/aapl_10q_2025q2/aapl-20250329_htm.xml", "ingested"],
      ["xbrl/amzn_10k_2022/amzn-20221231_htm.xml", "ingested"],
      ["xbrl/extracted/nike_10q_facts.csv", "ingested"],
    ]);
    const before = await snapshot(sql);
    expect(before.fin_facts?.rows).toBeGreaterThan(100_000);
    const again = await ingestSecDirectory(sec as string, store);
    expect(
      [...again.submissions, ...again.companyfacts, ...again.segments].every((s) => s.status === "unchanged"),
    ).toBe(true);
    expect(await snapshot(sql)).toEqual(before);
    await sql.close();
  }, 60_000);
});
