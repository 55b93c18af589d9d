/**
 * The dashboard's model runs in a real browser: a training started from the Foundry page's
 * form (one algorithm, to keep it short) runs in the real Python lab worker on German credit;
 * the run's detail then shows the per-algorithm leaderboard, the SHAP bar chart and the
 * serving panel (the explanation; deploying without an inference server shows the refusal).
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
import { labWorkerDone, type ModelsFixture, spawnLabWorker, startModelsFixture } from "../foundry-models.ts";
import { type Served, serve } from "../serve.ts";
import { waitFor } from "../wait.ts";

describe.skipIf(!browserAvailable())("dashboard: foundry model runs", () => {
  let fx: ModelsFixture | null = null;
  let served: Served;
  let browser: Browser;

  beforeAll(async () => {
    fx = await startModelsFixture({ CAIRN_FOUNDRY_TRAIN_ALGORITHMS: "LogisticRegression" });
    if (!fx) return;
    served = serve(fx.svc.service);
    browser = await launchBrowser();
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await served?.stop();
    await fx?.close();
  });

  test("train from the form; the run's leaderboard, SHAP chart and serving panel appear", async () => {
    if (!fx) return;
    const f = fx;
    const requests: { method: string; url: string }[] = [];
    const jwt = f.headers.authorization?.replace("Bearer ", "") as string;
    const ctx = await signedInContext(browser, { jwt });
    const page = await ctx.newPage();
    recordRequests(page, requests);
    await openPage(page, served.url, "foundry");
    const form = page.locator("form[aria-label='Train or tune']");
    await form.getByLabel("Dataset").selectOption(f.datasetId);
    await form.getByLabel("Run name").fill("credit from the dashboard");
    await form.getByLabel("Target column").fill("class");
    await form.getByRole("button", { name: "Train" }).click();
    await form.locator(".status", { hasText: "Training started" }).waitFor();

    const worker = labWorkerDone(spawnLabWorker(f.svc, { once: true }), 150_000);
    await waitFor(
      "the run to finish",
      async () => {
        const { models } = (await (await f.get("/v1/foundry/models")).json()) as { models: { status: string }[] };
        return models[0]?.status === "ready" || models[0]?.status === "failed";
      },
      { timeoutMs: 150_000, everyMs: 250 },
    );
    await worker;
    await openPage(page, served.url, "foundry");
    await page.getByRole("button", { name: "credit from the dashboard" }).click();
    await page.waitForSelector("[data-testid=detail] .uplot canvas");
    const board = page.locator("[data-testid=detail] table", {
      has: page.locator("caption", { hasText: "Leaderboard" }),
    });
    expect(await board.locator("tbody tr").allTextContents()).toEqual([expect.stringContaining("LogisticRegression")]);
    expect(await page.textContent("[data-testid=detail] h2")).toContain("ready");
    // The serving panel: the explanation from the stored importances, then a deployment.
    await page.waitForSelector("[data-testid=explain] h4");
    expect(await page.textContent("[data-testid=explain]")).toContain("checking_status");
    // This service has no inference server (MLServer): the deploy refusal is shown from the server.
    await page.getByRole("button", { name: "Deploy" }).click();
    await page.locator("form[aria-label=Deploy] .status", { hasText: "503" }).waitFor();
    expect(await page.textContent("form[aria-label=Deploy] .status")).toContain("No inference server is configured");
    await screenshot(page, "foundry-model");
    expect(await unlabelledControls(page)).toEqual([]);
    await ctx.close();
    const doc = (await (await f.svc.request("/openapi.json")).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    expect(outsideApi(requests, doc, served.url)).toEqual([]);
  }, 200_000);
});
