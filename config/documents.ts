/**
 * Documents: the search index (OpenSearch or embedded SQLite), sentence embeddings,
 * the chat model for answers, text extraction (with an optional vision model), and uploads.
 */
import { availableParallelism, homedir } from "node:os";
import { join, resolve } from "node:path";
import { z } from "zod";
import { ConfigError, optionalUrl } from "./env.ts";

/** Local embedding model choices (adapters/embeddings/models.ts EMBEDDING_MODELS; a test keeps them equal). */
export const EMBEDDING_MODEL_CHOICES = ["bge-small-en-v1.5+e5-small-v2", "bge-base-en-v1.5"] as const;
export type EmbeddingModelChoice = (typeof EMBEDDING_MODEL_CHOICES)[number];

export const documentsEnv = z.object({
  /** OpenSearch for the per-tenant document indexes (docs/search.md); unset = embedded SQLite files. */
  CAIRN_OPENSEARCH_URL: optionalUrl(["http", "https"]),
  /** Replicas of each tenant's OpenSearch index (0 on a single node). */
  CAIRN_OPENSEARCH_REPLICAS: z.coerce.number().int().min(0).max(5).default(0),
  /** Threads that run embedded document searches (brute-force KNN) off the event loop; 0 = inline. */
  CAIRN_SEARCH_THREADS: z.coerce.number().int().min(0).max(64).default(1),
  /** Tenants with fewer chunks keep exact vector search; above, the HNSW index (docs/search.md). 0 = always HNSW. */
  CAIRN_ANN_MIN_CHUNKS: z.coerce.number().int().min(0).default(20_000),
  /** Local embedding models (docs/embeddings.md), installed by `scripts/setup.sh --models`. */
  CAIRN_EMBEDDING_MODEL: z.enum(EMBEDDING_MODEL_CHOICES).default("bge-small-en-v1.5+e5-small-v2"),
  /** Where set-up put the models; default ${XDG_CACHE_HOME:-~/.cache}/cairn/models. */
  CAIRN_MODELS_DIR: z
    .string()
    .trim()
    .optional()
    .transform((v) => (v === "" ? undefined : v)),
  /** ONNX Runtime threads per model process; 0 = the cores divided among the processes. */
  CAIRN_EMBEDDING_THREADS: z.coerce.number().int().min(0).max(256).default(0),
  /** Model processes of the local embedder (batches run in parallel); 0 = derived from the cores. */
  CAIRN_EMBEDDING_PROCESSES: z.coerce.number().int().min(0).max(64).default(0),
  /** Local weights: int8 (dynamic quantisation made at set-up, ~2x faster) or the fp32 export. */
  CAIRN_EMBEDDING_PRECISION: z.enum(["int8", "fp32"]).default("int8"),
  /** Texts per inference batch (local) or per request (remote). */
  CAIRN_EMBEDDING_BATCH: z.coerce.number().int().min(1).max(512).default(16),
  /** A remote embeddings endpoint instead of the local models: OpenAI-compatible or TEI /embed. */
  CAIRN_EMBEDDINGS_URL: optionalUrl(["http", "https"]),
  /** Wire format of CAIRN_EMBEDDINGS_URL; default tei when the path ends in /embed, else openai. */
  CAIRN_EMBEDDINGS_API: z.enum(["openai", "tei"]).optional(),
  /** Model name sent to an OpenAI-compatible endpoint. */
  CAIRN_EMBEDDINGS_MODEL: z
    .string()
    .trim()
    .optional()
    .transform((v) => (v === "" ? undefined : v)),
  CAIRN_EMBEDDINGS_API_KEY: z
    .string()
    .optional()
    .transform((v) => (v === "" ? undefined : v)),
  /** Width the endpoint must return; the index stores 768-d vectors (spec 8.2). */
  CAIRN_EMBEDDINGS_DIM: z.coerce
    .number()
    .int()
    .default(768)
    .refine((v) => v === 768, "must be 768: the document index stores 768-dimensional vectors (spec 8.2)"),
  /** Prefixes the remote model expects on queries / passages (e.g. "query: " for e5). */
  CAIRN_EMBEDDINGS_QUERY_PREFIX: z.string().default(""),
  CAIRN_EMBEDDINGS_PASSAGE_PREFIX: z.string().default(""),
  /** OpenAI-compatible chat model for agentic answers (base URL, e.g. https://api.openai.com/v1); unset = extractive. */
  CAIRN_LLM_URL: optionalUrl(["http", "https"]),
  CAIRN_LLM_MODEL: z
    .string()
    .trim()
    .optional()
    .transform((v) => (v === "" ? undefined : v)),
  CAIRN_LLM_API_KEY: z
    .string()
    .optional()
    .transform((v) => (v === "" ? undefined : v)),
  CAIRN_LLM_TIMEOUT_MS: z.coerce.number().int().min(1_000).max(600_000).default(60_000),
  /** OpenAI-compatible vision model for image descriptions (base URL); unset = descriptions derived from layout and OCR. */
  CAIRN_VISION_URL: optionalUrl(["http", "https"]),
  CAIRN_VISION_MODEL: z
    .string()
    .trim()
    .optional()
    .transform((v) => (v === "" ? undefined : v)),
  CAIRN_VISION_API_KEY: z
    .string()
    .optional()
    .transform((v) => (v === "" ? undefined : v)),
  CAIRN_VISION_TIMEOUT_MS: z.coerce.number().int().min(1_000).max(600_000).default(30_000),
  /**
   * Extraction worker threads (documents parsed/OCR'd at once; 0 = one per upload slot, so a
   * tenant's uploads never take the worker another tenant's upload needs), deadline per
   * document, OCR page cap.
   */
  CAIRN_EXTRACT_CONCURRENCY: z.coerce.number().int().min(0).max(64).default(0),
  CAIRN_EXTRACT_TIMEOUT_MS: z.coerce.number().int().min(1_000).max(3_600_000).default(120_000),
  CAIRN_EXTRACT_MAX_OCR_PAGES: z.coerce.number().int().min(0).max(10_000).default(50),
  /** Uploads processed at once per instance, and how many may wait (and for how long) before 503. */
  CAIRN_UPLOAD_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(3),
  CAIRN_UPLOAD_QUEUE: z.coerce.number().int().min(0).max(1_000).default(8),
  CAIRN_UPLOAD_WAIT_MS: z.coerce.number().int().min(0).max(600_000).default(30_000),
});

export type DocumentsEnv = z.infer<typeof documentsEnv>;

export interface DocumentsConfig {
  /** The document index's server (docs/search.md); null = one SQLite file per tenant under dataDir. */
  readonly opensearch: { url: string; replicas: number } | null;
  /** Search threads of the embedded document index. */
  readonly searchThreads: number;
  /** Chunks from which a tenant's vector leg uses its HNSW index instead of exact search. */
  readonly annMinChunks: number;
  /** Sentence embeddings for documents: local ONNX models, or a remote endpoint when its URL is set. */
  readonly embeddings:
    | {
        kind: "onnx";
        model: EmbeddingModelChoice;
        modelsDir: string;
        precision: "int8" | "fp32";
        /** Model processes, and ONNX Runtime threads in each (processes x threads <= cores by default). */
        processes: number;
        threads: number;
        batchSize: number;
      }
    | {
        kind: "http";
        url: string;
        api: "openai" | "tei" | undefined;
        model: string | undefined;
        apiKey: string | undefined;
        dim: number;
        queryPrefix: string;
        passagePrefix: string;
        batchSize: number;
      };
  /** Chat model for agentic answers; null = extractive answers. */
  readonly llm: { url: string; model: string; apiKey: string | undefined; timeoutMs: number } | null;
  /** Per-instance bound on document uploads in progress. */
  readonly uploads: { concurrency: number; maxQueued: number; maxWaitMs: number };
  /** Text extraction (adapters/extract): worker threads, deadline, OCR cap; vision model or null. */
  readonly extraction: {
    concurrency: number;
    timeoutMs: number;
    maxOcrPages: number;
    vision: { url: string; model: string; apiKey: string | undefined; timeoutMs: number } | null;
  };
}

/** Rules across document variables; throws ConfigError. */
export function checkDocuments(e: DocumentsEnv): void {
  if (e.CAIRN_LLM_URL && !e.CAIRN_LLM_MODEL) {
    throw new ConfigError("Invalid configuration:\n  CAIRN_LLM_MODEL: required when CAIRN_LLM_URL is set");
  }
  if (e.CAIRN_VISION_URL && !e.CAIRN_VISION_MODEL) {
    throw new ConfigError("Invalid configuration:\n  CAIRN_VISION_MODEL: required when CAIRN_VISION_URL is set");
  }
}

/** `env`: the raw environment (XDG_CACHE_HOME locates the default models folder). */
export function documentsConfig(e: DocumentsEnv, env: Record<string, string | undefined>): DocumentsConfig {
  return {
    opensearch: e.CAIRN_OPENSEARCH_URL ? { url: e.CAIRN_OPENSEARCH_URL, replicas: e.CAIRN_OPENSEARCH_REPLICAS } : null,
    searchThreads: e.CAIRN_SEARCH_THREADS,
    annMinChunks: e.CAIRN_ANN_MIN_CHUNKS,
    embeddings: e.CAIRN_EMBEDDINGS_URL
      ? {
          kind: "http",
          url: e.CAIRN_EMBEDDINGS_URL,
          api: e.CAIRN_EMBEDDINGS_API,
          model: e.CAIRN_EMBEDDINGS_MODEL,
          apiKey: e.CAIRN_EMBEDDINGS_API_KEY,
          dim: e.CAIRN_EMBEDDINGS_DIM,
          queryPrefix: e.CAIRN_EMBEDDINGS_QUERY_PREFIX,
          passagePrefix: e.CAIRN_EMBEDDINGS_PASSAGE_PREFIX,
          batchSize: e.CAIRN_EMBEDDING_BATCH,
        }
      : {
          kind: "onnx",
          model: e.CAIRN_EMBEDDING_MODEL,
          modelsDir: resolve(
            e.CAIRN_MODELS_DIR ?? join(env.XDG_CACHE_HOME || join(homedir(), ".cache"), "cairn", "models"),
          ),
          precision: e.CAIRN_EMBEDDING_PRECISION,
          ...embeddingPool(e.CAIRN_EMBEDDING_PROCESSES, e.CAIRN_EMBEDDING_THREADS, availableParallelism()),
          batchSize: e.CAIRN_EMBEDDING_BATCH,
        },
    llm:
      e.CAIRN_LLM_URL && e.CAIRN_LLM_MODEL
        ? {
            url: e.CAIRN_LLM_URL,
            model: e.CAIRN_LLM_MODEL,
            apiKey: e.CAIRN_LLM_API_KEY,
            timeoutMs: e.CAIRN_LLM_TIMEOUT_MS,
          }
        : null,
    extraction: {
      concurrency: e.CAIRN_EXTRACT_CONCURRENCY || e.CAIRN_UPLOAD_CONCURRENCY,
      timeoutMs: e.CAIRN_EXTRACT_TIMEOUT_MS,
      maxOcrPages: e.CAIRN_EXTRACT_MAX_OCR_PAGES,
      vision:
        e.CAIRN_VISION_URL && e.CAIRN_VISION_MODEL
          ? {
              url: e.CAIRN_VISION_URL,
              model: e.CAIRN_VISION_MODEL,
              apiKey: e.CAIRN_VISION_API_KEY,
              timeoutMs: e.CAIRN_VISION_TIMEOUT_MS,
            }
          : null,
    },
    uploads: {
      concurrency: e.CAIRN_UPLOAD_CONCURRENCY,
      maxQueued: e.CAIRN_UPLOAD_QUEUE,
      maxWaitMs: e.CAIRN_UPLOAD_WAIT_MS,
    },
  };
}

/**
 * Model processes and threads per process of the local embedder. Unset (0), one
 * single-threaded process per core up to 4 (each int8 process holds ~0.3 GB), past that 4
 * processes sharing the cores equally, so the pool never runs more ONNX threads than there are
 * cores: oversubscribed, the threads of the two models and of the processes preempt each other
 * and throughput falls. One thread per process gives the most passages per CPU second: ORT's
 * intra-op threads (spinning off) wake and sleep around every operator of a one-passage run
 * (docs/embeddings.md, "Pool shape").
 */
export function embeddingPool(
  processes: number,
  threads: number,
  cores: number,
): { processes: number; threads: number } {
  const p = processes > 0 ? processes : Math.min(4, Math.max(1, cores));
  return { processes: p, threads: threads > 0 ? threads : Math.max(1, Math.floor(cores / p)) };
}
