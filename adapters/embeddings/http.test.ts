import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import type { Server } from "bun";
import { AppError } from "../../domain/errors.ts";
import { installedModelsDir } from "../../test/embedding-models.ts";
import { EmbeddingWidthError, HttpEmbedder } from "./http.ts";
import { EMBEDDING_MODELS } from "./models.ts";
import { OnnxEmbedder } from "./onnx.ts";

/** A deterministic, deliberately non-normalised vector for a text (the stand-in's "model"). */
function fakeVector(text: string, dim: number): number[] {
  let h = 2166136261;
  for (const c of text) h = Math.imul(h ^ (c.codePointAt(0) as number), 16777619) >>> 0;
  return Array.from({ length: dim }, (_, i) => (((h + i * 2654435761) >>> 0) % 1000) / 100 - 4.5);
}

interface Seen {
  path: string;
  auth: string | null;
  body: Record<string, unknown>;
}

/** A small OpenAI-compatible + TEI server; `width` and `failures` are changed per test. */
function startServer(state: { width: number; failures: number; seen: Seen[] }): Server<undefined> {
  return Bun.serve({
    port: 0,
    async fetch(req) {
      const path = new URL(req.url).pathname;
      const body = (await req.json()) as Record<string, unknown>;
      state.seen.push({ path, auth: req.headers.get("authorization"), body });
      if (state.failures > 0) {
        state.failures--;
        return new Response("overloaded", { status: 503 });
      }
      if (path === "/v1/embeddings") {
        const input = body.input as string[];
        // Answer out of order: clients must use `index`.
        const data = input.map((t, index) => ({ object: "embedding", index, embedding: fakeVector(t, state.width) }));
        return Response.json({ object: "list", model: body.model, data: data.reverse() });
      }
      if (path === "/embed") return Response.json((body.inputs as string[]).map((t) => fakeVector(t, state.width)));
      return new Response("not found", { status: 404 });
    },
  });
}

const norm = (a: Float32Array): number => Math.sqrt(a.reduce((s, x) => s + x * x, 0));

describe("HttpEmbedder", () => {
  const state = { width: 768, failures: 0, seen: [] as Seen[] };
  let server: Server<undefined>;
  beforeAll(() => {
    server = startServer(state);
  });
  afterAll(() => server.stop(true));
  afterEach(() => {
    state.width = 768;
    state.failures = 0;
    state.seen = [];
  });
  const url = (p: string) => `http://127.0.0.1:${server.port}${p}`;

  test("OpenAI-compatible: model, key, prefixes, order by index, unit vectors", async () => {
    const e = await HttpEmbedder.create({
      url: url("/v1/embeddings"),
      model: "text-embed-768",
      apiKey: "sk-test-123",
      dim: 768,
      queryPrefix: "query: ",
      passagePrefix: "passage: ",
    });
    expect(e.dim).toBe(768);
    expect(e.model).toBe("openai:text-embed-768");
    const texts = ["alpha", "beta", "gamma"];
    const vs = await e.embed(texts, "passage");
    const last = state.seen.at(-1) as Seen;
    expect(last.auth).toBe("Bearer sk-test-123");
    expect(last.body).toMatchObject({
      model: "text-embed-768",
      input: ["passage: alpha", "passage: beta", "passage: gamma"],
    });
    vs.forEach((v, i) => {
      expect(v.length).toBe(768);
      expect(norm(v)).toBeCloseTo(1, 5);
      const raw = fakeVector(`passage: ${texts[i]}`, 768);
      const rawNorm = Math.hypot(...raw);
      expect(v[0]).toBeCloseTo((raw[0] as number) / rawNorm, 5);
    });
    await e.embed(["what?"], "query");
    expect((state.seen.at(-1) as Seen).body.input).toEqual(["query: what?"]);
    await e.close();
  });

  test("TEI is chosen for an /embed URL and batches are split", async () => {
    const e = await HttpEmbedder.create({ url: url("/embed"), dim: 768, batchSize: 3 });
    expect(e.model.startsWith("tei:")).toBe(true);
    state.seen = [];
    const texts = Array.from({ length: 8 }, (_, i) => `text ${i}`);
    const vs = await e.embed(texts, "passage");
    expect(vs.length).toBe(8);
    expect(state.seen.map((s) => (s.body.inputs as string[]).length).sort()).toEqual([2, 3, 3]);
    expect(state.seen.every((s) => s.path === "/embed" && s.body.truncate === true)).toBe(true);
    // Each vector belongs to its own text, whatever the batching.
    const [alone] = await e.embed(["text 5"], "passage");
    expect(Array.from(vs[5] as Float32Array)).toEqual(Array.from(alone as Float32Array));
    await e.close();
  });

  test("an endpoint of the wrong width is refused at start-up", async () => {
    state.width = 384;
    const start = HttpEmbedder.create({ url: url("/v1/embeddings"), dim: 768 });
    await expect(start).rejects.toBeInstanceOf(EmbeddingWidthError);
    await expect(start).rejects.toThrow("384-dimensional");
  });

  test("a width change after start-up fails the request instead of storing wrong vectors", async () => {
    const e = await HttpEmbedder.create({ url: url("/embed"), dim: 768 });
    state.width = 1024;
    await expect(e.embed(["x"], "passage")).rejects.toBeInstanceOf(EmbeddingWidthError);
    await e.close();
  });

  test("503 answers are retried, then surfaced", async () => {
    const e = await HttpEmbedder.create({ url: url("/embed"), dim: 768, retryBaseMs: 1 });
    state.failures = 2;
    expect((await e.embed(["retry me"], "passage")).length).toBe(1);
    state.failures = 5;
    await expect(e.embed(["give up"], "passage")).rejects.toThrow("answered 503");
    await e.close();
  });

  test("the waiting line is bounded", async () => {
    const e = await HttpEmbedder.create({
      url: url("/embed"),
      dim: 768,
      batchSize: 1,
      concurrency: 1,
      maxWaitingBatches: 2,
    });
    await expect(e.embed(["a", "b", "c", "d", "e"], "passage")).rejects.toMatchObject({ code: "unavailable" });
    await e.close();
    await expect(e.embed(["a"], "passage")).rejects.toBeInstanceOf(AppError);
  });
});

const modelsDir = installedModelsDir(["bge-small-en-v1.5", "e5-small-v2"], "http embedder over local models");

(modelsDir ? describe : describe.skip)("HttpEmbedder against a TEI server running the local models", () => {
  test("gives the local embedder's vectors", async () => {
    const local = await OnnxEmbedder.create({
      modelsDir: modelsDir as string,
      components: EMBEDDING_MODELS["bge-small-en-v1.5+e5-small-v2"],
      threads: 1,
    });
    // The stand-in embeds passages (TEI has no query/passage flag; prefixes are the model's business).
    const server = Bun.serve({
      port: 0,
      async fetch(req) {
        const { inputs } = (await req.json()) as { inputs: string[] };
        return Response.json((await local.embed(inputs, "passage")).map((v) => Array.from(v)));
      },
    });
    try {
      const remote = await HttpEmbedder.create({ url: `http://127.0.0.1:${server.port}/embed`, dim: 768 });
      const texts = ["Net revenue rose 12% year over year.", "The board approved a share buyback."];
      const [viaHttp, direct] = await Promise.all([remote.embed(texts, "passage"), local.embed(texts, "passage")]);
      texts.forEach((_, i) => {
        const a = viaHttp[i] as Float32Array;
        const b = direct[i] as Float32Array;
        expect(a.reduce((s, x, j) => s + x * (b[j] as number), 0)).toBeGreaterThan(0.99999);
      });
      await remote.close();
    } finally {
      server.stop(true);
      await local.close();
    }
  });
});
