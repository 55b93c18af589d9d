import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Server } from "bun";
import { FINANCIALS_MIGRATIONS, SqlFinancialsStore } from "../../../adapters/financials/index.ts";
import { migrate, SqliteClient } from "../../../adapters/sql/index.ts";
import { FIXTURE_CIK, fixtureCompanyFacts, fixtureSubmissions } from "../../../test/sec-fixture.ts";
import { ingestSecOnline, SecClient, SecHttpError } from "./index.ts";

const UA = "Cairn Tests ops@cairn.example";

/** A stand-in for data.sec.gov: refuses requests without the declared User-Agent, as the SEC does. */
class FakeSec {
  readonly hits: { path: string; at: number }[] = [];
  /** Per-path scripted statuses, consumed one per request before answering 200. */
  readonly script = new Map<string, { status: number; headers?: Record<string, string> }[]>();
  restated = false;
  server!: Server<undefined>;

  start(): void {
    this.server = Bun.serve({
      port: 0,
      fetch: (req) => {
        const path = new URL(req.url).pathname;
        this.hits.push({ path, at: performance.now() });
        if (req.headers.get("user-agent") !== UA) return new Response("declare your user agent", { status: 403 });
        const next = this.script.get(path)?.shift();
        if (next) return new Response("busy", { status: next.status, headers: next.headers });
        if (path === "/files/company_tickers.json")
          return Response.json({ "0": { cik_str: 999999, ticker: "ACME", title: "ACME CORP" } });
        if (path === `/submissions/CIK${FIXTURE_CIK}.json`) return Response.json(fixtureSubmissions(this.restated));
        if (path === `/api/xbrl/companyfacts/CIK${FIXTURE_CIK}.json`)
          return Response.json(fixtureCompanyFacts(this.restated));
        if (path.startsWith("/echo/")) return Response.json({ ok: true });
        return new Response("not found", { status: 404 });
      },
    });
  }

  get base(): string {
    return `http://127.0.0.1:${this.server.port}`;
  }

  client(over: Partial<ConstructorParameters<typeof SecClient>[0]> = {}): SecClient {
    return new SecClient({
      userAgent: UA,
      baseUrl: this.base,
      tickersUrl: `${this.base}/files/company_tickers.json`,
      backoffMs: 20,
      ...over,
    });
  }

  count(prefix: string): number {
    return this.hits.filter((h) => h.path.startsWith(prefix)).length;
  }
}

describe("data.sec.gov client", () => {
  const sec = new FakeSec();
  beforeAll(() => sec.start());
  afterAll(() => sec.server.stop(true));

  test("declares its User-Agent and stays at or under 10 requests per second", async () => {
    const client = sec.client();
    const from = sec.hits.length;
    await Promise.all(Array.from({ length: 15 }, (_, i) => client.getJson(`${sec.base}/echo/${i}`)));
    const hits = sec.hits.slice(from);
    expect(hits).toHaveLength(15);
    // Arrival times at the server can bunch when the machine is loaded, so the per-window
    // rule is proven on the bucket with a controlled clock (token-bucket.test.ts); here the
    // lower bound on the whole run's duration shows the client never went faster.
    expect((hits.at(-1)?.at ?? 0) - (hits[0]?.at ?? 0)).toBeGreaterThanOrEqual(1300);
  });

  test("a request without the declared agent is refused by the SEC; the client refuses to send one", async () => {
    expect((await fetch(`${sec.base}/echo/x`)).status).toBe(403);
    expect(() => new SecClient({ userAgent: "curl/8" })).toThrow(/contact e-mail/);
    expect(() => new SecClient({ userAgent: UA, maxRequestsPerSecond: 20 })).toThrow(/10/);
  });

  test("retries 5xx with backoff, honours Retry-After on 429, gives up on 404", async () => {
    sec.script.set("/echo/flaky", [{ status: 503 }, { status: 502 }]);
    expect((await sec.client().getJson(`${sec.base}/echo/flaky`)).json).toEqual({ ok: true });
    expect(sec.count("/echo/flaky")).toBe(3);

    sec.script.set("/echo/slow", [{ status: 429, headers: { "retry-after": "1" } }]);
    const t0 = performance.now();
    await sec.client().getJson(`${sec.base}/echo/slow`);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(950);

    const err = await sec
      .client()
      .getJson(`${sec.base}/missing`)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SecHttpError);
    expect((err as SecHttpError).status).toBe(404);
    expect(sec.count("/missing")).toBe(1);

    sec.script.set("/echo/down", [{ status: 503 }, { status: 503 }, { status: 503 }]);
    await expect(sec.client({ retries: 2 }).getJson(`${sec.base}/echo/down`)).rejects.toThrow(/503/);
  });

  test("online refresh is incremental: an unchanged filing list skips the companyfacts download", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cairn-sec-online-"));
    const sql = new SqliteClient(join(dir, "financials.sqlite"));
    try {
      await migrate(sql, FINANCIALS_MIGRATIONS);
      const store = new SqlFinancialsStore(sql);
      const facts = `/api/xbrl/companyfacts/CIK${FIXTURE_CIK}.json`;
      const first = await ingestSecOnline(sec.client(), store, ["999999"]);
      expect(first.errors).toEqual([]);
      expect(first.companyfacts[0]?.status).toBe("ingested");
      expect(sec.count(facts)).toBe(1);

      const second = await ingestSecOnline(sec.client(), store, ["999999"]);
      expect(second.companyfacts[0]?.status).toBe("unchanged");
      expect(sec.count(facts)).toBe(1);

      sec.restated = true; // the company files its next 10-K
      const third = await ingestSecOnline(sec.client(), store, ["999999"]);
      expect(third.companyfacts[0]?.status).toBe("ingested");
      expect(sec.count(facts)).toBe(2);
      const [fy] = await store.income(FIXTURE_CIK, { limit: 1, fiscal_year: 2022, period: "FY" });
      expect(fy?.revenue).toBe(470);
    } finally {
      await sql.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
