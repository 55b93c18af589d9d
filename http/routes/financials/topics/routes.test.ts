import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { threeYearsBefore } from "../../../../domain/financials/topics.ts";
import { ingestFilingsDirectory } from "../../../../pipelines/financials/filings/index.ts";
import { buildTopics } from "../../../../pipelines/financials/topics/index.ts";
import { ingestTranscriptsDirectory } from "../../../../pipelines/financials/transcripts/index.ts";
import { startTestService, type TestService } from "../../../../test/harness.ts";
import { sharedData } from "../../../../test/shared-data.ts";

interface Topic {
  topic_name: string;
  doc_count: number;
  avg_importance: number;
  avg_sentiment: number;
  latest_date: string;
  earliest_date: string;
}
interface TopicsBody {
  cik: string;
  period: { date_from: string; date_to: string };
  topics: Topic[];
  company_name: string | null;
}
interface Emerging {
  emerging_topic_id: number;
  emerging_topic_name: string;
}

const root = sharedData("", "topic routes");
describe.skipIf(!root)("topic routes on the real corpus", () => {
  let svc: TestService;
  let key: string;
  const data = root ?? "";
  const get = (path: string) => svc.request(path, { headers: { "x-api-key": key } });
  const topics = async (path: string) => (await (await get(path)).json()) as TopicsBody;
  const topicIds = async () =>
    svc.service.store.sql.all<{ id: number; name: string }>("SELECT id, name FROM topics ORDER BY name");
  const build = () => buildTopics(svc.service.research, { dataDir: data });

  beforeAll(async () => {
    svc = await startTestService();
    key = await svc.apiKey("topics@example.com", "enterprise");
    const stores = svc.service.research;
    await ingestTranscriptsDirectory(stores, join(data, "transcripts"));
    await ingestFilingsDirectory(stores, join(data, "sec", "8k"));
    await build();
  });
  afterAll(() => svc.close());

  test("needs an API key", async () => {
    expect((await svc.request("/v1/companies/354950/topics/extracted")).status).toBe(401);
  });

  test("Home Depot's calls: retail home-improvement topics, with dates, importance and tone", async () => {
    const res = await get("/v1/companies/354950/topics/extracted?date_from=2021-01-01&date_to=2022-12-31");
    expect(res.status).toBe(200);
    const body = (await res.json()) as TopicsBody;
    expect(Object.keys(body).sort()).toEqual(["cik", "company_name", "period", "topics"]);
    expect(body.cik).toBe("0000354950");
    expect(body.company_name).toBe("HOME DEPOT, INC.");
    expect(body.period).toEqual({ date_from: "2021-01-01", date_to: "2022-12-31" });
    const names = body.topics.map((t) => t.topic_name);
    expect(names.length).toBeGreaterThanOrEqual(8);
    const expected = ["home improvement", "pro customer", "distribution center", "shopping experience"];
    expect(expected.filter((n) => names.includes(n)).length).toBeGreaterThanOrEqual(3);
    // Not the company's own name, nor the people on the call.
    expect(names.some((n) => /home depot|craig|menear|ted decker/.test(n))).toBe(false);
    for (const t of body.topics) {
      expect(Object.keys(t).sort()).toEqual([
        "avg_importance",
        "avg_sentiment",
        "doc_count",
        "earliest_date",
        "latest_date",
        "topic_name",
      ]);
      expect(t.avg_importance).toBeGreaterThan(0);
      expect(t.avg_importance).toBeLessThanOrEqual(1);
      expect(Math.abs(t.avg_sentiment)).toBeLessThanOrEqual(1);
      expect(t.latest_date >= t.earliest_date).toBe(true);
    }
    // Leading zeros or not, the same company.
    expect(await topics("/v1/companies/0000354950/topics/extracted?date_from=2021-01-01")).toEqual({
      ...body,
      period: { date_from: "2021-01-01", date_to: new Date().toISOString().slice(0, 10) },
    });
  });

  test("the window defaults to the last three years, so 2021 calls fall outside it", async () => {
    const body = await topics("/v1/companies/354950/topics/extracted");
    const today = new Date();
    expect(body.period).toEqual({ date_from: threeYearsBefore(today), date_to: today.toISOString().slice(0, 10) });
    const inWindow = body.topics.every((t) => t.earliest_date >= body.period.date_from);
    expect(inWindow).toBe(true);
  });

  test("source_type separates calls from filings; limit caps the list", async () => {
    const wide = "date_from=2015-01-01&date_to=2030-01-01";
    expect((await topics(`/v1/companies/354950/topics/extracted?${wide}&source_type=filing`)).topics).toEqual([]);
    const buckle = await topics(`/v1/companies/885245/topics/extracted?${wide}&source_type=filing`);
    expect(buckle.company_name).toBe("BUCKLE INC");
    expect(buckle.topics.map((t) => t.topic_name)).toContain("net sales");
    expect((await topics(`/v1/companies/885245/topics/extracted?${wide}&source_type=transcript`)).topics).toEqual([]);
    expect((await topics(`/v1/companies/354950/topics/extracted?${wide}&limit=1`)).topics).toHaveLength(1);
    const unknown = await topics(`/v1/companies/1/topics/extracted?${wide}`);
    expect(unknown).toMatchObject({ cik: "0000000001", topics: [], company_name: null });
  });

  test("invalid parameters are 422", async () => {
    const base = "/v1/companies/354950/topics/extracted";
    for (const bad of [
      "/v1/companies/abc/topics/extracted",
      "/v1/companies/12345678901/topics/extracted",
      `${base}?limit=0`,
      `${base}?limit=101`,
      `${base}?source_type=document`,
      `${base}?date_from=2021-02-30`,
      `${base}?date_from=2022-01-01&date_to=2021-01-01`,
    ]) {
      const res = await get(bad);
      expect(res.status).toBe(422);
      expect(Array.isArray(((await res.json()) as { detail: unknown }).detail)).toBe(true);
    }
  });

  test("topic ids and emerging-topic ids are stable across rebuilds", async () => {
    const before = await topicIds();
    const emergingBefore = ((await (await get("/v1/topics/emerging")).json()) as { emerging_topics: Emerging[] })
      .emerging_topics;
    await build();
    expect(await topicIds()).toEqual(before);
    const emergingAfter = ((await (await get("/v1/topics/emerging")).json()) as { emerging_topics: Emerging[] })
      .emerging_topics;
    expect(emergingAfter.map((e) => [e.emerging_topic_id, e.emerging_topic_name])).toEqual(
      emergingBefore.map((e) => [e.emerging_topic_id, e.emerging_topic_name]),
    );
  });

  test("emerging topics are listed with ids, and each lists its companies", async () => {
    const list = ((await (await get("/v1/topics/emerging")).json()) as { emerging_topics: Emerging[] }).emerging_topics;
    expect(list.length).toBeGreaterThan(0);
    const first = list[0] as Emerging;
    const res = await get(`/v1/topics/emerging/${first.emerging_topic_id}/companies`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as {
      emerging_topic_id: number;
      emerging_topic_name: string;
      companies: Record<string, unknown>[];
    };
    expect(body.emerging_topic_id).toBe(first.emerging_topic_id);
    expect(body.emerging_topic_name).toBe(first.emerging_topic_name);
    expect(body.companies.length).toBeGreaterThanOrEqual(2);
    for (const c of body.companies) {
      expect(Object.keys(c).sort()).toEqual(["cik", "company_name", "doc_count", "latest_date", "ticker"]);
      expect(c.cik).toMatch(/^\d{10}$/);
      expect(typeof c.company_name).toBe("string");
      expect(typeof c.ticker).toBe("string");
    }
    const one = (await (await get(`/v1/topics/emerging/${first.emerging_topic_id}/companies?limit=1`)).json()) as {
      companies: unknown[];
    };
    expect(one.companies).toHaveLength(1);
  });

  test("unknown emerging ids are 404; malformed ids and limits 422", async () => {
    expect((await get("/v1/topics/emerging/999999/companies")).status).toBe(404);
    expect((await get("/v1/topics/emerging/abc/companies")).status).toBe(422);
    expect((await get("/v1/topics/emerging/1/companies?limit=0")).status).toBe(422);
    expect((await get("/v1/topics/emerging/1/companies?limit=101")).status).toBe(422);
  });
});
