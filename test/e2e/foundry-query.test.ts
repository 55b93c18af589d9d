/**
 * POST /v1/foundry/query end to end: the real SEC sample, news samples, daily market CSVs and
 * graph filings ingested into a real service, synced into the real lakehouse gateway (lab,
 * PyIceberg + DuckDB), the market bars in the tenant's real-time table and the company graph
 * in Ladybug. The evaluation set (test/fixtures/foundry/nl-eval.json) is answered by the
 * rules planner; unanswerable questions are said to be; hostile planned statements (writes,
 * other namespaces, huge results) are refused or capped before they run; the model planner is
 * exercised against a local OpenAI-compatible HTTP server, and its plans pass the same fence.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { OpenAiChatModel } from "../../adapters/llm/index.ts";
import { AppError } from "../../domain/errors.ts";
import { FoundryQuery, type QueryAnswer } from "../../domain/foundry/query/service.ts";
import { lakehouseNamespace } from "../../domain/tenants/namespaces.ts";
import { loadNlEval, type NlDemo, nlDemoDirs, scoreAnswer, startNlDemo } from "./foundry-query-data.ts";

const ready = Boolean(nlDemoDirs("foundry query e2e"));
let d: NlDemo | undefined;
let auth: Record<string, string>;

beforeAll(async () => {
  if (!ready) return;
  d = await startNlDemo("foundry query e2e");
  if (!d) return;
  auth = {
    authorization: `Bearer ${await d.svc.token("analyst@query.test", "enterprise")}`,
    "content-type": "application/json",
  };
}, 600_000);
afterAll(async () => {
  await d?.close();
});

const demo = (): NlDemo => {
  if (!d) throw new Error("the demo did not start");
  return d;
};
const ask = (question: unknown, headers = auth) =>
  demo().svc.request("/v1/foundry/query", { method: "POST", headers, body: JSON.stringify({ question }) });
const companiesCount = async () =>
  Number(
    (await demo().lake.sql(lakehouseNamespace(demo().tenant.slug), "SELECT count(*) FROM companies")).rows[0]?.[0],
  );

describe.skipIf(!ready)("POST /v1/foundry/query over the demo data", () => {
  test("the rules planner answers the evaluation set", async () => {
    const items = loadNlEval();
    expect(items.length).toBeGreaterThanOrEqual(40);
    const failures: string[] = [];
    const heldOut: boolean[] = [];
    for (const item of items) {
      const a = await demo().svc.service.deps.foundry.query.ask(demo().tenant, item.question);
      expect(a.planner).toBe("rules");
      const s = scoreAnswer(item, a);
      if (item.held_out) heldOut.push(s.ok);
      else if (!s.ok) failures.push(`${item.id}: ${s.why}`);
    }
    // Every source is exercised; every question the planner was written against is right, and
    // at least 80 % of the held-out paraphrases (written afterwards, never used to tune it).
    expect(new Set(items.map((i) => i.source))).toEqual(new Set(["lakehouse", "timeseries", "graph", null]));
    expect(failures).toEqual([]);
    expect(heldOut.length).toBeGreaterThanOrEqual(15);
    expect(heldOut.filter(Boolean).length / heldOut.length).toBeGreaterThanOrEqual(0.8);
  }, 300_000);

  test("over HTTP: the answer shape for each source", async () => {
    const res = await ask("What was Apple's revenue in fiscal 2023?");
    expect(res.status).toBe(200);
    const body = (await res.json()) as QueryAnswer;
    expect(body).toMatchObject({
      question: "What was Apple's revenue in fiscal 2023?",
      answered: true,
      source: "lakehouse",
      planner: "rules",
      truncated: false,
      columns: ["ticker", "fiscal_year", "fiscal_period", "period_end", "revenue"],
      rows: [["AAPL", 2023, "FY", "2023-09-30", 383_285_000_000]],
    });
    expect(body.sql).toContain("FROM income_statements");
    expect(body.explanation).toContain("revenue of AAPL");

    const ts = (await (await ask("What was the average closing price of NVDA in 2013?")).json()) as QueryAnswer;
    expect(ts).toMatchObject({
      answered: true,
      source: "timeseries",
      columns: ["symbol", "avg_close", "date", "from", "to", "bars"],
    });
    expect(ts.sql).toContain("FROM market_bars_daily WHERE symbol = 'NVDA'");
    expect(ts.rows[0]?.[5]).toBe(252);

    const g = (await (await ask("What are the subsidiaries of Tesla?")).json()) as QueryAnswer;
    expect(g).toMatchObject({ answered: true, source: "graph", columns: ["subsidiary", "jurisdiction", "parent"] });
    expect(g.cypher).toContain("SUBSIDIARY_OF");
    expect(g.sql).toBeUndefined();
  });

  test("an unanswerable question is 200 with answered=false and a plain explanation", async () => {
    const res = await ask("What is the weather in Paris today?");
    expect(res.status).toBe(200);
    const body = (await res.json()) as QueryAnswer;
    expect(body).toMatchObject({ answered: false, source: null, columns: [], rows: [], planner: "rules" });
    expect(body.explanation).toContain("I could not map this question to the tenant's data");
    const noYear = (await (await ask("Which companies have the highest revenue?")).json()) as QueryAnswer;
    expect(noYear).toMatchObject({ answered: false });
    expect(noYear.explanation).toContain("Which fiscal year?");
  });

  test("the body is checked: a question of 1..2,000 characters, JWT only", async () => {
    expect((await ask("x".repeat(2001))).status).toBe(422);
    expect((await ask("")).status).toBe(422);
    expect((await ask(42)).status).toBe(422);
    expect((await ask("What was Apple's revenue in 2023?", { "content-type": "application/json" })).status).toBe(401);
    const long = await ask(`What was Apple's revenue in 2023? ${" ".repeat(1900)}`);
    expect(long.status).toBe(200);
  });

  test("the tenant's portfolios and watchlists come from the read models, the tenant's own only", async () => {
    const rm = demo().svc.service.deps.foundry.readModels;
    await rm.createPortfolio(demo().tenant, "analyst@query.test", {
      name: "Tech Leaders",
      kind: "portfolio",
      holdings: [
        { ticker: "NVDA", quantity: 100, cost_basis: 12.5 },
        { ticker: "AAPL", quantity: 50 },
      ],
    });
    await rm.createPortfolio(demo().tenant, "analyst@query.test", {
      name: "Chips to watch",
      kind: "watchlist",
      holdings: [{ ticker: "NVDA" }, { ticker: "MRVL" }],
    });
    const other = await demo().svc.service.store.createTenant({
      slug: `t-${crypto.randomUUID().slice(0, 8)}`,
      display_name: "Other",
      tier: "enterprise",
      region: "local",
      provisioning_state: "active",
      is_active: true,
    });
    await rm.createPortfolio({ tenantId: other.tenant_id, slug: other.slug }, "x@other.test", {
      name: "Tech Leaders Elsewhere",
      kind: "portfolio",
      holdings: [{ ticker: "NVDA", quantity: 1 }],
    });

    const h = (await (await ask("What is in my Tech Leaders portfolio?")).json()) as QueryAnswer;
    expect(h).toMatchObject({
      answered: true,
      source: "readmodel",
      columns: ["ticker", "quantity", "weight", "cost_basis"],
      rows: [
        ["NVDA", 100, null, 12.5],
        ["AAPL", 50, null, null],
      ],
    });
    expect(h.sql).toContain("FROM pm.holdings WHERE portfolio_id = ");
    const holders = (await (await ask("Which of our portfolios hold NVDA?")).json()) as QueryAnswer;
    expect(holders.rows.map((r) => [r[0], r[1]])).toEqual([
      ["Chips to watch", "watchlist"],
      ["Tech Leaders", "portfolio"],
    ]);
    const lists = (await (await ask("List my watchlists")).json()) as QueryAnswer;
    expect(lists.rows.map((r) => r[0])).toEqual(["Chips to watch"]);
    const none = (await (await ask("What is in my Growth portfolio?")).json()) as QueryAnswer;
    expect(none).toMatchObject({ answered: false, source: "readmodel" });
    expect(none.explanation).toContain('No portfolio or watchlist of the tenant is named like "growth"');
  });

  test("hostile planned statements are refused before they run; a huge result is capped", async () => {
    const q = demo().svc.service.deps.foundry.query;
    const ctx = await q.context(demo().tenant);
    const before = await companiesCount();
    for (const [sql, msg] of [
      ["DELETE FROM companies", "only read-only SELECT"],
      ["WITH x AS (SELECT 1) INSERT INTO companies SELECT * FROM companies", "'INSERT' is not allowed"],
      ["SELECT 1; DROP TABLE companies", "one statement only"],
      ["SELECT * FROM svc_tenant_other.companies", "tables are named bare"],
      [`SELECT * FROM companies c JOIN ${lakehouseNamespace("someone-else")}.filings f ON c.cik = f.cik`, "bare"],
      ["SELECT * FROM read_parquet('/etc/hostname')", "read_parquet"],
      ["SELECT * FROM filings LIMIT 50000", "above the row limit of 1000"],
    ] as const) {
      const err = await q.runSql(ctx, "hostile", sql, "", "llm").catch((e: unknown) => e);
      expect(err).toBeInstanceOf(AppError);
      expect((err as AppError).code).toBe("validation");
      expect((err as AppError).issues?.[0]?.msg).toContain(msg);
    }
    expect(await companiesCount()).toBe(before);
    // Every filing (10,674 rows) comes back as the first 1,000, said to be cut.
    const all = await q.runSql(
      ctx,
      "every filing",
      "SELECT * FROM filings ORDER BY filed_at, accession_number",
      "",
      "rules",
    );
    expect(all.rows.length).toBe(1000);
    expect(all.truncated).toBe(true);
    expect(all.sql).toMatch(/LIMIT 1001$/);
    // Hostile Cypher never reaches the graph either.
    const cy = await q
      .runCypher(demo().tenant, "hostile", "MATCH (c:Company) DETACH DELETE c", {}, "", "llm")
      .catch((e: unknown) => e);
    expect((cy as AppError).code).toBe("validation");
    const subs = await q.ask(demo().tenant, "How many subsidiaries does Exxon Mobil have?");
    expect(subs.rows[0]?.[1]).toBe(115);
  });
});

/** A local OpenAI-compatible chat server that answers each question with a scripted plan_query call. */
function modelServer(script: (question: string, system: string) => Record<string, unknown> | "fail") {
  const seen: { system: string; question: string; tools: unknown }[] = [];
  const server = Bun.serve({
    port: 0,
    async fetch(req) {
      const body = (await req.json()) as { messages: { role: string; content: string }[]; tools: unknown };
      const system = body.messages.find((m) => m.role === "system")?.content ?? "";
      const question = body.messages.find((m) => m.role === "user")?.content ?? "";
      seen.push({ system, question, tools: body.tools });
      const plan = script(question, system);
      if (plan === "fail") return new Response("down", { status: 400 });
      return Response.json({
        id: "x",
        model: "local-test",
        choices: [
          {
            index: 0,
            finish_reason: "tool_calls",
            message: {
              role: "assistant",
              content: null,
              tool_calls: [
                { id: "c1", type: "function", function: { name: "plan_query", arguments: JSON.stringify(plan) } },
              ],
            },
          },
        ],
      });
    },
  });
  return { server, seen, url: `http://127.0.0.1:${server.port}/v1` };
}

describe.skipIf(!ready)("the model planner, through the same fence", () => {
  const plans: Record<string, Record<string, unknown> | "fail"> = {
    "apple revenue": {
      answerable: true,
      source: "lakehouse",
      statement:
        "SELECT ticker, revenue FROM income_statements WHERE ticker = 'AAPL' AND fiscal_year = 2023 AND fiscal_period = 'FY'",
      explanation: "Apple's FY2023 revenue.",
    },
    "tesla subsidiaries": {
      answerable: true,
      source: "graph",
      statement: "MATCH (s:Company)-[:SUBSIDIARY_OF]->(p:Company {ticker: 'TSLA'}) RETURN count(s) AS n",
      explanation: "Tesla's EX-21 subsidiaries.",
    },
    "What was Apple's revenue in fiscal 2023?": {
      answerable: true,
      source: "lakehouse",
      statement: "DELETE FROM companies",
      explanation: "oops",
    },
    "other namespace please": {
      answerable: true,
      source: "lakehouse",
      statement: "SELECT * FROM svc_tenant_victim.companies",
      explanation: "someone else's data",
    },
    "tomorrow's weather": { answerable: false, explanation: "The data holds no weather." },
    "What was NVIDIA's gross margin in fiscal 2024?": "fail",
  };
  let srv: ReturnType<typeof modelServer>;
  let q: FoundryQuery;
  const fallbacks: string[] = [];
  beforeAll(() => {
    srv = modelServer((question) => plans[question] ?? "fail");
    q = new FoundryQuery({
      lakehouse: demo().lake,
      graph: demo().graph,
      realtime: null,
      llm: new OpenAiChatModel({ url: srv.url, model: "local-test", backoffMs: 5 }),
      onModelFallback: (r) => fallbacks.push(r),
    });
  });
  afterAll(() => srv?.server.stop(true));

  test("the model gets the tenant's schema and graph model; its SQL runs with a LIMIT added", async () => {
    const a = await q.ask(demo().tenant, "apple revenue");
    expect(a).toMatchObject({
      answered: true,
      planner: "llm",
      source: "lakehouse",
      rows: [["AAPL", 383_285_000_000]],
      explanation: "Apple's FY2023 revenue.",
    });
    expect(a.sql).toMatch(/LIMIT 1001$/);
    const sys = srv.seen.find((s) => s.question === "apple revenue")?.system ?? "";
    expect(sys).toContain("income_statements(cik string");
    expect(sys).toContain("revenue double");
    expect(sys).toContain("(:Fund)-[:HOLDS {shares, value, period}]->(:Company)");
    expect(JSON.stringify(srv.seen[0]?.tools)).toContain("plan_query");
  });

  test("the model's Cypher runs on the tenant's graph", async () => {
    const a = await q.ask(demo().tenant, "tesla subsidiaries");
    expect(a).toMatchObject({ answered: true, planner: "llm", source: "graph", columns: ["n"], rows: [[2]] });
  });

  test("a model plan that writes is refused and the rules planner answers instead; nothing is deleted", async () => {
    const before = await companiesCount();
    const a = await q.ask(demo().tenant, "What was Apple's revenue in fiscal 2023?");
    expect(a).toMatchObject({ answered: true, planner: "rules", source: "lakehouse" });
    expect(a.rows[0]).toContain(383_285_000_000);
    expect(fallbacks.at(-1)).toContain("only read-only SELECT");
    expect(await companiesCount()).toBe(before);
  });

  test("a model plan over another namespace is refused; the question stays unanswered and says why", async () => {
    const a = await q.ask(demo().tenant, "other namespace please");
    expect(a).toMatchObject({ answered: false, planner: "rules", rows: [] });
    expect(a.explanation).toContain("The model's plan was not used");
    expect(a.explanation).toContain("tables are named bare");
  });

  test("the model may say it cannot answer; a failing model falls back to the rules", async () => {
    expect(await q.ask(demo().tenant, "tomorrow's weather")).toMatchObject({
      answered: false,
      planner: "llm",
      explanation: "The data holds no weather.",
    });
    const a = await q.ask(demo().tenant, "What was NVIDIA's gross margin in fiscal 2024?");
    expect(a).toMatchObject({ answered: true, planner: "rules" });
    expect(a.rows[0]).toContain(0.7271757329043695);
    expect(fallbacks.at(-1)).toBe("the model failed");
  });
});
