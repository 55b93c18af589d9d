/**
 * An Embedder that loads its model on first use (single flight), so a service instance
 * that never touches documents never pays for loading two ONNX models, and an instance
 * whose models are missing still starts (uploads and searches answer 503 naming why, and
 * the next call tries again). main.ts warms it at start outside tests.
 */
import { AppError } from "../errors.ts";
import type { Embedder } from "./ports.ts";
import type { EmbedKind } from "./types.ts";

export class LazyEmbedder implements Embedder {
  private loading: Promise<Embedder> | null = null;
  private loaded: Embedder | null = null;
  private closed = false;

  constructor(
    readonly dim: number,
    private readonly label: string,
    private readonly create: () => Promise<Embedder>,
  ) {}

  get model(): string {
    return this.loaded?.model ?? this.label;
  }

  /** Loads the model now; resolves once ready, rejects with the reason it cannot load. */
  async warm(): Promise<Embedder> {
    if (this.closed) throw new AppError("unavailable", "the embedding model is shut down");
    if (this.loaded) return this.loaded;
    this.loading ??= this.create().then(
      (e) => {
        if (e.dim !== this.dim) {
          void e.close();
          throw new Error(`embedding model ${e.model} is ${e.dim}-dimensional, expected ${this.dim}`);
        }
        this.loaded = e;
        return e;
      },
      (err: unknown) => {
        this.loading = null;
        throw err;
      },
    );
    return this.loading;
  }

  async embed(texts: string[], kind: EmbedKind): Promise<Float32Array[]> {
    let e: Embedder;
    try {
      e = await this.warm();
    } catch (err) {
      if (err instanceof AppError) throw err;
      throw new AppError("unavailable", `the embedding model is not available: ${(err as Error).message}`);
    }
    return e.embed(texts, kind);
  }

  async close(): Promise<void> {
    this.closed = true;
    const e = this.loaded ?? (await this.loading?.catch(() => null));
    await e?.close();
  }
}
