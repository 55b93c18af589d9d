import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EMBEDDING_DIM } from "../../domain/documents/types.ts";
import { AppError } from "../../domain/errors.ts";
import { installedModelsDir } from "../../test/embedding-models.ts";
import { COMPONENTS, EMBEDDING_MODELS, ModelNotInstalledError } from "./models.ts";
import { OnnxEmbedder } from "./onnx.ts";
import { dot, e5Embedder, PASSAGES } from "./test-support.ts";

const modelsDir = installedModelsDir(["bge-small-en-v1.5", "e5-small-v2"], "onnx embedder");
const suite = modelsDir ? describe : describe.skip;

const norm = (a: Float32Array): number => Math.sqrt(dot(a, a));
const maxAbsDiff = (a: Float32Array, b: Float32Array): number =>
  a.reduce((m, x, i) => Math.max(m, Math.abs(x - (b[i] as number))), 0);

suite("OnnxEmbedder (bge-small-en-v1.5 + e5-small-v2)", () => {
  let pair: OnnxEmbedder;
  beforeAll(async () => {
    pair = await OnnxEmbedder.create({
      modelsDir: modelsDir as string,
      components: EMBEDDING_MODELS["bge-small-en-v1.5+e5-small-v2"],
      batchSize: 4,
      threads: 1,
    });
  });
  afterAll(() => pair?.close());

  test("vectors are 768-d, finite and unit length", async () => {
    expect(pair.dim).toBe(EMBEDDING_DIM);
    expect(pair.model).toBe("bge-small-en-v1.5+e5-small-v2");
    const vs = [...(await pair.embed(PASSAGES, "passage")), ...(await pair.embed(["revenue"], "query"))];
    for (const v of vs) {
      expect(v).toBeInstanceOf(Float32Array);
      expect(v.length).toBe(768);
      expect(v.every(Number.isFinite)).toBe(true);
      expect(norm(v)).toBeCloseTo(1, 5);
    }
  });

  test("the same text gives the same vector", async () => {
    const [a] = await pair.embed([PASSAGES[0] as string], "passage");
    const [b] = await pair.embed([PASSAGES[0] as string], "passage");
    expect(maxAbsDiff(a as Float32Array, b as Float32Array)).toBe(0);
  });

  test("each half is the model's own normalised vector, scaled by 1/sqrt(2)", async () => {
    const single = await Promise.all(
      [COMPONENTS["bge-small-en-v1.5"], COMPONENTS["e5-small-v2"]].map((c) =>
        OnnxEmbedder.create({ modelsDir: modelsDir as string, components: [c], threads: 1 }),
      ),
    );
    try {
      const [bge, e5] = single as [OnnxEmbedder, OnnxEmbedder];
      expect([bge.dim, e5.dim]).toEqual([384, 384]);
      for (const kind of ["query", "passage"] as const) {
        const texts = PASSAGES.slice(0, 3);
        const [both, b, e] = await Promise.all([
          pair.embed(texts, kind),
          bge.embed(texts, kind),
          e5.embed(texts, kind),
        ]);
        texts.forEach((_, i) => {
          const v = both[i] as Float32Array;
          const halves = [v.slice(0, 384), v.slice(384)].map((h) => h.map((x) => x * Math.SQRT2));
          expect(norm(b[i] as Float32Array)).toBeCloseTo(1, 5);
          expect(maxAbsDiff(halves[0] as Float32Array, b[i] as Float32Array)).toBeLessThan(1e-5);
          expect(maxAbsDiff(halves[1] as Float32Array, e[i] as Float32Array)).toBeLessThan(1e-5);
        });
      }
      // The two models really differ: the halves are not copies of one another.
      const [v] = await pair.embed([PASSAGES[0] as string], "passage");
      expect(maxAbsDiff((v as Float32Array).slice(0, 384), (v as Float32Array).slice(384))).toBeGreaterThan(0.01);
    } finally {
      await Promise.all(single.map((s) => s.close()));
    }
  });

  test("a revenue question ranks the revenue passage first", async () => {
    const [q] = await pair.embed(["How much did the company's sales grow last fiscal year?"], "query");
    const ps = await pair.embed(PASSAGES, "passage");
    const scores = ps.map((p) => dot(q as Float32Array, p));
    const best = scores.indexOf(Math.max(...scores));
    expect(best).toBe(0);
    expect(scores[0] as number).toBeGreaterThan((scores[1] as number) + 0.1);
    expect(scores[0] as number).toBeGreaterThan((scores[4] as number) + 0.1);
  });

  test("queries and passages get their models' prefixes", async () => {
    const [q] = await pair.embed(["quarterly revenue"], "query");
    const [p] = await pair.embed(["quarterly revenue"], "passage");
    expect(maxAbsDiff(q as Float32Array, p as Float32Array)).toBeGreaterThan(1e-3);
  });

  test("one batch of mixed lengths gives the vectors of one-by-one calls", async () => {
    const texts = [...PASSAGES, "short", `${PASSAGES[0]} ${PASSAGES[2]} ${PASSAGES[3]}`];
    const together = await pair.embed(texts, "passage");
    const alone = await Promise.all(texts.map(async (t) => (await pair.embed([t], "passage")).at(0) as Float32Array));
    texts.forEach((_, i) => {
      expect(dot(together[i] as Float32Array, alone[i] as Float32Array)).toBeGreaterThan(0.99999);
      expect(maxAbsDiff(together[i] as Float32Array, alone[i] as Float32Array)).toBeLessThan(1e-4);
    });
  });

  test("texts are truncated to 512 tokens: what follows does not change the vector", async () => {
    const long = "The company reported strong quarterly revenue growth across all segments. ".repeat(120);
    const [a, b] = await pair.embed([long, `${long} Unrelated text about mountains and weather.`], "passage");
    expect(maxAbsDiff(a as Float32Array, b as Float32Array)).toBeLessThan(1e-5);
  });

  test("the event loop keeps running while a large request is embedded", async () => {
    let ticks = 0;
    const timer = setInterval(() => ticks++, 5);
    const texts = Array.from({ length: 8 }, (_, i) => `${PASSAGES[i % 5]} `.repeat(8));
    await pair.embed(texts, "passage");
    clearInterval(timer);
    // Inference on this thread would starve the timer; in the worker it keeps firing.
    expect(ticks).toBeGreaterThan(10);
  });
});

suite("OnnxEmbedder queue and lifecycle", () => {
  test("a full queue refuses with 'unavailable' and keeps serving accepted work", async () => {
    const e = await e5Embedder(modelsDir as string, { batchSize: 1, maxPendingBatches: 1, maxWaitingBatches: 1 });
    try {
      const accepted = e.embed(["first"], "passage");
      const refused = e.embed(["a", "b", "c"], "passage");
      await expect(refused).rejects.toBeInstanceOf(AppError);
      await expect(refused).rejects.toMatchObject({ code: "unavailable" });
      expect((await accepted)[0]?.length).toBe(384);
      expect((await e.embed(["again"], "passage")).length).toBe(1);
    } finally {
      await e.close();
    }
  });

  test("a model process that crashes fails only its batches and is replaced on the next call", async () => {
    const e = await e5Embedder(modelsDir as string);
    try {
      const [before] = await e.embed(["net revenue"], "passage");
      const pid = e.pid as number;
      expect(pid).toBeGreaterThan(0);
      expect(pid).not.toBe(process.pid);
      // A native fault in ONNX Runtime kills the model process by a signal (SIGSEGV, SIGABRT);
      // SIGKILL stands in for it without Bun's crash report in the test output.
      const inFlight = e.embed(
        Array.from({ length: 64 }, (_, i) => `operating income ${i} `.repeat(40)),
        "passage",
      );
      process.kill(pid, "SIGKILL");
      await expect(inFlight).rejects.toMatchObject({ code: "unavailable" });
      const [after] = await e.embed(["net revenue"], "passage");
      expect(e.restarts).toBe(1);
      expect(e.pid).not.toBe(pid);
      expect(Array.from(after as Float32Array)).toEqual(Array.from(before as Float32Array));
    } finally {
      await e.close();
    }
  });

  test("close stops the model process", async () => {
    const e = await e5Embedder(modelsDir as string);
    const pid = e.pid as number;
    await e.close();
    expect(e.pid).toBeNull();
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline && isAlive(pid)) await Bun.sleep(20);
    expect(isAlive(pid)).toBe(false);
  });

  test("close lets accepted batches finish, then refuses", async () => {
    const e = await e5Embedder(modelsDir as string, { batchSize: 2 });
    const accepted = e.embed(["one", "two", "three", "four"], "passage");
    await Bun.sleep(10);
    await e.close();
    expect((await accepted).length).toBe(4);
    await expect(e.embed(["x"], "query")).rejects.toMatchObject({ code: "unavailable" });
  });

  test("after close, embed refuses", async () => {
    const e = await e5Embedder(modelsDir as string);
    await e.close();
    await expect(e.embed(["x"], "query")).rejects.toMatchObject({ code: "unavailable" });
    await e.close();
  });
});

describe("OnnxEmbedder start-up", () => {
  test("missing model files fail start-up naming the set-up command", async () => {
    const empty = mkdtempSync(join(tmpdir(), "cairn-models-"));
    try {
      const start = OnnxEmbedder.create({
        modelsDir: empty,
        components: EMBEDDING_MODELS["bge-small-en-v1.5+e5-small-v2"],
      });
      await expect(start).rejects.toBeInstanceOf(ModelNotInstalledError);
      await expect(start).rejects.toThrow("scripts/setup.sh --models");
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });

  test("a corrupt model file fails start-up instead of the first request", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cairn-models-"));
    try {
      await Bun.write(join(dir, "e5-small-v2", "model.onnx"), "not an onnx file");
      await Bun.write(
        join(dir, "e5-small-v2", "tokenizer.json"),
        Bun.file(join(modelsDir ?? dir, "e5-small-v2", "tokenizer.json")),
      );
      const start = OnnxEmbedder.create({ modelsDir: dir, components: [COMPONENTS["e5-small-v2"]] });
      await expect(start).rejects.toThrow("embedding models failed to load");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
