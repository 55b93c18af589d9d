/**
 * One typed configuration object, parsed once from the environment at start.
 * The profile follows from which engine URLs are set: none set means the embedded
 * profile (SQLite, in-process queue and counters); each URL moves one capability
 * onto its real engine. A bad value fails start-up with a message naming it.
 *
 * Each area's variables, its part of `Config` and how that part is built live in config/;
 * this file composes them into one schema and one `loadConfig()`.
 */
import type { z } from "zod";
import { type CoreConfig, checkCore, coreConfig, coreEnv } from "./config/core.ts";
import { checkDocuments, type DocumentsConfig, documentsConfig, documentsEnv } from "./config/documents.ts";
import { type CollabConfig, collabConfig, collabEnv } from "./config/editor.ts";
import { ConfigError } from "./config/env.ts";
import { checkSec, type SecConfig, secConfig, secEnv } from "./config/financials.ts";
import { type FoundryConfig, foundryConfig, foundryEnv } from "./config/foundry.ts";
import { type McpConfig, mcpConfig, mcpEnv } from "./config/mcp.ts";
import { type NewsConfig, newsConfig, newsEnv } from "./config/news.ts";
import { type StorageConfig, storageConfig, storageEnv } from "./config/storage.ts";

export type { Profile } from "./config/core.ts";
export { EMBEDDING_MODEL_CHOICES, type EmbeddingModelChoice } from "./config/documents.ts";
export { ConfigError };

export const EnvSchema = coreEnv
  .extend(storageEnv.shape)
  .extend(documentsEnv.shape)
  .extend(collabEnv.shape)
  .extend(secEnv.shape)
  .extend(newsEnv.shape)
  .extend(foundryEnv.shape)
  .extend(mcpEnv.shape);

export type Env = z.infer<typeof EnvSchema>;

export interface Config
  extends CoreConfig,
    StorageConfig,
    DocumentsConfig,
    CollabConfig,
    SecConfig,
    NewsConfig,
    FoundryConfig,
    McpConfig {}

/** Parse the environment; throws ConfigError naming every bad variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const parsed = EnvSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join(".")}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join("\n")}`);
  }
  const e = parsed.data;
  checkSec(e);
  checkDocuments(e);
  checkCore(e);
  const core = coreConfig(e);
  return {
    ...core,
    ...storageConfig(e, core.dataDir),
    ...documentsConfig(e, env),
    ...collabConfig(e),
    ...secConfig(e),
    ...newsConfig(e),
    ...foundryConfig(e),
    ...mcpConfig(e),
  };
}
