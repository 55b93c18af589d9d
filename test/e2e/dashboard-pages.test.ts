/**
 * The dashboard's data pages in a real browser, against one service with real engines
 * (the document index, the lakehouse gateway, the SEC fixture ingested): documents
 * (drag-and-drop upload, highlighted search with why a hit is visible, RAG citations, an
 * error next to its field), news (a live article arriving, seq/dropped), data (company,
 * statements, ratios chart, workbook download), admin (tenant provisioning to 9 steps,
 * deactivation), foundry (table, dataset builder, build, preview, lineage).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { ingestSecDirectory } from "../../pipelines/financials/sec/index.ts";
import {
  browserAvailable,
  launchBrowser,
  openPage,
  outsideApi,
  recordRequests,
  screenshot,
  signedInContext,
  unlabelledControls,
} from "../browser.ts";
import { type DocsFixture, startDocsFixture } from "../fixtures/documents-app.ts";
import { type GatewayHandle, startGateway } from "../lakehouse.ts";
import { makeArticle } from "../news-fixtures.ts";
import { FIXTURE_CIK, writeSecFixture } from "../sec-fixture.ts";
import { type Served, serve } from "../serve.ts";
import { waitFor } from "../wait.ts";

describe.skipIf(!browserAvailable())("dashboard: documents, news, data, admin, foundry", () => {
  let gateway: GatewayHandle | undefined;
  let fx: DocsFixture;
  let served: Served;
  let browser: Browser;
  let dir: string;
  let creds: { jwt: string; apiKey: string };
  const requests: { method: string; url: string }[] = [];

  beforeAll(async () => {
    gateway = await startGateway();
    // Test faults on: the admin test fails a provisioning step on purpose.
    fx = await startDocsFixture({ CAIRN_TEST_FAULTS: "1", ...(gateway ? { CAIRN_LAKEHOUSE_URL: gateway.url } : {}) });
    dir = mkdtempSync(join(tmpdir(), "cairn-dash-"));
    await ingestSecDirectory(writeSecFixture(join(dir, "sec")), fx.svc.service.financials, { marketDir: null });
    const analyst = await fx.caller("analyst@dash.test", ["analyst"]);
    creds = { jwt: await fx.svc.token("analyst@dash.test", "enterprise"), apiKey: analyst.key };
    served = serve(fx.svc.service);
    browser = await launchBrowser();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await served?.stop();
    await fx?.svc.close();
    await gateway?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  async function open(route: string): Promise<Page> {
    const ctx = await signedInContext(browser, creds);
    const page = await ctx.newPage();
    recordRequests(page, requests);
    await openPage(page, served.url, route);
    return page;
  }

  test("documents: a dropped file uploads; search highlights it and says why it is visible; RAG cites it", async () => {
    const page = await open("documents");
    // A refused upload: deal_private without its list; the message sits next to that field.
    await page.getByLabel("Visibility").selectOption("deal_private");
    await page.setInputFiles("input[type=file]", {
      name: "x.txt",
      mimeType: "text/plain",
      buffer: Buffer.from("Some text"),
    });
    await page.getByRole("button", { name: "Upload" }).click();
    const idsField = page.getByLabel("Allowed user ids (deal_private, comma-separated)");
    const errId = `${await idsField.getAttribute("id")}-err`;
    await page.waitForFunction((id) => (document.getElementById(id)?.textContent ?? "").length > 0, errId);

    await page.getByLabel("Visibility").selectOption("team_only");
    await page.getByLabel("Allowed roles (team_only, comma-separated)").fill("analyst");
    const text =
      "Project Heron: the target's EBITDA margin expanded to 31 percent after the carve-out of the logistics arm.";
    const dt = await page.evaluateHandle((t) => {
      const d = new DataTransfer();
      d.items.add(new File([t], "heron-memo.txt", { type: "text/plain" }));
      return d;
    }, text);
    await page.dispatchEvent("[data-testid=drop]", "drop", { dataTransfer: dt });
    await page.getByRole("button", { name: "Upload" }).click();
    await page.waitForSelector("text=Indexed heron-memo.txt");
    expect(await page.locator("progress").getAttribute("value")).toBe("100");

    await page.getByRole("searchbox", { name: "Search" }).fill("EBITDA margin carve-out");
    await page.getByRole("button", { name: "Search", exact: true }).click();
    const hit = page.locator("[aria-label='Search results'] li").first();
    await hit.waitFor();
    expect(await hit.locator("mark").allTextContents()).toContain("EBITDA");
    expect(await hit.textContent()).toContain("your role is one of its allowed roles");

    await page.getByLabel("Question").fill("What was Project Heron's EBITDA margin?");
    await page.getByRole("button", { name: "Ask" }).click();
    await page.waitForSelector("[data-testid=answer] ol li");
    expect(await page.textContent("[data-testid=answer]")).toContain("heron-memo.txt");
    await screenshot(page, "documents");
    expect(await unlabelledControls(page)).toEqual([]);
    await page.context().close();
  });

  test("news: a live article matching the filter arrives with its sequence number", async () => {
    const page = await open("news");
    await page.waitForFunction(() => document.querySelector("[data-testid=stream-state]")?.textContent === "live");
    const live = page.locator("form[aria-labelledby=live-h]");
    await live.getByLabel("Tickers (comma-separated)").fill("aapl");
    await live.getByRole("button", { name: "Apply filter" }).click();
    await page.waitForSelector("text=Filter applied");
    await fx.svc.service.newsHub.publish(makeArticle({ title: "Other company news", company_tickers: ["MSFT"] }));
    await fx.svc.service.newsHub.publish(makeArticle({ title: "Apple beats estimates", company_tickers: ["AAPL"] }));
    await page.waitForSelector("[data-testid=live] li");
    expect(await page.locator("[data-testid=live] li").allTextContents()).toEqual([
      expect.stringContaining("Apple beats estimates"),
    ]);
    expect(await page.textContent("[data-testid=counters]")).toBe("seq 1 · dropped 0");
    const pills = await page.locator("[data-testid=live] li .pill").allTextContents();
    expect(pills).toContain("AAPL");
    // History over REST answers too (the hub alone stores nothing: an empty, successful search).
    const hist = page.locator("form[aria-labelledby=hist-h]");
    await hist.getByRole("button", { name: "Search" }).click();
    await hist.locator(".status", { hasText: "articles" }).waitFor();
    await screenshot(page, "news");
    expect(await unlabelledControls(page)).toEqual([]);
    await page.context().close();
  });

  test("data: company, statements, ratios chart, and the workbook download", async () => {
    const page = await open(`data/${FIXTURE_CIK}`);
    await page.getByRole("button", { name: "Show" }).click();
    await page.waitForSelector(".uplot canvas");
    expect(await page.textContent("main h2")).toContain("ACME");
    expect(await page.locator("main table tbody tr").count()).toBeGreaterThan(0);
    const [download] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("button", { name: "Download workbook (.xlsx)" }).click(),
    ]);
    expect(download.suggestedFilename()).toBe(`financials-${FIXTURE_CIK}.xlsx`);
    const bytes = await Bun.file((await download.path()) as string).bytes();
    expect(String.fromCharCode(bytes[0] as number, bytes[1] as number)).toBe("PK"); // a zip: xlsx
    await screenshot(page, "data");
    expect(await unlabelledControls(page)).toEqual([]);
    await page.context().close();
  });

  test("admin: a tenant provisions through its 9 steps live and is deactivated; a failed step shows its error and resumes", async () => {
    const page = await open("admin");
    await page.getByLabel("Admin key").fill(fx.svc.service.secrets.adminApiKey);
    await page.getByRole("button", { name: "Use key" }).click();
    await page.waitForSelector("table:has(caption:text('Tenants'))");
    const slug = `dash-${crypto.randomUUID().slice(0, 6)}`;
    await page.getByLabel("Slug").fill(slug);
    await page.getByLabel("Display name").fill("Dash Capital");
    await page.getByLabel("Admin email (optional)").fill("admin@dash-capital.test");
    await page.getByRole("button", { name: "Create / resume" }).click();
    await page.waitForSelector(`text=Provisioning ${slug}: active`, { timeout: 45_000 });
    expect(await page.locator("[data-testid=steps] li").count()).toBe(9);
    expect(await page.locator("[data-testid=steps] li.completed").count()).toBe(9);
    expect(await page.textContent("[data-testid=lake-health]")).toContain("status:");
    await screenshot(page, "admin");
    expect(await unlabelledControls(page)).toEqual([]);
    page.once("dialog", (d) => void d.accept());
    await page.getByRole("button", { name: `Deactivate ${slug}` }).click();
    await page.waitForFunction((s) => {
      const row = Array.from(document.querySelectorAll("tr")).find((r) => r.textContent?.startsWith(s));
      return row?.children[4]?.textContent === "no";
    }, slug);

    // A step that fails: the failed step and the error are shown; Resume finishes the pipeline.
    const broken = `dash-${crypto.randomUUID().slice(0, 6)}`;
    fx.svc.service.faults.set("step_4", "fail");
    await page.getByLabel("Slug").fill(broken);
    await page.getByLabel("Display name").fill("Broken Capital");
    await page.getByRole("button", { name: "Create / resume" }).click();
    await page.waitForSelector(`text=Provisioning ${broken}: failed`, { timeout: 45_000 });
    expect(await page.locator("[data-testid=steps] li.failed").count()).toBe(1);
    expect(await page.textContent("p.error[role=alert]")).toContain("injected fault");
    await screenshot(page, "admin-failed");
    expect(await unlabelledControls(page)).toEqual([]);
    await page.getByRole("button", { name: `Resume ${broken}` }).click();
    await page.waitForSelector(`text=Provisioning ${broken}: active`, { timeout: 45_000 });
    expect(await page.locator("[data-testid=steps] li.completed").count()).toBe(9);
    await page.context().close();
  }, 90_000);

  test("foundry: a dataset built from a table in the builder form, previewed with its lineage; an agent created, paused, resumed", async () => {
    if (!gateway) return;
    const fd = new FormData();
    fd.append("name", "dash_prices");
    fd.append("file", new Blob(["ticker,close\nAAPL,10\nMSFT,20\nACME,30\n"]), "prices.csv");
    const up = await fx.svc.request("/v1/foundry/tables", {
      method: "POST",
      headers: { authorization: `Bearer ${creds.jwt}` },
      body: fd,
    });
    expect(up.status).toBe(200);
    const page = await open("foundry");
    await page.getByLabel("Dataset name").fill("big closes");
    await page.getByLabel("Source table").selectOption("dash_prices");
    await page.getByLabel("Filter column (optional)").fill("close");
    await page.getByLabel("Operator").selectOption(">=");
    await page.getByLabel("Value").fill("20");
    await page.getByRole("button", { name: "Create dataset" }).click();
    await page.getByRole("button", { name: "Build big closes" }).click();
    await page.locator("tr", { hasText: "big closes" }).getByText("building").waitFor();
    // The build is asynchronous: wait for it over the API, then reload the page once.
    await waitFor(
      "the dataset to be built",
      async () => {
        const res = await fx.svc.request("/v1/foundry/datasets", { headers: { authorization: `Bearer ${creds.jwt}` } });
        const { datasets } = (await res.json()) as { datasets: { name: string; status: string }[] };
        return datasets.find((d) => d.name === "big closes")?.status === "ready";
      },
      { timeoutMs: 40_000, everyMs: 250 },
    );
    await openPage(page, served.url, "foundry");
    expect(await page.locator("tr", { hasText: "big closes" }).textContent()).toContain("ready");
    await page.getByRole("button", { name: "Preview big closes" }).click();
    await page.waitForSelector("[data-testid=detail] table");
    const detail = await page.textContent("[data-testid=detail]");
    expect(detail).toContain("dash_prices as s");
    expect(detail).toContain("s.close >= 20");
    expect(await page.locator("[data-testid=detail] tbody tr").count()).toBe(2);
    // Agents: create one, pause it, resume it.
    const agents = page.locator("[data-testid=agents]");
    await agents.getByLabel("Agent name").fill("closing watch");
    await agents.getByLabel("Type").selectOption("predict");
    await agents.getByRole("button", { name: "Create agent" }).click();
    const row = agents.locator("tr", { hasText: "closing watch" });
    await row.waitFor();
    expect(await row.locator("td").nth(2).textContent()).toBe("active");
    await agents.getByRole("button", { name: "pause closing watch" }).click();
    await agents.getByRole("button", { name: "resume closing watch" }).waitFor();
    expect(await row.locator("td").nth(2).textContent()).toBe("paused");
    await agents.getByRole("button", { name: "resume closing watch" }).click();
    await agents.getByRole("button", { name: "pause closing watch" }).waitFor();
    await screenshot(page, "foundry");
    expect(await unlabelledControls(page)).toEqual([]);
    await page.context().close();
  }, 60_000);

  test("every request these pages made is an /openapi.json operation or a documented WebSocket", async () => {
    const doc = (await (await fx.svc.request("/openapi.json")).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    expect(requests.some((r) => r.url.includes("/v1/news/stream"))).toBe(true);
    expect(outsideApi(requests, doc, served.url)).toEqual([]);
  });
});
