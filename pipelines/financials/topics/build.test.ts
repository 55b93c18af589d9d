/** The whole research pipeline on the real corpus, on both SQL dialects. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openResearchStores, RESEARCH_MIGRATIONS } from "../../../adapters/financials/research.ts";
import { migrate, PostgresClient, SqliteClient } from "../../../adapters/sql/index.ts";
import type { ResearchStores } from "../../../domain/financials/ports.ts";
import type { SqlClient } from "../../../domain/ports.ts";
import { engineUrl, freshPostgresDatabase } from "../../../test/engines.ts";
import { sharedData } from "../../../test/shared-data.ts";
import { ingestFilingsDirectory } from "../filings/index.ts";
import { ingestTranscriptsDirectory } from "../transcripts/index.ts";
import { buildTopics, fiscalPeriodEstimate } from "./index.ts";

test("undated calls are placed at the end of the calendar quarter their label names", () => {
  expect(fiscalPeriodEstimate(2021, 3)).toBe("2021-09-30");
  expect(fiscalPeriodEstimate(2022, 1)).toBe("2022-03-31");
});

interface Db {
  sql: SqlClient;
  cleanup(): Promise<void>;
}

function runPipelineSuite(name: string, open: () => Promise<Db>, data: string): void {
  describe(`research pipeline on ${name}`, () => {
    let db: Db;
    let stores: ResearchStores;
    beforeAll(async () => {
      db = await open();
      await migrate(db.sql, RESEARCH_MIGRATIONS);
      stores = openResearchStores(db.sql);
      await ingestTranscriptsDirectory(stores, join(data, "transcripts"));
      await ingestFilingsDirectory(stores, join(data, "sec", "8k"));
    });
    afterAll(() => db.cleanup());

    test("builds topics for every document, twice with the same ids", async () => {
      const first = await buildTopics(stores, { dataDir: data });
      // 15 calls + 10 filing documents (8-K bodies and EX-99 exhibits).
      expect(first.documents).toBe(25);
      expect(first.topics).toBeGreaterThan(150);
      const ids = await db.sql.all<{ id: number; name: string }>("SELECT id, name FROM topics ORDER BY id");
      const second = await buildTopics(stores, { dataDir: data });
      expect(await db.sql.all("SELECT id, name FROM topics ORDER BY id")).toEqual(ids);
      expect(second.emerging.map((e) => [e.emerging_topic_id, e.topic])).toEqual(
        first.emerging.map((e) => [e.emerging_topic_id, e.topic]),
      );
      expect(first.emerging.length).toBeGreaterThan(0);
    });

    test("companies get plausible topics of their own business", async () => {
      const window = { date_from: "2000-01-01", date_to: "2030-12-31", source_type: "all" as const, limit: 30 };
      const names = async (cik: string) => (await stores.topics.extracted(cik, window)).map((t) => t.topic_name);
      expect(await names("0000354950")).toContain("home improvement"); // Home Depot
      expect(await names("0000072971")).toContain("net interest income"); // Wells Fargo
      expect(await names("0001108524")).toContain("slack"); // Salesforce
      expect(await names("0001173313")).toContain("milestone payment"); // ABVC (8-K EX-99.1)
    });
  });
}

const data = sharedData("", "research pipeline");
if (data) {
  runPipelineSuite(
    "sqlite",
    async () => {
      const dir = mkdtempSync(join(tmpdir(), "cairn-rp-"));
      const sql = new SqliteClient(join(dir, "db.sqlite"));
      return {
        sql,
        cleanup: async () => {
          await sql.close();
          rmSync(dir, { recursive: true, force: true });
        },
      };
    },
    data,
  );
  const pg = engineUrl("postgres");
  if (pg) {
    runPipelineSuite(
      "postgres",
      async () => {
        const fresh = await freshPostgresDatabase(pg);
        const sql = new PostgresClient(fresh.url);
        return {
          sql,
          cleanup: async () => {
            await sql.close();
            await fresh.drop();
          },
        };
      },
      data,
    );
  }
}
