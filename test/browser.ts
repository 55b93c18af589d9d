/**
 * Browser tests of the dashboard: Debian's Chromium (/usr/bin/chromium, the flags of
 * ../shared/design/ENGINES.md) driven by playwright-core. Under CI a missing Chromium
 * fails the suite; locally it is skipped with a loud note (the pattern of test/engines.ts).
 */
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";

export const CHROMIUM = process.env.CAIRN_TEST_CHROMIUM ?? "/usr/bin/chromium";
const FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"];

/** True when the browser suites can run; throws under CI when Chromium is missing. */
export function browserAvailable(): boolean {
  if (existsSync(CHROMIUM)) return true;
  if (process.env.CI)
    throw new Error(
      `${CHROMIUM} is missing: the dashboard suites must run under CI (scripts/test.sh installs chromium)`,
    );
  process.stderr.write(`[skip] dashboard browser suites: ${CHROMIUM} is missing (apt-get install chromium)\n`);
  return false;
}

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: FLAGS, headless: true });
}

/** Screenshots land here (git-ignored), one per page. */
export const SHOTS = join(import.meta.dir, "..", ".dashboard-shots");

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
}

/** A context whose tab already holds a session (skips the sign-in form). */
export async function signedInContext(
  browser: Browser,
  creds: { jwt: string; apiKey?: string | null; apiKeyId?: string | null },
  viewport = { width: 1280, height: 900 },
): Promise<BrowserContext> {
  const ctx = await browser.newContext({ viewport });
  const value = JSON.stringify({ jwt: creds.jwt, apiKey: creds.apiKey ?? null, apiKeyId: creds.apiKeyId ?? null });
  await ctx.addInitScript((v) => {
    if (!sessionStorage.getItem("cairn.session")) sessionStorage.setItem("cairn.session", v);
  }, value);
  return ctx;
}

/** Every request a page makes (method and path), for the API-surface check. */
export function recordRequests(page: Page, into: { method: string; url: string }[]): void {
  page.on("request", (r) => into.push({ method: r.method(), url: r.url() }));
  // WebSocket handshakes are not "request" events in Playwright.
  page.on("websocket", (ws) => into.push({ method: "GET", url: ws.url() }));
}

/** Opens a dashboard page and waits until it has rendered (main[data-ready]). */
export async function openPage(page: Page, base: string, route: string): Promise<void> {
  const target = `${base}/app/#/${route}`;
  // goto to the same URL with a hash is a no-op; reload then, so the page renders afresh.
  if (page.url() === target) await page.reload();
  else await page.goto(target);
  await page.waitForSelector("main[data-ready=true]", { timeout: 20_000 });
}

/** The WebSockets the dashboard may open (documented in docs/dashboard.md and the API docs). */
export const DOCUMENTED_SOCKETS = ["/v1/news/stream", "/v1/editor/collab"];

/**
 * The requests that are neither the dashboard's own files (/app...) nor an operation of
 * /openapi.json nor a documented WebSocket: what the surface test expects to be empty.
 */
export function outsideApi(
  requests: { method: string; url: string }[],
  openapi: { paths: Record<string, Record<string, unknown>> },
  base: string,
): string[] {
  const ops = Object.entries(openapi.paths).flatMap(([p, methods]) =>
    Object.keys(methods).map((m) => ({
      method: m.toUpperCase(),
      re: new RegExp(`^${p.replace(/\{[^}]+\}/g, "[^/]+")}$`),
    })),
  );
  const bad: string[] = [];
  for (const r of requests) {
    if (r.url.startsWith("data:") || r.url.startsWith("blob:")) continue;
    const u = new URL(r.url.replace(/^ws/, "http"));
    if (`${u.protocol}//${u.host}` !== base) {
      bad.push(`${r.method} ${r.url} (another origin)`);
      continue;
    }
    if (u.pathname === "/app" || u.pathname === "/app/" || u.pathname.startsWith("/app/assets/")) continue;
    if (DOCUMENTED_SOCKETS.some((s) => u.pathname === s || u.pathname.startsWith(`${s}/`))) continue;
    if (!ops.some((o) => o.method === r.method && o.re.test(u.pathname))) bad.push(`${r.method} ${u.pathname}`);
  }
  return bad;
}

/** Form controls with no accessible name (no <label>, aria-label or aria-labelledby): should be none. */
export function unlabelledControls(page: Page): Promise<string[]> {
  return page.evaluate(() =>
    Array.from(document.querySelectorAll<HTMLInputElement>("input, select, textarea"))
      .filter((el) => el.type !== "hidden" && el.labels?.length === 0)
      .filter((el) => !el.getAttribute("aria-label") && !el.getAttribute("aria-labelledby"))
      .map((el) => el.outerHTML.slice(0, 120)),
  );
}
