/**
 * Foundry (spec 1.6, 1.9, 4.9): the graph engine at scale (Neo4j over Bolt; unset = the
 * embedded Ladybug database in the data directory), custom table uploads and dataset builds.
 */
import { z } from "zod";
import { optionalSecret, optionalUrl } from "./env.ts";

export const foundryEnv = z.object({
  /** Neo4j's Bolt address (bolt:// or neo4j://); unset = the embedded graph (Ladybug). */
  CAIRN_NEO4J_URL: optionalUrl(["bolt", "bolt+s", "neo4j", "neo4j+s"]),
  CAIRN_NEO4J_USER: z.string().trim().min(1).default("neo4j"),
  CAIRN_NEO4J_PASSWORD: optionalSecret(1),
  /** The Neo4j database the tenants' labels live in (Community edition has one). */
  CAIRN_NEO4J_DATABASE: z.string().trim().min(1).default("neo4j"),
  /** Largest custom-table upload (POST /v1/foundry/tables), bytes; default 100 MiB. */
  CAIRN_FOUNDRY_UPLOAD_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(2 * 1024 ** 3)
    .default(100 * 1024 ** 2),
  /** Deadline of one dataset build in the lab, ms; default 30 minutes. */
  CAIRN_FOUNDRY_BUILD_TIMEOUT_MS: z.coerce.number().int().min(1_000).max(86_400_000).default(1_800_000),
  /**
   * The lakehouse catalog as the lab worker opens it for model training (the gateway's
   * --catalog-uri and --warehouse; scripts/run.sh sets both). Unset: training answers 503.
   */
  CAIRN_LAKEHOUSE_CATALOG_URI: z.string().trim().min(1).optional(),
  CAIRN_LAKEHOUSE_WAREHOUSE: z.string().trim().min(1).optional(),
  /** Limits the training roster (comma-separated lab names, e.g. "XGBoost,LightGBM"); unset = the full roster. */
  CAIRN_FOUNDRY_TRAIN_ALGORITHMS: z
    .string()
    .trim()
    .optional()
    .transform((v) =>
      v
        ? v
            .split(",")
            .map((a) => a.trim())
            .filter(Boolean)
        : null,
    ),
  /** Per-algorithm wall-clock timeout of a training run, seconds; unset = the lab's default (300). */
  CAIRN_FOUNDRY_TRAIN_TIMEOUT_S: z.coerce.number().int().min(1).max(86_400).optional(),
  /** Limits the families a tuning experiment searches (comma-separated lab names); unset = all six. */
  CAIRN_FOUNDRY_TUNE_FAMILIES: z
    .string()
    .trim()
    .optional()
    .transform((v) =>
      v
        ? v
            .split(",")
            .map((a) => a.trim())
            .filter(Boolean)
        : null,
    ),
  /** Wall-clock cap of one tuning study, seconds; unset = none (its 12 trials end it). */
  CAIRN_FOUNDRY_TUNE_TIMEOUT_S: z.coerce.number().int().min(1).max(86_400).optional(),
  /**
   * MLServer's address (Open Inference Protocol v2 REST; scripts/run.sh starts it on 127.0.0.1)
   * and its model repository folder, which deploys write model-settings.json into
   * (docs/foundry-serving.md). Unset: deploy and predict answer 503.
   */
  CAIRN_FOUNDRY_INFERENCE_URL: optionalUrl(["http", "https"]),
  CAIRN_FOUNDRY_INFERENCE_REPOSITORY: z.string().trim().min(1).optional(),
  /**
   * Predictions of tree and linear models through their ONNX graph in the service ("onnx",
   * docs/foundry-onnx.md) or always through the inference server ("off").
   */
  CAIRN_FOUNDRY_FAST_PATH: z.enum(["onnx", "off"]).default("onnx"),
  /** How often each instance looks for due agent fires (docs/foundry-agents.md), ms; 0 = no scheduler. */
  CAIRN_FOUNDRY_AGENT_TICK_MS: z.coerce.number().int().min(0).max(3_600_000).default(5_000),
  /** Alert deduplication window: one notification per agent, entity and window, ms; default 1 hour. */
  CAIRN_FOUNDRY_AGENT_ALERT_WINDOW_MS: z.coerce
    .number()
    .int()
    .min(1_000)
    .max(30 * 86_400_000)
    .default(3_600_000),
  /** Delivery attempts of one notification (the first included) and the backoff base between them, ms. */
  CAIRN_FOUNDRY_AGENT_ALERT_ATTEMPTS: z.coerce.number().int().min(1).max(10).default(5),
  CAIRN_FOUNDRY_AGENT_ALERT_BACKOFF_MS: z.coerce.number().int().min(10).max(3_600_000).default(2_000),
  /** Deadline of one webhook POST, ms. */
  CAIRN_FOUNDRY_AGENT_WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(10_000),
  /** Rows per batch of a batch agent's run. */
  CAIRN_FOUNDRY_AGENT_BATCH_ROWS: z.coerce.number().int().min(1).max(100_000).default(5_000),
});

type FoundryEnv = z.infer<typeof foundryEnv>;

export interface FoundryConfig {
  foundry: {
    neo4j: { url: string; user: string; password: string | undefined; database: string } | null;
    uploadMaxBytes: number;
    buildTimeoutMs: number;
    /** The catalog the lab opens for training; null when either variable is unset. */
    labCatalog: { catalogUri: string; warehouse: string } | null;
    train: { algorithms: string[] | null; timeoutS: number | null };
    tune: { families: string[] | null; timeoutS: number | null };
    /** The inference server and its model repository; null when either variable is unset. */
    inference: { url: string; repository: string } | null;
    /** The ONNX fast path of predict: on ("onnx") or off (every prediction through OIP). */
    fastPath: "onnx" | "off";
    /** Agents: scheduler tick (0 = off), alert window, delivery attempts and backoff, webhook deadline, batch size. */
    agents: {
      tickMs: number;
      alertWindowMs: number;
      alertAttempts: number;
      alertBackoffMs: number;
      webhookTimeoutMs: number;
      batchRows: number;
    };
  };
}

export function foundryConfig(e: FoundryEnv): FoundryConfig {
  return {
    foundry: {
      neo4j: e.CAIRN_NEO4J_URL
        ? {
            url: e.CAIRN_NEO4J_URL,
            user: e.CAIRN_NEO4J_USER,
            password: e.CAIRN_NEO4J_PASSWORD,
            database: e.CAIRN_NEO4J_DATABASE,
          }
        : null,
      uploadMaxBytes: e.CAIRN_FOUNDRY_UPLOAD_MAX_BYTES,
      buildTimeoutMs: e.CAIRN_FOUNDRY_BUILD_TIMEOUT_MS,
      labCatalog:
        e.CAIRN_LAKEHOUSE_CATALOG_URI && e.CAIRN_LAKEHOUSE_WAREHOUSE
          ? { catalogUri: e.CAIRN_LAKEHOUSE_CATALOG_URI, warehouse: e.CAIRN_LAKEHOUSE_WAREHOUSE }
          : null,
      train: { algorithms: e.CAIRN_FOUNDRY_TRAIN_ALGORITHMS, timeoutS: e.CAIRN_FOUNDRY_TRAIN_TIMEOUT_S ?? null },
      tune: { families: e.CAIRN_FOUNDRY_TUNE_FAMILIES, timeoutS: e.CAIRN_FOUNDRY_TUNE_TIMEOUT_S ?? null },
      inference:
        e.CAIRN_FOUNDRY_INFERENCE_URL && e.CAIRN_FOUNDRY_INFERENCE_REPOSITORY
          ? { url: e.CAIRN_FOUNDRY_INFERENCE_URL, repository: e.CAIRN_FOUNDRY_INFERENCE_REPOSITORY }
          : null,
      fastPath: e.CAIRN_FOUNDRY_FAST_PATH,
      agents: {
        tickMs: e.CAIRN_FOUNDRY_AGENT_TICK_MS,
        alertWindowMs: e.CAIRN_FOUNDRY_AGENT_ALERT_WINDOW_MS,
        alertAttempts: e.CAIRN_FOUNDRY_AGENT_ALERT_ATTEMPTS,
        alertBackoffMs: e.CAIRN_FOUNDRY_AGENT_ALERT_BACKOFF_MS,
        webhookTimeoutMs: e.CAIRN_FOUNDRY_AGENT_WEBHOOK_TIMEOUT_MS,
        batchRows: e.CAIRN_FOUNDRY_AGENT_BATCH_ROWS,
      },
    },
  };
}
