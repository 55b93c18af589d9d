/**
 * The embedder's pool of model processes and its int8 weights (issue 20): int8 vectors agree
 * with fp32 ones and are keyed apart from them; a pool of processes gives the vectors of one
 * process, uses every process, and a crash in one fails only that process's batches.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { installedModelsDir } from "../../test/embedding-models.ts";
import { componentFiles, EMBEDDING_MODELS } from "./models.ts";
import { OnnxEmbedder } from "./onnx.ts";
import { dot, e5Embedder, PASSAGES as SHARED } from "./test-support.ts";

const PAIR = EMBEDDING_MODELS["bge-small-en-v1.5+e5-small-v2"];
const base = installedModelsDir(["bge-small-en-v1.5", "e5-small-v2"], "embedding pool");
function int8Installed(dir: string | undefined): string | undefined {
  if (!dir) return undefined;
  const missing = PAIR.filter((c) => !existsSync(componentFiles(dir, c, "int8").onnx)).map((c) => c.name);
  if (missing.length === 0) return dir;
  const why = `int8 weights of ${missing.join(", ")} not in ${dir} (run scripts/setup.sh --models)`;
  if (process.env.CI) throw new Error(`the embedding pool suites need them under CI: ${why}`);
  process.stderr.write(`[skip] embedding pool: ${why}\n`);
  return undefined;
}
const modelsDir = int8Installed(base);
const suite = modelsDir ? describe : describe.skip;

const PASSAGES = [...SHARED, "Cash and cash equivalents at the end of the year were $23.6 billion."];

suite("OnnxEmbedder int8 weights in a pool of two processes", () => {
  let fp32: OnnxEmbedder;
  let pool: OnnxEmbedder;
  beforeAll(async () => {
    [fp32, pool] = await Promise.all([
      OnnxEmbedder.create({ modelsDir: modelsDir as string, components: PAIR, threads: 1, batchSize: 2 }),
      OnnxEmbedder.create({
        modelsDir: modelsDir as string,
        components: PAIR,
        precision: "int8",
        processes: 2,
        threads: 1,
        batchSize: 2,
      }),
    ]);
  });
  afterAll(() => Promise.all([fp32?.close(), pool?.close()]));

  test("int8 vectors are unit length and agree with fp32 ones (cosine >= 0.98 each, mean >= 0.99)", async () => {
    const [a, b] = await Promise.all([fp32.embed(PASSAGES, "passage"), pool.embed(PASSAGES, "passage")]);
    const cos = a.map((v, i) => dot(v, b[i] as Float32Array));
    for (const v of b) expect(Math.abs(Math.sqrt(dot(v, v)) - 1)).toBeLessThan(1e-4);
    for (const c of cos) expect(c).toBeGreaterThanOrEqual(0.98);
    expect(cos.reduce((s, c) => s + c, 0) / cos.length).toBeGreaterThanOrEqual(0.99);
    // Not the same weights: a quantised model that silently loaded fp32 would give cosine 1.
    expect(Math.min(...cos)).toBeLessThan(0.99999);
  });

  test("the model key names the precision, so int8 and fp32 vectors are never stored under one key", () => {
    expect(fp32.model).toBe("bge-small-en-v1.5+e5-small-v2");
    expect(pool.model).toBe("bge-small-en-v1.5+e5-small-v2@int8");
  });

  test("the int8 model still ranks the revenue passage first for a revenue question", async () => {
    const [q] = await pool.embed(["How much did net sales grow in fiscal 2022?"], "query");
    const ps = await pool.embed(PASSAGES, "passage");
    const scores = ps.map((p) => dot(q as Float32Array, p));
    expect(scores.indexOf(Math.max(...scores))).toBe(0);
  });

  test("a pool gives the vectors one process gives, in the caller's order, from both processes", async () => {
    const pids = pool.pids;
    expect(pids).toHaveLength(2);
    expect(new Set(pids).size).toBe(2);
    const single = await OnnxEmbedder.create({
      modelsDir: modelsDir as string,
      components: PAIR,
      precision: "int8",
      threads: 1,
      batchSize: 2,
    });
    try {
      const texts = Array.from({ length: 12 }, (_, i) => `${PASSAGES[i % PASSAGES.length]} (${i})`);
      const [one, many] = await Promise.all([single.embed(texts, "passage"), pool.embed(texts, "passage")]);
      for (let i = 0; i < texts.length; i++) {
        expect(dot(one[i] as Float32Array, many[i] as Float32Array)).toBeGreaterThan(0.9999);
      }
    } finally {
      await single.close();
    }
  });

  test("a crashed process fails only its own batches; the other keeps serving; its place restarts", async () => {
    const e = await e5Embedder(modelsDir as string, {
      precision: "int8",
      processes: 2,
      batchSize: 1,
      maxPendingBatches: 2,
    });
    try {
      const [victim, survivor] = e.pids as [number, number];
      // Two long batches, one per process (each goes to the process with fewer in hand, the
      // first place on a tie): the first to the victim, the second to the survivor.
      const long = (i: number) => `operating income ${i} `.repeat(120);
      const a = e.embed([long(1)], "passage");
      const b = e.embed([long(2)], "passage");
      await Bun.sleep(5); // both sent; a 500-token batch takes far longer than this
      process.kill(victim, "SIGKILL");
      await expect(a).rejects.toMatchObject({ code: "unavailable" });
      expect((await b)[0]).toHaveLength(384);
      expect(e.pids).toContain(survivor);
      const again = await e.embed(["net revenue", "gross margin", "cash flow", "debt"], "passage");
      expect(again).toHaveLength(4);
      expect(e.restarts).toBe(1);
      expect(e.pids).not.toContain(victim);
    } finally {
      await e.close();
    }
  });
});
