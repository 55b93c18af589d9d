/**
 * The demo data for natural-language queries (test/e2e/foundry-query.test.ts and
 * bench/foundry-nl.ts): the real SEC sample, news samples and daily market CSVs ingested into
 * a real test service, the tenant's market bars in its real-time table, the financial tables
 * synced into its lakehouse namespace (foundry-sync) and the company graph loaded from the
 * real filings. Undefined (with a note) where the shared data or the lab venv is missing.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import pino from "pino";
import { openNewsStore, readLocalFeeds } from "../../composition/cli.ts";
import { realtimeEngine } from "../../composition/engines.ts";
import { openFoundrySync } from "../../composition/foundry-sync.ts";
import type { GraphPort } from "../../domain/foundry/graph/ports.ts";
import type { LakehousePort } from "../../domain/lakehouse/ports.ts";
import type { TenantRef } from "../../domain/tenants/namespaces.ts";
import { ingestSecDirectory } from "../../pipelines/financials/sec/index.ts";
import { companyGraphDir, loadCompanyGraph } from "../../pipelines/foundry/graph/load.ts";
import { createCompanyLinker, NewsIngestor } from "../../pipelines/news/index.ts";
import { ingestMarketDirectory } from "../../pipelines/rtdb/market-ingest.ts";
import { startTestService, type TestService } from "../harness.ts";
import { type GatewayHandle, startGateway } from "../lakehouse.ts";
import { sharedData } from "../shared-data.ts";

export interface NlDemo {
  svc: TestService;
  gateway: GatewayHandle;
  tenant: TenantRef;
  lake: LakehousePort;
  graph: GraphPort;
  close(): Promise<void>;
}

/** Whether the shared data the demo needs is present. */
export function nlDemoDirs(why: string): { sec: string; news: string; daily: string } | undefined {
  const sec = sharedData("sec", why);
  const news = sharedData("news", why);
  const daily = sharedData("market/daily", why);
  return sec && news && daily ? { sec, news, daily } : undefined;
}

export async function startNlDemo(why: string, env: Record<string, string> = {}): Promise<NlDemo | undefined> {
  const dirs = nlDemoDirs(why);
  if (!dirs) return undefined;
  const gateway = await startGateway();
  if (!gateway) return undefined;
  const svc = await startTestService({ CAIRN_LAKEHOUSE_URL: gateway.url, ...env });
  try {
    const { service } = svc;
    const lake = service.engines.lakehouse as LakehousePort;
    const row = await service.store.getTenant(svc.tenantId);
    const tenant = { tenantId: svc.tenantId, slug: row?.slug as string };
    const sec = await ingestSecDirectory(dirs.sec, service.financials);
    if (sec.errors.length) throw new Error(`SEC ingest: ${sec.errors.length} errors`);
    const ingestor = new NewsIngestor({
      store: openNewsStore(service.store.sql),
      publisher: { publish: async () => {} },
      linker: createCompanyLinker(),
      logger: pino({ level: "silent" }),
    });
    for (const f of readLocalFeeds(dirs.news)) if (f.type) await ingestor.ingest(f.items);
    await service.engines.timeseries.ensureNamespace(tenant);
    const rt = realtimeEngine(service.engines.timeseries);
    if (!rt) throw new Error("the embedded time-series engine should have real-time tables");
    await ingestMarketDirectory(rt, tenant, dirs.daily);
    await openFoundrySync({
      financials: service.financials,
      store: service.store,
      lakehouse: lake,
      rtdb: service.deps.rtdb,
    }).sync(tenant);
    const graph = service.engines.graph as unknown as GraphPort;
    await (service.engines.graph as unknown as { ensureNamespace(t: TenantRef): Promise<string> }).ensureNamespace(
      tenant,
    );
    await loadCompanyGraph(graph, tenant, companyGraphDir(join(import.meta.dir, "..", "..")));
    return {
      svc,
      gateway,
      tenant,
      lake,
      graph,
      close: async () => {
        await svc.close();
        await gateway.stop();
      },
    };
  } catch (e) {
    await svc.close();
    await gateway.stop();
    throw e;
  }
}

/** One question of test/fixtures/foundry/nl-eval.json. */
export interface NlEvalItem {
  id: string;
  question: string;
  source: "lakehouse" | "timeseries" | "graph" | "readmodel" | null;
  expect: {
    value?: number;
    tolerance?: number;
    values?: (string | number)[];
    ordered?: boolean;
    first?: boolean;
    contains?: (string | number)[];
    text?: string;
    rows?: number;
    answered?: false;
  };
  verified: string;
  /** Written after the planner and never used to tune it. */
  held_out?: boolean;
}

export function loadNlEval(): NlEvalItem[] {
  const path = join(import.meta.dir, "..", "fixtures", "foundry", "nl-eval.json");
  return (JSON.parse(readFileSync(path, "utf8")) as { questions: NlEvalItem[] }).questions;
}

const same = (a: unknown, b: string | number, tol: number): boolean => {
  if (typeof b === "number") {
    const n = typeof a === "number" ? a : typeof a === "string" && a.trim() !== "" ? Number(a) : Number.NaN;
    return Number.isFinite(n) && Math.abs(n - b) <= Math.max(tol * Math.abs(b), 1e-9);
  }
  return a === b;
};

/** Whether an answer is right for the item: answered (or not) as expected, from the expected source, with the expected values. */
export function scoreAnswer(
  item: NlEvalItem,
  a: { answered: boolean; source: string | null; rows: unknown[][] },
): { ok: boolean; why: string } {
  const e = item.expect;
  if (e.answered === false)
    return a.answered ? { ok: false, why: "answered an unanswerable question" } : { ok: true, why: "" };
  if (!a.answered) return { ok: false, why: "not answered" };
  if (item.source && a.source !== item.source) return { ok: false, why: `source ${a.source}, expected ${item.source}` };
  const tol = e.tolerance ?? 1e-9;
  if (e.rows !== undefined && a.rows.length !== e.rows)
    return { ok: false, why: `${a.rows.length} rows, expected ${e.rows}` };
  const first = a.rows[0] ?? [];
  if (e.value !== undefined && !first.some((c) => same(c, e.value as number, tol))) {
    return { ok: false, why: `no cell of the first row equals ${e.value}: ${JSON.stringify(first).slice(0, 200)}` };
  }
  if (e.text !== undefined && !first.some((c) => c === e.text)) {
    return { ok: false, why: `no cell of the first row is ${e.text}` };
  }
  const width = Math.max(0, ...a.rows.map((r) => r.length));
  const column = (i: number, rows: unknown[][]) => rows.map((r) => r[i]);
  if (e.values) {
    const want = e.values;
    const rows = e.first ? a.rows.slice(0, want.length) : a.rows;
    const match = Array.from({ length: width }, (_, i) => column(i, rows)).some((col) => {
      if (col.length !== want.length) return false;
      if (e.ordered || e.first) return col.every((c, k) => same(c, want[k] as string | number, tol));
      return want.every((w) => col.some((c) => same(c, w, tol))) && col.every((c) => want.some((w) => same(c, w, tol)));
    });
    if (!match) return { ok: false, why: `no column equals ${JSON.stringify(want).slice(0, 200)}` };
  }
  if (e.contains) {
    const want = e.contains;
    const match = Array.from({ length: width }, (_, i) => column(i, a.rows)).some((col) =>
      want.every((w) => col.some((c) => same(c, w, tol))),
    );
    if (!match) return { ok: false, why: `no column holds ${JSON.stringify(want).slice(0, 200)}` };
  }
  return { ok: true, why: "" };
}
