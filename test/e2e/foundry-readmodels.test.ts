/**
 * The read models ci.*, dm.*, pm.*, md.* end to end on the embedded profile (spec 1.9): the
 * real SEC sample, real market CSVs in the tenant's real-time tables, real uploaded
 * documents and editor documents, refreshed into the control plane and read back through
 * the routes; the portfolios endpoints; and a user of another tenant sees none of it.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { READMODEL_MIGRATIONS } from "../../adapters/controlplane/readmodel-migrations.ts";
import { SqlReadModelStore } from "../../adapters/controlplane/readmodel-store.ts";
import { issueApiKey } from "../../cli/demo-seed.ts";
import { realtimeEngine } from "../../composition/engines.ts";
import { readModelSources, realtimeFromRtdb } from "../../composition/foundry-readmodels.ts";
import { INCOME_FIELDS } from "../../domain/financials/fields.ts";
import { READ_MODEL_TABLES } from "../../domain/foundry/readmodels/catalogue.ts";
import type { TenantRef } from "../../domain/tenants/namespaces.ts";
import { signUserToken } from "../../http/auth/jwt.ts";
import { ingestSecDirectory } from "../../pipelines/financials/sec/index.ts";
import { type RefreshDeps, refreshPublic, refreshTenant } from "../../pipelines/foundry/readmodels/refresh.ts";
import { ingestMarketDirectory, parseMarketCsv } from "../../pipelines/rtdb/market-ingest.ts";
import { installedModelsDir } from "../embedding-models.ts";
import { type DocsFixture, startDocsFixture, textFile } from "../fixtures/documents-app.ts";
import { sharedData } from "../shared-data.ts";
import { waitFor } from "../wait.ts";

const secDir = sharedData("sec", "foundry read models");
const dailyDir = sharedData("market/daily", "foundry read models");
const intradayDir = sharedData("market/intraday", "foundry read models");
const models = installedModelsDir(["bge-small-en-v1.5", "e5-small-v2"], "foundry read models");
const ready = Boolean(secDir && dailyDir && intradayDir && models);

let fx: DocsFixture;
let a: TenantRef;
let b: TenantRef;
let ha: Record<string, string>;
let hb: Record<string, string>;
let refresh: RefreshDeps;
let quotesDir: string;
let sharedDocId: string;
let sharedChunks: number;
let viewerDocId: string;

const call = (method: string, path: string, h: Record<string, string>, body?: unknown) =>
  fx.svc.request(path, {
    method,
    headers: { ...h, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
const select = async (h: Record<string, string>, q: Record<string, unknown>) => {
  const res = await call("POST", "/v1/foundry/readmodels/select", h, q);
  expect(res.status).toBe(200);
  return (await res.json()) as { columns: string[]; rows: unknown[][] };
};
const catalogue = async (h: Record<string, string>) => {
  const res = await call("GET", "/v1/foundry/readmodels", h);
  expect(res.status).toBe(200);
  return (
    (await res.json()) as {
      tables: { name: string; row_count: number; refreshed_at: string | null; columns: { name: string }[] }[];
    }
  ).tables;
};

async function jwtFor(tenantId: string, email: string): Promise<{ jwt: string; key: string }> {
  const { store, secrets, config } = fx.svc.service;
  const { ensureUser } = await import("../../cli/demo-seed.ts");
  const u = await ensureUser(store, tenantId, email, "enterprise", undefined, ["owner"]);
  const jwt = await signUserToken(
    { secret: secrets.jwtSecret, issuer: config.jwt.issuer, audience: config.jwt.audience, ttlSeconds: 600 },
    { userId: u.id, email: u.email, tenantId: u.tenant_id },
  );
  const key = (await issueApiKey(store, u, "rm")) as string;
  return { jwt, key };
}

beforeAll(async () => {
  if (!ready) return;
  fx = await startDocsFixture();
  const { service } = fx.svc;
  // Until composition/engines.ts lists READMODEL_MIGRATIONS itself (applied ids are skipped).
  await service.store.migrate(READMODEL_MIGRATIONS);
  const ta = await service.store.getTenant(fx.svc.tenantId);
  a = { tenantId: fx.svc.tenantId, slug: ta?.slug as string };
  const tb = await service.store.createTenant({
    slug: `t-${crypto.randomUUID().slice(0, 8)}`,
    display_name: "Other",
    tier: "enterprise",
    region: "local",
    provisioning_state: "active",
    is_active: true,
  });
  b = { tenantId: tb.tenant_id, slug: tb.slug };
  const ua = await jwtFor(a.tenantId, "rm-a@foundry.test");
  ha = { authorization: `Bearer ${ua.jwt}` };
  hb = { authorization: `Bearer ${(await jwtFor(b.tenantId, "rm-b@foundry.test")).jwt}` };

  const sec = await ingestSecDirectory(secDir as string, service.financials);
  expect(sec.errors).toEqual([]);
  await service.engines.timeseries.ensureNamespace(a);
  await service.engines.timeseries.ensureNamespace(b);
  const rt = realtimeEngine(service.engines.timeseries);
  if (!rt) throw new Error("the embedded time-series engine should have real-time tables");
  await ingestMarketDirectory(rt, a, dailyDir as string);
  quotesDir = mkdtempSync(join(tmpdir(), "cairn-rm-quotes-"));
  copyFileSync(join(intradayDir as string, "bid_ask_sample.csv"), join(quotesDir, "bid_ask_sample.csv"));
  await ingestMarketDirectory(rt, a, quotesDir);

  // Documents: one tenant-wide, one team-only (kept out of dm.*).
  const alice = await fx.caller("alice-rm@foundry.test", ["analyst"]);
  const md = readFileSync(join(sharedData("documents", "foundry read models") as string, "md", "apple_8-K.md"));
  const up = await fx.upload(alice, new File([md], "apple_8-K.md"), {
    doc_type: "research_note",
    entity_id: "0000320193",
  });
  expect(up.status).toBe(200);
  const upBody = (await up.json()) as { doc_id: string; chunks: number };
  sharedDocId = upBody.doc_id;
  sharedChunks = upBody.chunks;
  const hidden = await fx.upload(alice, textFile("team.txt", "Deal notes for the analyst team only. ".repeat(20)), {
    doc_type: "research_note",
    visibility: "team_only",
    allowed_roles: "analyst",
  });
  expect(hidden.status).toBe(200);

  // Editor documents: one shared with the tenant (viewer), one private (none).
  const eh = { authorization: `Bearer ${ua.jwt}`, "x-api-key": ua.key };
  const v = await call("POST", "/v1/editor/documents", eh, { title: "Shared memo", general_access: "viewer" });
  expect(v.status).toBeLessThan(300);
  viewerDocId = ((await v.json()) as { doc_id: string }).doc_id;
  expect((await call("POST", "/v1/editor/documents", eh, { title: "Private memo" })).status).toBeLessThan(300);

  refresh = {
    sources: readModelSources({
      sql: service.store.sql,
      financials: service.financials,
      documentIndex: service.engines.documentIndex,
      realtime: realtimeFromRtdb(service.deps.rtdb),
    }),
    writer: new SqlReadModelStore(service.store.sql),
    cikOfTicker: async () => {
      const rows = await service.store.sql.all<{ ticker: string; cik: string }>(
        "SELECT ticker, cik FROM ci.companies WHERE ticker IS NOT NULL",
      );
      return new Map(rows.map((r) => [r.ticker, r.cik]));
    },
  };
  const pub = await refreshPublic(refresh);
  expect(pub.every((t) => t.status === "refreshed")).toBe(true);
  const own = await refreshTenant(refresh, a);
  expect(own.every((t) => t.status === "refreshed")).toBe(true);
  await refreshTenant(refresh, b);
}, 600_000);
afterAll(async () => {
  await fx?.svc.close();
  if (quotesDir) rmSync(quotesDir, { recursive: true, force: true });
});

describe.skipIf(!ready)("foundry read models", () => {
  test("ci.* holds exactly what the financials store holds", async () => {
    const fin = fx.svc.service.financials;
    const ciks = await fin.listCiks();
    expect(ciks.length).toBeGreaterThanOrEqual(7);
    const companies = await select(ha, {
      schema: "ci",
      table: "companies",
      columns: ["cik", "name"],
      limit: 10_000,
      order_by: [{ column: "cik" }],
    });
    expect(companies.rows.map((r) => r[0])).toEqual([...ciks].sort());
    let incomeRows = 0;
    for (const cik of ciks) {
      const c = await fin.company(cik);
      expect(companies.rows.find((r) => r[0] === cik)?.[1]).toBe(c?.name ?? null);
      incomeRows += (await fin.income(cik, { limit: 1_000_000 })).filter(
        (r) => r.fiscal_year !== null && r.fiscal_period_code,
      ).length;
    }
    const counts = Object.fromEntries((await catalogue(ha)).map((t) => [t.name, t.row_count]));
    expect(counts["ci.income_statements"]).toBe(incomeRows);
    expect(counts["ci.ratios"]).toBeGreaterThan(0);
    expect(counts["ci.segments"]).toBeGreaterThan(0);
    // Apple's latest annual revenue, through the port, equals the store's record.
    const [latest] = (await fin.income("0000320193", { period: "FY", limit: 1 })) as NonNullable<
      Awaited<ReturnType<typeof fin.income>>
    >;
    const got = await select(ha, {
      schema: "ci",
      table: "income_statements",
      columns: ["fiscal_year", ...INCOME_FIELDS],
      where: [
        { column: "cik", op: "=", value: "0000320193" },
        { column: "fiscal_period", op: "=", value: "FY" },
        { column: "fiscal_year", op: "=", value: latest?.fiscal_year as number },
      ],
    });
    expect(got.rows).toHaveLength(1);
    expect(got.rows[0]).toEqual([latest?.fiscal_year, ...INCOME_FIELDS.map((f) => latest?.[f] ?? null)]);
    expect((latest?.revenue ?? 0) > 1e10).toBe(true);
  });

  test("md.* holds the tenant's bars (one per ticker and day) and the newest quote per ticker", async () => {
    const keys = new Set<string>();
    for (const f of readdirSync(dailyDir as string)) {
      const parsed = parseMarketCsv(join(dailyDir as string, f), readFileSync(join(dailyDir as string, f), "utf8"));
      if (parsed?.table !== "market_bars_daily") continue;
      for (const r of parsed.rows) keys.add(`${String(r.symbol).toUpperCase()}|${String(r.ts).slice(0, 10)}`);
    }
    const counts = Object.fromEntries((await catalogue(ha)).map((t) => [t.name, t.row_count]));
    expect(counts["md.daily_bars"]).toBe(keys.size);
    const nvda = await select(ha, {
      schema: "md",
      table: "daily_bars",
      columns: ["ticker", "date", "close", "cik"],
      where: [{ column: "ticker", op: "=", value: "NVDA" }],
      order_by: [{ column: "date", direction: "desc" }],
      limit: 1,
    });
    expect(nvda.rows[0]?.[0]).toBe("NVDA");
    expect(nvda.rows[0]?.[3]).toBe("0001045810");

    const parsed = parseMarketCsv(
      join(quotesDir, "bid_ask_sample.csv"),
      readFileSync(join(quotesDir, "bid_ask_sample.csv"), "utf8"),
    );
    expect(parsed?.table).toBe("market_quotes");
    const newest = new Map<string, { ts: string; bid: number; ask: number }>();
    for (const r of parsed?.rows ?? []) {
      const s = String(r.symbol).toUpperCase();
      const ts = new Date(String(r.ts)).toISOString();
      const cur = newest.get(s);
      if (!cur || cur.ts <= ts) newest.set(s, { ts, bid: Number(r.bid), ask: Number(r.ask) });
    }
    expect(newest.size).toBeGreaterThan(0);
    const quotes = await select(ha, {
      schema: "md",
      table: "latest_quotes",
      columns: ["ticker", "bid", "ask", "quoted_at"],
    });
    expect(quotes.rows.length).toBe(newest.size);
    for (const [ticker, bid, ask, at] of quotes.rows as [string, number, number, string][]) {
      const want = newest.get(ticker);
      expect(new Date(at).toISOString()).toBe(want?.ts as string);
      expect([bid, ask]).toEqual([want?.bid as number, want?.ask as number]);
    }
  });

  test("dm.* lists tenant-wide documents and their chunks (no text), and shared editor documents", async () => {
    const docs = await select(ha, {
      schema: "dm",
      table: "documents",
      columns: ["doc_id", "filename", "entity_id", "chunk_count"],
    });
    expect(docs.rows).toEqual([[sharedDocId, "apple_8-K.md", "0000320193", sharedChunks]]);
    const chunks = await select(ha, {
      schema: "dm",
      table: "chunks",
      order_by: [{ column: "chunk_index" }],
      limit: 10_000,
    });
    expect(chunks.columns).not.toContain("text");
    expect(chunks.rows).toHaveLength(sharedChunks);
    expect(chunks.rows.every((r) => r[chunks.columns.indexOf("doc_id")] === sharedDocId)).toBe(true);
    expect(chunks.rows.every((r) => (r[chunks.columns.indexOf("char_count")] as number) > 0)).toBe(true);
    const editor = await select(ha, {
      schema: "dm",
      table: "editor_documents",
      columns: ["doc_id", "title", "general_access"],
    });
    expect(editor.rows).toEqual([[viewerDocId, "Shared memo", "viewer"]]);
  });

  test("portfolios: create, list, read, replace holdings, delete; bad input is 422", async () => {
    const created = await call("POST", "/v1/foundry/portfolios", ha, {
      name: "Semis",
      kind: "portfolio",
      holdings: [
        { ticker: "nvda", cik: "1045810", quantity: 100, cost_basis: 12.5 },
        { ticker: "ORCL", weight: 0.3 },
      ],
    });
    expect(created.status).toBe(201);
    const p = (await created.json()) as {
      id: string;
      kind: string;
      holdings: { ticker: string; cik: string | null }[];
    };
    expect(p.kind).toBe("portfolio");
    expect(p.holdings.map((h) => [h.ticker, h.cik])).toEqual([
      ["NVDA", "0001045810"],
      ["ORCL", null],
    ]);
    expect((await call("POST", "/v1/foundry/portfolios", ha, { name: "Semis", kind: "watchlist" })).status).toBe(409);
    const w = await call("POST", "/v1/foundry/portfolios", ha, { name: "Watch", kind: "watchlist" });
    expect(w.status).toBe(201);
    const list = (await (await call("GET", "/v1/foundry/portfolios", ha)).json()) as { portfolios: { id: string }[] };
    expect(list.portfolios.map((x) => x.id)).toContain(p.id);
    expect(((await (await call("GET", `/v1/foundry/portfolios/${p.id}`, ha)).json()) as { id: string }).id).toBe(p.id);

    const put = await call("PUT", `/v1/foundry/portfolios/${p.id}/holdings`, ha, {
      holdings: [{ ticker: "AAPL", quantity: 5 }],
    });
    expect(put.status).toBe(200);
    expect(((await put.json()) as { holdings: { ticker: string }[] }).holdings.map((h) => h.ticker)).toEqual(["AAPL"]);
    const held = await select(ha, { schema: "pm", table: "holdings", columns: ["portfolio_id", "ticker", "quantity"] });
    expect(held.rows).toEqual([[p.id, "AAPL", 5]]);

    for (const bad of [
      { name: "x", kind: "fund" },
      { name: "x", holdings: [{ ticker: "A" }, { ticker: "a" }] },
      { name: "x", holdings: [{ ticker: "A", cik: "not-a-cik" }] },
      { name: "x", holdings: [{ ticker: "DROP TABLE" }] },
    ]) {
      expect((await call("POST", "/v1/foundry/portfolios", ha, bad)).status).toBe(422);
    }
    expect((await call("GET", "/v1/foundry/portfolios/not-a-uuid", ha)).status).toBe(422);
    expect((await call("DELETE", `/v1/foundry/portfolios/${p.id}`, ha)).status).toBe(204);
    expect((await call("GET", `/v1/foundry/portfolios/${p.id}`, ha)).status).toBe(404);
    expect((await call("DELETE", `/v1/foundry/portfolios/${p.id}`, ha)).status).toBe(404);
  });

  test("a user of another tenant sees none of the tenant rows and none of the portfolios", async () => {
    const p = (await (
      await call("POST", "/v1/foundry/portfolios", ha, { name: "Mine", holdings: [{ ticker: "MSFT" }] })
    ).json()) as { id: string };
    expect(
      ((await (await call("GET", "/v1/foundry/portfolios", hb)).json()) as { portfolios: unknown[] }).portfolios,
    ).toEqual([]);
    expect((await call("GET", `/v1/foundry/portfolios/${p.id}`, hb)).status).toBe(404);
    expect((await call("PUT", `/v1/foundry/portfolios/${p.id}/holdings`, hb, { holdings: [] })).status).toBe(404);
    expect((await call("DELETE", `/v1/foundry/portfolios/${p.id}`, hb)).status).toBe(404);
    expect((await call("GET", `/v1/foundry/portfolios/${p.id}`, ha)).status).toBe(200);

    const mine = Object.fromEntries((await catalogue(ha)).map((t) => [t.name, t.row_count]));
    const theirs = await catalogue(hb);
    for (const t of READ_MODEL_TABLES) {
      const name = `${t.schema}.${t.table}`;
      const info = theirs.find((x) => x.name === name);
      expect(info?.columns.map((c) => c.name)).not.toContain("tenant_id");
      if (t.scope === "public") {
        // Public data: the same for every tenant.
        expect(info?.row_count).toBe(mine[name] as number);
        continue;
      }
      expect(info?.row_count).toBe(0);
      expect((await select(hb, { schema: t.schema, table: t.table, limit: 10_000 })).rows).toEqual([]);
      // Naming tenant_id is refused rather than honoured.
      const res = await call("POST", "/v1/foundry/readmodels/select", hb, {
        schema: t.schema,
        table: t.table,
        where: [{ column: "tenant_id", op: "=", value: a.tenantId }],
      });
      expect(res.status).toBe(422);
    }
    expect(mine["md.daily_bars"]).toBeGreaterThan(0);
    expect(mine["pm.portfolios"]).toBeGreaterThan(0);
  });

  test("a refresh is idempotent, and the refresh endpoint's job runs in the service", async () => {
    const before = await select(ha, {
      schema: "md",
      table: "daily_bars",
      where: [{ column: "ticker", op: "=", value: "NVDA" }],
      order_by: [{ column: "date" }],
      limit: 10_000,
    });
    await refreshTenant(refresh, a);
    const after = await select(ha, {
      schema: "md",
      table: "daily_bars",
      where: [{ column: "ticker", op: "=", value: "NVDA" }],
      order_by: [{ column: "date" }],
      limit: 10_000,
    });
    expect(after).toEqual(before);
    expect(before.rows.length).toBeGreaterThan(1000);
    const barsBefore = (await catalogue(ha)).find((t) => t.name === "md.daily_bars")?.row_count;

    const res = await call("POST", "/v1/foundry/readmodels/refresh", ha);
    expect(res.status).toBe(202);
    const { jobs } = (await res.json()) as { jobs: string[] };
    expect(jobs).toHaveLength(2);
    const { queue } = fx.svc.service;
    await waitFor(
      "the refresh jobs to finish",
      async () => {
        const states = await Promise.all(jobs.map((id) => queue.getJob("foundry-readmodels", id)));
        return states.every((j) => j?.status === "completed");
      },
      { timeoutMs: 120_000 },
    );
    const tables = await catalogue(ha);
    const bars = tables.find((t) => t.name === "md.daily_bars");
    expect(bars?.row_count).toBe(barsBefore as number);
    expect(bars?.refreshed_at).not.toBeNull();
    expect(tables.find((t) => t.name === "pm.portfolios")?.refreshed_at).toBeNull();
  });
});
