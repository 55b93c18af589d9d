/**
 * The financial data endpoints of spec 4.4 answering from ingested real data on the
 * Postgres profile (the embedded profile is covered by the route suites).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ingestFilingsDirectory } from "../../pipelines/financials/filings/index.ts";
import { ingestSecDirectory } from "../../pipelines/financials/sec/index.ts";
import { buildTopics } from "../../pipelines/financials/topics/index.ts";
import { ingestTranscriptsDirectory } from "../../pipelines/financials/transcripts/index.ts";
import { engineUrl, freshPostgresDatabase } from "../engines.ts";
import { startTestService, type TestService } from "../harness.ts";
import { sharedData } from "../shared-data.ts";

const pg = engineUrl("postgres");
const sec = sharedData("sec", "financial data on Postgres");
const transcripts = sharedData("transcripts", "financial data on Postgres");
const root = sharedData("", "financial data on Postgres");

if (pg && sec && transcripts && root) {
  describe("financial data on the Postgres profile", () => {
    let db: Awaited<ReturnType<typeof freshPostgresDatabase>>;
    let svc: TestService;
    let headers: Record<string, string>;

    beforeAll(async () => {
      db = await freshPostgresDatabase(pg);
      svc = await startTestService({ DATABASE_URL: db.url });
      await ingestSecDirectory(sec, svc.service.financials);
      const research = svc.service.research;
      await ingestTranscriptsDirectory(research, transcripts);
      await ingestFilingsDirectory(research, `${sec}/8k`);
      await buildTopics(research, { dataDir: root });
      headers = { "x-api-key": await svc.apiKey("pg-analyst@example.com", "enterprise") };
    }, 120_000);
    afterAll(async () => {
      await svc?.close();
      await db?.drop();
    });

    const get = async (path: string) => {
      const res = await svc.request(path, { headers });
      return { status: res.status, body: (await res.json()) as unknown };
    };

    test("income and ratios for Apple, with or without leading zeros", async () => {
      const income = await get("/v1/financials/320193/income?period=FY&fiscal_year=2023");
      expect(income.status).toBe(200);
      const [fy] = income.body as { revenue: number; accession_number: string; fiscal_year: number }[];
      expect(fy?.fiscal_year).toBe(2023);
      expect(fy?.revenue).toBe(383_285_000_000);
      expect(fy?.accession_number).toMatch(/^\d{10}-\d{2}-\d{6}$/);
      const ratios = await get("/v1/financials/0000320193/ratios?period=FY&limit=3");
      expect(ratios.status).toBe(200);
      expect((ratios.body as unknown[]).length).toBe(3);
      expect((await get("/v1/financials/320193/ratios?limit=41")).status).toBe(422);
    });

    test("company facts, segments, transcripts, topics and presentations", async () => {
      expect((await get("/v1/companies/320193")).status).toBe(200);
      expect((await get("/v1/financials/320193/revenue-segments")).status).toBe(200);
      const t = await get("/v1/transcripts?ticker=HD");
      expect(t.status).toBe(200);
      expect((t.body as { total: number }).total).toBeGreaterThanOrEqual(1);
      const hd = (await get("/v1/transcripts?ticker=HD")).body as { transcripts: { company_name: string }[] };
      expect(hd.transcripts[0]?.company_name).toMatch(/HOME DEPOT/i);
      const topics = await get("/v1/companies/354950/topics/extracted?date_from=2020-01-01");
      expect(topics.status).toBe(200);
      expect((topics.body as { topics: unknown[] }).topics.length).toBeGreaterThan(0);
      const pres = await get("/v1/presentations/0001213900-25-032135");
      expect(pres.status).toBe(200);
      expect((pres.body as { markdown: string }).markdown.length).toBeGreaterThan(500);
    });
  });
}
