/**
 * Embedder over a remote model: an OpenAI-compatible `POST /v1/embeddings` or a Hugging Face
 * Text Embeddings Inference `POST /embed` endpoint.
 *
 * create() sends one probe and refuses to start when the endpoint's width is not the expected
 * one (EMBEDDING_DIM in the service): vectors of another width would corrupt the index. Every
 * later answer is checked the same way. Vectors are re-normalised (the index assumes unit
 * length; TEI and OpenAI already return unit vectors, other servers may not).
 *
 * Requests carry at most `batchSize` texts; at most `concurrency` are in flight and at most
 * `maxWaitingBatches` wait for a slot, past which embed() refuses with "unavailable". 429 and
 * 5xx answers are retried twice with backoff; each request has a timeout.
 */

import type { Embedder } from "../../domain/documents/ports.ts";
import type { EmbedKind } from "../../domain/documents/types.ts";
import { AppError } from "../../domain/errors.ts";
import { normalize } from "./encode.ts";

export type EmbeddingsApi = "openai" | "tei";

export interface HttpEmbedderOptions {
  /** Full endpoint URL, e.g. http://host:8000/v1/embeddings or http://host:8080/embed. */
  url: string;
  /** Wire format; by default "tei" when the path ends in /embed, else "openai". */
  api?: EmbeddingsApi;
  /** Model name sent to OpenAI-compatible servers (TEI serves one model and ignores it). */
  model?: string;
  apiKey?: string;
  /** Width the endpoint must return. */
  dim: number;
  /** Prefixes some models expect (e.g. e5's "query: " / "passage: "); empty by default. */
  queryPrefix?: string;
  passagePrefix?: string;
  batchSize?: number;
  concurrency?: number;
  maxWaitingBatches?: number;
  timeoutMs?: number;
  /** Base of the retry backoff in ms (tests shorten it). */
  retryBaseMs?: number;
}

export class EmbeddingWidthError extends Error {
  override readonly name = "EmbeddingWidthError";
}

const RETRIES = 2;

export class HttpEmbedder implements Embedder {
  readonly dim: number;
  readonly model: string;
  private readonly api: EmbeddingsApi;
  private readonly batchSize: number;
  private readonly concurrency: number;
  private readonly maxWaiting: number;
  private readonly waiting: (() => void)[] = [];
  private active = 0;
  private closed = false;
  private readonly aborts = new Set<AbortController>();

  private constructor(private readonly opts: HttpEmbedderOptions) {
    this.dim = opts.dim;
    this.api = opts.api ?? (new URL(opts.url).pathname.replace(/\/+$/, "").endsWith("/embed") ? "tei" : "openai");
    this.model = `${this.api}:${opts.model ?? new URL(opts.url).host}`;
    this.batchSize = opts.batchSize ?? 32;
    this.concurrency = opts.concurrency ?? 4;
    this.maxWaiting = opts.maxWaitingBatches ?? 1024;
  }

  /** Probes the endpoint once; throws EmbeddingWidthError when its width is not `dim`. */
  static async create(opts: HttpEmbedderOptions): Promise<HttpEmbedder> {
    const e = new HttpEmbedder(opts);
    const [probe] = await e.request(["width probe"], "passage", false);
    if (probe?.length !== opts.dim) {
      throw new EmbeddingWidthError(
        `embeddings endpoint ${opts.url} returns ${probe?.length ?? 0}-dimensional vectors; ` +
          `the document index needs ${opts.dim} (spec 8.2), so it cannot be used`,
      );
    }
    return e;
  }

  async embed(texts: string[], kind: EmbedKind): Promise<Float32Array[]> {
    const batches: string[][] = [];
    for (let i = 0; i < texts.length; i += this.batchSize) batches.push(texts.slice(i, i + this.batchSize));
    const results = await Promise.all(batches.map((b) => this.withSlot(() => this.request(b, kind, true))));
    return results.flat();
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const a of this.aborts) a.abort(new AppError("unavailable", "the embedder is closed"));
    for (const w of this.waiting.splice(0)) w();
  }

  private async withSlot<T>(fn: () => Promise<T>): Promise<T> {
    if (this.closed) throw new AppError("unavailable", "the embedder is closed");
    if (this.active < this.concurrency && this.waiting.length === 0) this.active++;
    else {
      if (this.waiting.length >= this.maxWaiting) {
        throw new AppError("unavailable", "the embedding queue is full; retry shortly");
      }
      await new Promise<void>((resolve) => this.waiting.push(resolve));
      if (this.closed) throw new AppError("unavailable", "the embedder is closed");
    }
    try {
      return await fn();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.active--;
    }
  }

  private async request(texts: string[], kind: EmbedKind, checkWidth: boolean): Promise<Float32Array[]> {
    const prefix = (kind === "query" ? this.opts.queryPrefix : this.opts.passagePrefix) ?? "";
    const inputs = texts.map((t) => prefix + t);
    const body =
      this.api === "tei"
        ? { inputs, normalize: true, truncate: true }
        : { input: inputs, encoding_format: "float", ...(this.opts.model ? { model: this.opts.model } : {}) };
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (this.opts.apiKey) headers.authorization = `Bearer ${this.opts.apiKey}`;
    const raw = await this.post(JSON.stringify(body), headers);
    const vectors = this.parse(raw, texts.length);
    return vectors.map((v) => {
      if (checkWidth && v.length !== this.dim) {
        throw new EmbeddingWidthError(`embeddings endpoint returned ${v.length} dimensions, expected ${this.dim}`);
      }
      return normalize(Float32Array.from(v));
    });
  }

  private async post(body: string, headers: Record<string, string>): Promise<unknown> {
    for (let attempt = 0; ; attempt++) {
      const abort = new AbortController();
      this.aborts.add(abort);
      const timer = setTimeout(
        () => abort.abort(new Error(`embeddings endpoint timed out after ${this.opts.timeoutMs ?? 30_000} ms`)),
        this.opts.timeoutMs ?? 30_000,
      );
      try {
        const res = await fetch(this.opts.url, { method: "POST", headers, body, signal: abort.signal });
        if (res.ok) return await res.json();
        const detail = (await res.text()).slice(0, 300);
        if ((res.status === 429 || res.status >= 500) && attempt < RETRIES && !this.closed) {
          await Bun.sleep((this.opts.retryBaseMs ?? 250) * 2 ** attempt);
          continue;
        }
        throw new Error(`embeddings endpoint answered ${res.status}: ${detail}`);
      } finally {
        clearTimeout(timer);
        this.aborts.delete(abort);
      }
    }
  }

  private parse(raw: unknown, expected: number): number[][] {
    let rows: unknown;
    if (this.api === "tei") rows = raw;
    else {
      const data = (raw as { data?: { embedding?: unknown; index?: number }[] } | null)?.data;
      rows = Array.isArray(data)
        ? [...data].sort((a, b) => (a.index ?? 0) - (b.index ?? 0)).map((d) => d.embedding)
        : undefined;
    }
    if (
      !Array.isArray(rows) ||
      rows.length !== expected ||
      !rows.every((r) => Array.isArray(r) && r.every((x) => typeof x === "number" && Number.isFinite(x)))
    ) {
      throw new Error(`embeddings endpoint answered an unexpected body (wanted ${expected} vectors of numbers)`);
    }
    return rows as number[][];
  }
}
