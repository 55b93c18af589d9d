import { describe, expect, test } from "bun:test";
import { AppError } from "../errors.ts";
import { LazyEmbedder } from "./lazy-embedder.ts";
import type { Embedder } from "./ports.ts";

const fake = (dim: number): Embedder => ({
  dim,
  model: "fake",
  embed: async (texts) => texts.map(() => new Float32Array(dim)),
  close: async () => {},
});

describe("LazyEmbedder", () => {
  test("loads once on first use, even for concurrent callers", async () => {
    let loads = 0;
    const lazy = new LazyEmbedder(4, "label", async () => {
      loads += 1;
      await Bun.sleep(5);
      return fake(4);
    });
    expect(loads).toBe(0);
    expect(lazy.model).toBe("label");
    const [a, b] = await Promise.all([lazy.embed(["x"], "query"), lazy.embed(["y", "z"], "passage")]);
    expect(a).toHaveLength(1);
    expect(b).toHaveLength(2);
    expect(loads).toBe(1);
    expect(lazy.model).toBe("fake");
  });

  test("a failed load is a 503 naming why, and the next call tries again", async () => {
    let attempt = 0;
    const lazy = new LazyEmbedder(4, "label", async () => {
      attempt += 1;
      if (attempt === 1) throw new Error("model.onnx not installed");
      return fake(4);
    });
    const err = await lazy.embed(["x"], "query").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).status).toBe(503);
    expect((err as AppError).message).toContain("model.onnx not installed");
    expect(await lazy.embed(["x"], "query")).toHaveLength(1);
  });

  test("a model of the wrong width is refused", async () => {
    const lazy = new LazyEmbedder(768, "label", async () => fake(384));
    await expect(lazy.embed(["x"], "query")).rejects.toThrow("384-dimensional");
  });
});
