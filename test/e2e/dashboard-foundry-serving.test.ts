/**
 * The dashboard's serving flow in a real browser, with a real inference server (issue 19, page
 * 8): MLServer (lab/.venv-serve) on a model repository, German credit trained by the lab worker
 * (LogisticRegression only), then from the run's serving panel: deploy (the page shows
 * `deploying`, polls, then `active`), predict 20 rows (label and score), the threshold slider
 * moved to the server's suggestion for f1 and set (a row whose score lies between the old and
 * the new threshold changes label), drift "insufficient data" (40 logged predictions < 50), and
 * a predict agent created for the deployment's registry id, run from the page, paused (its run
 * refused) and resumed.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { GERMAN_CREDIT_COLUMNS } from "../../cli/foundry-demo.ts";
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
import { LAB_PYTHON } from "../lakehouse.ts";
import { type Served, serve } from "../serve.ts";
import { type MlserverHandle, SERVE_PYTHON, startMlserver } from "../serving.ts";

const ROOT = join(import.meta.dir, "..", "..");
const venvs = existsSync(LAB_PYTHON) && existsSync(SERVE_PYTHON);
if (!venvs && process.env.CI) throw new Error("the lab venvs (lab/.venv, lab/.venv-serve) must exist under CI");

type Row = Record<string, string | number>;

/** Every 50th row of German credit (20 rows) as the API takes them: numbers for numeric features. */
function sampleRows(numeric: Set<string>): Row[] {
  const lines = readFileSync(join(ROOT, "fixtures/ml/german_credit.csv"), "utf8").trim().split("\n");
  return lines
    .filter((_, i) => i % 50 === 0)
    .map((line) => {
      const cells = line.split(",");
      const row: Row = {};
      GERMAN_CREDIT_COLUMNS.forEach((c, i) => {
        if (c !== "class") row[c] = numeric.has(c) ? Number(cells[i]) : (cells[i] as string);
      });
      return row;
    });
}

/** A rendered table as objects keyed by its header cells. */
async function tableRows(page: Page, selector: string): Promise<Record<string, string>[]> {
  return page.locator(selector).evaluate((t) => {
    const heads = Array.from(t.querySelectorAll("thead th")).map((th) => th.textContent ?? "");
    return Array.from(t.querySelectorAll("tbody tr")).map((tr) =>
      Object.fromEntries(Array.from(tr.querySelectorAll("td")).map((td, i) => [heads[i], td.textContent ?? ""])),
    );
  });
}

describe.skipIf(!browserAvailable() || !venvs)("dashboard: foundry serving with MLServer", () => {
  const repository = mkdtempSync(join(tmpdir(), "cairn-mlserver-"));
  let ml: MlserverHandle | undefined;
  let fx: ModelsFixture | null = null;
  let served: Served;
  let browser: Browser;
  let rows: Row[] = [];

  beforeAll(async () => {
    ml = await startMlserver(repository);
    if (!ml) return;
    fx = await startModelsFixture({ CAIRN_FOUNDRY_TRAIN_ALGORITHMS: "LogisticRegression", ...ml.env });
    if (!fx) return;
    const res = await fx.post("/v1/foundry/models/train", {
      dataset_id: fx.datasetId,
      name: "credit served",
      target_column: "class",
    });
    const { id } = (await res.json()) as { id: string };
    await labWorkerDone(spawnLabWorker(fx.svc, { once: true }), 150_000);
    const model = (await (await fx.get(`/v1/foundry/models/${id}`)).json()) as {
      status: string;
      error: string | null;
      result: { feature_kinds: { numeric: string[] } };
    };
    if (model.status !== "ready") throw new Error(`training ended ${model.status}: ${model.error}`);
    rows = sampleRows(new Set(model.result.feature_kinds.numeric));
    served = serve(fx.svc.service);
    browser = await launchBrowser();
  }, 300_000);
  afterAll(async () => {
    await browser?.close();
    await served?.stop();
    await fx?.close();
    await ml?.stop();
    rmSync(repository, { recursive: true, force: true });
  });

  test("deploy, predict, threshold, drift and an agent, all from the page", async () => {
    if (!fx) return;
    const f = fx;
    const requests: { method: string; url: string }[] = [];
    const jwt = f.headers.authorization?.replace("Bearer ", "") as string;
    const ctx = await signedInContext(browser, { jwt });
    const page = await ctx.newPage();
    recordRequests(page, requests);
    await openPage(page, served.url, "foundry");
    await page.getByRole("button", { name: "credit served" }).click();
    const panel = page.locator("[data-testid=serving]");
    await panel.locator("form[aria-label=Deploy]").waitFor();

    // Deploy: the page shows the 202's `deploying`, polls, then shows `active` with the forms.
    await panel.getByLabel("Deployment name").fill("credit-served");
    // Every status the panel renders, seen by a MutationObserver (a fast load must not make the
    // check miss `deploying`, which is on screen for about one poll).
    await panel.evaluate((sec) => {
      const seen: string[] = [];
      (window as unknown as { seen: string[] }).seen = seen;
      new MutationObserver(() => {
        const s = sec.querySelector("[data-testid=deployment-status]")?.textContent;
        if (s && seen[seen.length - 1] !== s) seen.push(s);
      }).observe(sec, { childList: true, subtree: true });
    });
    await panel.getByRole("button", { name: "Deploy" }).click();
    await panel.locator("[data-testid=deployment-status].active").waitFor({ timeout: 120_000 });
    expect(await page.evaluate(() => (window as unknown as { seen: string[] }).seen)).toEqual(["deploying", "active"]);
    const registryId = (await panel.locator("[data-testid=registry-id]").textContent()) as string;
    const dep = (await (await f.get(`/v1/foundry/models/${registryId}/deployment`)).json()) as Record<string, unknown>;
    expect(dep).toMatchObject({ model_name: "credit-served", status: "active", threshold: 0.5, version: 1 });

    // The predict form starts from a template row of the model's feature columns.
    const template = JSON.parse(await panel.getByLabel("Rows (JSON array of objects)").inputValue()) as Record<
      string,
      unknown
    >[];
    expect(Object.keys(template[0] ?? {}).sort()).toEqual(Object.keys(rows[0] ?? {}).sort());

    // Predict: one answer per row, each with a label (score ≥ 0.5) and a score.
    const predictRows = async () => {
      const form = panel.locator("form[aria-label=Predict]");
      await form.getByLabel("Rows (JSON array of objects)").fill(JSON.stringify(rows));
      await form.getByRole("button", { name: "Predict" }).click();
      await form.locator(".status", { hasText: `${rows.length} predictions` }).waitFor();
      return (await tableRows(page, "[data-testid=predictions] table")).map((r) => ({
        label: Number(r.label),
        score: Number(r.score),
      }));
    };
    const before = await predictRows();
    expect(before).toHaveLength(rows.length);
    for (const p of before) {
      expect(p.score).toBeGreaterThanOrEqual(0);
      expect(p.score).toBeLessThanOrEqual(1);
      expect(p.label).toBe(p.score >= 0.5 ? 1 : 0);
    }

    // Threshold: "Suggest" moves the slider to the server's best value for f1 on validation data.
    const th = panel.locator("form[aria-label=Threshold]");
    await th.getByLabel("Suggest by metric").selectOption("f1");
    await th.getByRole("button", { name: "Suggest" }).click();
    await th.locator("[data-testid=threshold-suggestion]", { hasText: "Suggested for f1" }).waitFor();
    const suggested = Number(await th.getByLabel("Decision threshold").inputValue());
    const best = (await (
      await f.post(`/v1/foundry/models/${registryId}/threshold`, { threshold: 0.5, threshold_metric: "f1" })
    ).json()) as { best_threshold: { threshold: number } };
    expect(suggested).toBe(best.best_threshold.threshold);
    expect(await th.locator("[data-testid=threshold-value]").textContent()).toBe(String(suggested));
    const [lo, hi] = suggested < 0.5 ? [suggested, 0.5] : [0.5, suggested];
    const between = before.findIndex((p) => p.score >= lo && p.score < hi);
    expect(between).toBeGreaterThanOrEqual(0); // a row whose label the new threshold flips
    await th.getByRole("button", { name: "Set threshold" }).click();
    await panel.locator("[data-testid=deployment]", { hasText: `threshold ${suggested}` }).waitFor();
    const after = await predictRows();
    expect(after.map((p) => p.score)).toEqual(before.map((p) => p.score));
    expect(after[between]?.label).toBe(1 - (before[between]?.label as number));
    for (const p of after) expect(p.label).toBe(p.score >= suggested ? 1 : 0);

    // Drift: 40 logged predictions, fewer than the 50 PSI needs.
    await panel.getByRole("button", { name: "Check drift" }).click();
    const drift = panel.locator("[data-testid=drift] p", { hasText: "insufficient data" });
    await drift.waitFor();
    expect(await drift.textContent()).toContain(`(${2 * rows.length} predictions)`);
    await screenshot(page, "foundry-serving");

    // An agent for this deployment (registry id): created, run from the page, paused, resumed.
    const agents = page.locator("[data-testid=agents]");
    const create = agents.locator("form[aria-label='Create an agent']");
    await create.getByLabel("Agent name").fill("credit predictor");
    await create.getByLabel("Type").selectOption("predict");
    await create.getByLabel("Deployed model (registry id)").fill(registryId);
    await create.getByRole("button", { name: "Create agent" }).click();
    await agents.locator("tbody tr", { hasText: "credit predictor" }).waitFor();
    const runAgent = async () => {
      await agents.getByRole("button", { name: "Run credit predictor" }).click();
      const form = agents.locator("form[aria-label='Run agent credit predictor']");
      await form.getByLabel("Rows to score (JSON array of objects)").fill(JSON.stringify(rows.slice(0, 2)));
      await form.getByRole("button", { name: "Run now" }).click();
      await form.locator(".status", { hasText: /Done|409/ }).waitFor();
      return form;
    };
    let form = await runAgent();
    const answered = await tableRows(page, "[data-testid=agent-result] table");
    expect(answered.map((r) => Number(r.score))).toEqual(after.slice(0, 2).map((p) => p.score));
    expect(answered.map((r) => Number(r.label))).toEqual(after.slice(0, 2).map((p) => p.label));
    expect(await form.locator("caption").textContent()).toContain("2 predictions (call count 1)");
    expect(
      await agents
        .locator("tbody tr", { hasText: "credit predictor" })
        .locator("[data-testid=agent-calls]")
        .textContent(),
    ).toBe("1");
    await screenshot(page, "foundry-agent-run");

    await agents.getByRole("button", { name: "pause credit predictor" }).click();
    await agents.getByRole("button", { name: "resume credit predictor" }).waitFor();
    expect(await agents.locator("tbody tr", { hasText: "credit predictor" }).textContent()).toContain("paused");
    form = await runAgent();
    expect(await form.locator(".status").textContent()).toContain("409");
    await agents.getByRole("button", { name: "resume credit predictor" }).click();
    await agents.getByRole("button", { name: "pause credit predictor" }).waitFor();
    form = await runAgent();
    expect(await form.locator("caption").textContent()).toContain("2 predictions (call count 2)");

    expect(await unlabelledControls(page)).toEqual([]);
    await ctx.close();
    const doc = (await (await f.svc.request("/openapi.json")).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    expect(outsideApi(requests, doc, served.url)).toEqual([]);
  }, 300_000);
});
