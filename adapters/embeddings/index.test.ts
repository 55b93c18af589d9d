import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { availableParallelism } from "node:os";
import type { Server } from "bun";
import { embeddingPool } from "../../config/documents.ts";
import { ConfigError, EMBEDDING_MODEL_CHOICES, loadConfig } from "../../config.ts";
import { EMBEDDING_DIM } from "../../domain/documents/types.ts";
import { createEmbedder, EMBEDDING_MODEL_NAMES, EMBEDDING_MODELS, EmbeddingWidthError } from "./index.ts";

describe("embedding configuration", () => {
  test("local models by default, in the XDG cache unless CAIRN_MODELS_DIR is set", () => {
    expect(loadConfig({ XDG_CACHE_HOME: "/var/cache/x" }).embeddings).toEqual({
      kind: "onnx",
      model: "bge-small-en-v1.5+e5-small-v2",
      modelsDir: "/var/cache/x/cairn/models",
      precision: "int8",
      ...embeddingPool(0, 0, availableParallelism()),
      batchSize: 16,
    });
    const c = loadConfig({ CAIRN_MODELS_DIR: "/opt/models", CAIRN_EMBEDDING_MODEL: "bge-base-en-v1.5" });
    expect(c.embeddings).toMatchObject({ kind: "onnx", model: "bge-base-en-v1.5", modelsDir: "/opt/models" });
  });

  test("precision and the model-process pool: int8 by default, processes x threads never above the cores", () => {
    expect(loadConfig({ CAIRN_EMBEDDING_PRECISION: "fp32" }).embeddings).toMatchObject({ precision: "fp32" });
    expect(() => loadConfig({ CAIRN_EMBEDDING_PRECISION: "int4" })).toThrow(/CAIRN_EMBEDDING_PRECISION/);
    expect(() => loadConfig({ CAIRN_EMBEDDING_PROCESSES: "-1" })).toThrow(/CAIRN_EMBEDDING_PROCESSES/);
    // Unset: one single-threaded process per core up to 4, then 4 sharing the cores equally.
    expect(embeddingPool(0, 0, 1)).toEqual({ processes: 1, threads: 1 });
    expect(embeddingPool(0, 0, 2)).toEqual({ processes: 2, threads: 1 });
    expect(embeddingPool(0, 0, 4)).toEqual({ processes: 4, threads: 1 });
    expect(embeddingPool(0, 0, 6)).toEqual({ processes: 4, threads: 1 });
    expect(embeddingPool(0, 0, 16)).toEqual({ processes: 4, threads: 4 });
    for (const cores of [1, 2, 3, 4, 7, 16, 64]) {
      const p = embeddingPool(0, 0, cores);
      expect(p.processes * p.threads).toBeLessThanOrEqual(cores);
    }
    // Either set: the other is derived; both set: taken as given.
    expect(embeddingPool(4, 0, 16)).toEqual({ processes: 4, threads: 4 });
    expect(embeddingPool(0, 3, 16)).toEqual({ processes: 4, threads: 3 });
    expect(embeddingPool(3, 5, 2)).toEqual({ processes: 3, threads: 5 });
    const c = loadConfig({ CAIRN_EMBEDDING_PROCESSES: "3", CAIRN_EMBEDDING_THREADS: "1" }).embeddings;
    expect(c).toMatchObject({ processes: 3, threads: 1 });
  });

  test("CAIRN_EMBEDDINGS_URL selects the remote adapter", () => {
    const c = loadConfig({
      CAIRN_EMBEDDINGS_URL: "http://tei:8080/embed",
      CAIRN_EMBEDDINGS_API_KEY: "k",
      CAIRN_EMBEDDINGS_QUERY_PREFIX: "query: ",
    });
    expect(c.embeddings).toMatchObject({
      kind: "http",
      url: "http://tei:8080/embed",
      apiKey: "k",
      dim: 768,
      queryPrefix: "query: ",
    });
  });

  test("bad values fail start-up naming the variable", () => {
    expect(() => loadConfig({ CAIRN_EMBEDDING_MODEL: "all-MiniLM-L6-v2" })).toThrow(/CAIRN_EMBEDDING_MODEL/);
    expect(() => loadConfig({ CAIRN_EMBEDDINGS_DIM: "384" })).toThrow(ConfigError);
    expect(() => loadConfig({ CAIRN_EMBEDDINGS_DIM: "384" })).toThrow(/CAIRN_EMBEDDINGS_DIM: must be 768/);
    expect(() => loadConfig({ CAIRN_EMBEDDINGS_URL: "ftp://x" })).toThrow(/CAIRN_EMBEDDINGS_URL/);
    expect(() => loadConfig({ CAIRN_EMBEDDING_BATCH: "0" })).toThrow(/CAIRN_EMBEDDING_BATCH/);
  });

  test("every configurable model is a known model set of exactly EMBEDDING_DIM", () => {
    expect([...EMBEDDING_MODEL_CHOICES].sort()).toEqual([...EMBEDDING_MODEL_NAMES].sort());
    for (const name of EMBEDDING_MODEL_NAMES) {
      expect(EMBEDDING_MODELS[name].reduce((s, c) => s + c.dim, 0)).toBe(EMBEDDING_DIM);
    }
  });
});

describe("createEmbedder", () => {
  let width = 384;
  let server: Server<undefined>;
  beforeAll(() => {
    server = Bun.serve({
      port: 0,
      async fetch(req) {
        const { input } = (await req.json()) as { input: string[] };
        return Response.json({
          data: input.map((_, index) => ({ index, embedding: Array.from({ length: width }, (_, i) => i + 1) })),
        });
      },
    });
  });
  afterAll(() => server.stop(true));

  test("refuses a remote endpoint that is not 768-d, accepts one that is", async () => {
    const env = { CAIRN_EMBEDDINGS_URL: `http://127.0.0.1:${server.port}/v1/embeddings`, CAIRN_EMBEDDINGS_MODEL: "m" };
    width = 384;
    await expect(createEmbedder(loadConfig(env).embeddings)).rejects.toBeInstanceOf(EmbeddingWidthError);
    width = 768;
    const e = await createEmbedder(loadConfig(env).embeddings);
    expect(e.dim).toBe(768);
    expect((await e.embed(["a"], "query"))[0]?.length).toBe(768);
    await e.close();
  });

  test("missing local models fail start-up naming the set-up command", async () => {
    const cfg = loadConfig({ CAIRN_MODELS_DIR: "/nonexistent/cairn-models" }).embeddings;
    await expect(createEmbedder(cfg)).rejects.toThrow("scripts/setup.sh --models");
  });
});
