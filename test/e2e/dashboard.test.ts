/**
 * The dashboard in a real browser (Debian's Chromium): sign-in with a JWT, the account page
 * (profile, limits, usage chart, API keys: created once-shown, the tier cap shown from the
 * server, revoke, a revoked key refused), sign-out revoking the session key, phone width,
 * and every request the pages made being an operation of /openapi.json.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser } from "playwright-core";
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
import { startTestService, type TestService } from "../harness.ts";
import { type Served, serve } from "../serve.ts";

describe.skipIf(!browserAvailable())("dashboard: sign-in and account", () => {
  let svc: TestService;
  let served: Served;
  let browser: Browser;
  const requests: { method: string; url: string }[] = [];

  beforeAll(async () => {
    svc = await startTestService();
    served = serve(svc.service);
    browser = await launchBrowser();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await served?.stop();
    await svc?.close();
  });

  test("sign in with a pasted JWT, see the profile and limits, create a key once-shown, revoke it; it is refused", async () => {
    const jwt = await svc.token("pro@dash.test", "pro");
    const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await ctx.newPage();
    recordRequests(page, requests);
    await page.goto(`${served.url}/app/`);
    await page.getByLabel("Access token (JWT)").fill(jwt);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForSelector("[data-testid=email]");
    expect(await page.textContent("[data-testid=email]")).toBe("pro@dash.test");
    expect(await page.textContent("main")).toContain("req per day");
    await page.waitForSelector(".uplot canvas");
    // The session key the dashboard made for itself is listed as such.
    expect(await page.textContent("table:has(caption:text('Your API keys'))")).toContain(
      "dashboard session (this session)",
    );

    await page.getByLabel("Label").fill("ci robot");
    await page.getByRole("button", { name: "Create key" }).click();
    const key = (await page.waitForSelector("[data-testid=new-key]")).textContent();
    const plaintext = (await key) ?? "";
    expect(plaintext.length).toBeGreaterThan(20);
    const news = (k: string) => svc.request("/v1/news?limit=1", { headers: { "x-api-key": k } });
    expect((await news(plaintext)).status).toBe(200);
    await screenshot(page, "account");
    expect(await unlabelledControls(page)).toEqual([]);

    page.once("dialog", (d) => void d.accept());
    await page.getByRole("button", { name: "Revoke ci robot" }).click();
    await page.waitForFunction(() => !document.body.textContent?.includes("ci robot"));
    expect((await news(plaintext)).status).toBe(401);
    await ctx.close();
  });

  test("the tier's key cap is shown next to the label field, from the server", async () => {
    // Free tier: one key, which the sign-in's session key already uses.
    const jwt = await svc.token("free@dash.test", "free");
    const ctx = await browser.newContext();
    const page = await ctx.newPage();
    recordRequests(page, requests);
    await page.goto(`${served.url}/app/#/signin`);
    await page.getByLabel("Access token (JWT)").fill(jwt);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForSelector("[data-testid=email]");
    await page.getByLabel("Label").fill("second");
    await page.getByRole("button", { name: "Create key" }).click();
    const errId = `${await page.getByLabel("Label").getAttribute("id")}-err`;
    await page.waitForFunction((id) => (document.getElementById(id)?.textContent ?? "").length > 0, errId);
    const err = page.locator(`#${errId}`);
    expect((await err.textContent())?.toLowerCase()).toContain("limit");
    await ctx.close();
  });

  test("sign-out revokes the session key; a bad token is refused next to the field", async () => {
    const jwt = await svc.token("out@dash.test", "pro");
    const ctx = await browser.newContext();
    const page = await ctx.newPage();
    recordRequests(page, requests);
    await page.goto(`${served.url}/app/#/signin`);
    await page.getByLabel("Access token (JWT)").fill("not-a-jwt");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForFunction(() => (document.querySelector(".field-error")?.textContent ?? "").length > 0);
    await page.getByLabel("Access token (JWT)").fill(jwt);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForSelector("[data-testid=email]");
    const stored = await page.evaluate(() => JSON.parse(sessionStorage.getItem("cairn.session") ?? "{}"));
    expect((await svc.request("/v1/news?limit=1", { headers: { "x-api-key": stored.apiKey } })).status).toBe(200);
    await page.goto(`${served.url}/app/#/signin`);
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.waitForSelector("text=Paste a user access token");
    expect(await page.evaluate(() => sessionStorage.getItem("cairn.session"))).toBeNull();
    expect((await svc.request("/v1/news?limit=1", { headers: { "x-api-key": stored.apiKey } })).status).toBe(401);
    await screenshot(page, "signin");
    expect(await unlabelledControls(page)).toEqual([]);
    await ctx.close();
  });

  test("keyboard only: tab to the token field, type it, tab to the button, press Enter", async () => {
    const jwt = await svc.token("keys@dash.test", "pro");
    const ctx = await browser.newContext();
    const page = await ctx.newPage();
    recordRequests(page, requests);
    await page.goto(`${served.url}/app/#/signin`);
    await page.waitForSelector("main[data-ready=true]");
    const focused = () => page.evaluate(() => (document.activeElement as HTMLElement | null)?.getAttribute("name"));
    for (let i = 0; i < 20 && (await focused()) !== "jwt"; i++) await page.keyboard.press("Tab");
    expect(await focused()).toBe("jwt");
    await page.keyboard.insertText(jwt);
    await page.keyboard.press("Tab"); // the optional API key field
    await page.keyboard.press("Tab"); // the Sign in button
    await page.keyboard.press("Enter");
    await page.waitForSelector("[data-testid=email]");
    expect(await page.textContent("[data-testid=email]")).toBe("keys@dash.test");
    await ctx.close();
  });

  test("usable at phone width: the account page fits without horizontal scrolling", async () => {
    const jwt = await svc.token("phone@dash.test", "pro");
    const ctx = await signedInContext(browser, { jwt }, { width: 390, height: 844 });
    const page = await ctx.newPage();
    recordRequests(page, requests);
    await openPage(page, served.url, "account");
    const overflow = await page.evaluate(
      () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
    );
    expect(overflow).toBeLessThanOrEqual(0);
    await screenshot(page, "account-phone");
    expect(await unlabelledControls(page)).toEqual([]);
    await ctx.close();
  });

  test("/app serves the page and its hashed assets, gzip-compressed when asked; unknown assets are 404", async () => {
    const html = await (await fetch(`${served.url}/app/`)).text();
    const entry = html.match(/src="(\/app\/assets\/main-[a-z0-9]+\.js)"/)?.[1] as string;
    expect(entry).toBeString();
    const plain = await fetch(`${served.url}${entry}`, { headers: { "accept-encoding": "identity" } });
    const zipped = await fetch(`${served.url}${entry}`, { headers: { "accept-encoding": "gzip" } });
    expect(plain.headers.get("content-encoding")).toBeNull();
    expect(zipped.headers.get("content-encoding")).toBe("gzip");
    expect(zipped.headers.get("cache-control")).toContain("immutable");
    expect(await zipped.text()).toBe(await plain.text()); // fetch decompresses
    expect((await fetch(`${served.url}/app/assets/nope.js`)).status).toBe(404);
  });

  test("every request the pages made is an /openapi.json operation or a documented WebSocket", async () => {
    const doc = (await (await svc.request("/openapi.json")).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    expect(requests.length).toBeGreaterThan(10);
    expect(outsideApi(requests, doc, served.url)).toEqual([]);
  });
});
