/**
 * The dashboard's editor in a real browser: two browser contexts edit one document through
 * our collaboration room and see each other's text and named carets; a viewer's editor is
 * read-only and what they type reaches nobody; the document list shows the document.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser, Page } from "playwright-core";
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

describe.skipIf(!browserAvailable())("dashboard: collaborative editor", () => {
  let svc: TestService;
  let served: Served;
  let browser: Browser;
  let docId: string;
  const jwt: Record<string, string> = {};
  const key: Record<string, string> = {};
  const requests: { method: string; url: string }[] = [];

  beforeAll(async () => {
    svc = await startTestService();
    served = serve(svc.service);
    browser = await launchBrowser();
    // Tenant roles: creating needs editor or owner, writing needs editor; viewers only read.
    await svc.user("owner@ed.test", "pro", ["owner"]);
    await svc.user("editor@ed.test", "pro", ["editor"]);
    for (const who of ["owner", "editor", "viewer"]) {
      jwt[who] = await svc.token(`${who}@ed.test`, "pro");
      key[who] = await svc.apiKey(`${who}@ed.test`, "pro");
    }
    // The editor's routes take the API key and the JWT together.
    const auth = (who: string) => ({
      authorization: `Bearer ${jwt[who]}`,
      "x-api-key": key[who] as string,
      "content-type": "application/json",
    });
    const res = await svc.request("/v1/editor/documents", {
      method: "POST",
      headers: auth("owner"),
      body: JSON.stringify({ title: "Deal memo" }),
    });
    expect(`${res.status} ${await res.clone().text()}`).toStartWith("201");
    docId = ((await res.json()) as { doc_id: string }).doc_id;
    for (const role of ["editor", "viewer"]) {
      const u = await svc.user(`${role}@ed.test`);
      const put = await svc.request(`/v1/editor/documents/${docId}/members/${u.id}`, {
        method: "PUT",
        headers: auth("owner"),
        body: JSON.stringify({ role }),
      });
      expect(`${put.status} ${await put.text()}`).toStartWith("200");
    }
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await served?.stop();
    await svc?.close();
  });

  async function openDoc(who: string): Promise<Page> {
    const ctx = await signedInContext(browser, { jwt: jwt[who] as string, apiKey: key[who] as string });
    const page = await ctx.newPage();
    recordRequests(page, requests);
    await openPage(page, served.url, `editor/${docId}`);
    await page.waitForFunction(() => document.querySelector("[data-testid=connection]")?.textContent === "connected");
    await page.waitForSelector(".ProseMirror");
    return page;
  }
  /** The document's text without the other users' caret labels (widgets inside the text). */
  const text = (p: Page) =>
    p.evaluate(() => {
      const copy = document.querySelector(".ProseMirror")?.cloneNode(true) as HTMLElement;
      for (const c of Array.from(copy.querySelectorAll(".ProseMirror-yjs-cursor"))) c.remove();
      return copy.textContent ?? "";
    });
  const caretLabels = (p: Page) =>
    p.evaluate(() =>
      Array.from(document.querySelectorAll(".ProseMirror-yjs-cursor")).map((c) =>
        (c.textContent ?? "").replace(/\u2060/g, ""),
      ),
    );

  test("two contexts see each other's text and named carets", async () => {
    const a = await openDoc("owner");
    const b = await openDoc("editor");
    await a.click(".ProseMirror");
    await a.keyboard.type("Alpha from the owner.");
    await b.waitForFunction(() =>
      document.querySelector(".ProseMirror")?.textContent?.includes("Alpha from the owner."),
    );
    await b.click(".ProseMirror");
    await b.keyboard.press("End");
    await b.keyboard.type(" Beta from the editor.");
    await a.waitForFunction(() =>
      document.querySelector(".ProseMirror")?.textContent?.includes("Beta from the editor."),
    );
    expect(await text(a)).toContain("Alpha from the owner. Beta from the editor.");
    // Each sees the other's caret, labelled with the other's email.
    await a.waitForSelector(".ProseMirror-yjs-cursor");
    await b.waitForSelector(".ProseMirror-yjs-cursor");
    expect(await caretLabels(a)).toEqual(["editor@ed.test"]);
    expect(await caretLabels(b)).toEqual(["owner@ed.test"]);
    expect(await a.textContent("[data-testid=mode]")).toBe("editing");
    await screenshot(a, "editor");
    expect(await unlabelledControls(a)).toEqual([]);
    await a.context().close();
    await b.context().close();
  });

  test("a viewer's editor is read-only and their keystrokes change nothing", async () => {
    const v = await openDoc("viewer");
    await v.waitForFunction(() =>
      document.querySelector(".ProseMirror")?.textContent?.includes("Beta from the editor."),
    );
    expect(await v.getAttribute(".ProseMirror", "contenteditable")).toBe("false");
    expect(await v.textContent("[data-testid=mode]")).toBe("read-only");
    const before = await text(v);
    await v.click(".ProseMirror");
    await v.keyboard.type("viewer was here");
    // An editor connected now gets the server's state: the viewer's text is not in it.
    const e = await openDoc("editor");
    await e.waitForFunction(() =>
      document.querySelector(".ProseMirror")?.textContent?.includes("Beta from the editor."),
    );
    expect(await text(e)).not.toContain("viewer was here");
    expect(await text(v)).toBe(before);
    await v.context().close();
    await e.context().close();
  });

  test("the document list shows the document with my role; the requests stayed on the public API", async () => {
    const ctx = await signedInContext(browser, { jwt: jwt.viewer as string, apiKey: key.viewer as string });
    const page = await ctx.newPage();
    recordRequests(page, requests);
    await openPage(page, served.url, "editor");
    const row = page.locator("tr", { hasText: "Deal memo" });
    expect(await row.textContent()).toContain("viewer");
    await screenshot(page, "editor-list");
    expect(await unlabelledControls(page)).toEqual([]);
    await ctx.close();
    const doc = (await (await svc.request("/openapi.json")).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    expect(requests.some((r) => r.url.includes("/v1/editor/collab"))).toBe(true);
    expect(outsideApi(requests, doc, served.url)).toEqual([]);
  });
});
