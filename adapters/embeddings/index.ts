/**
 * Sentence embeddings for documents (spec 8.2: 768 dimensions). createEmbedder() picks the
 * adapter from configuration: a remote endpoint when CAIRN_EMBEDDINGS_URL is set, otherwise
 * the local ONNX models that `scripts/setup.sh --models` installed. Either way the embedder is
 * ready (models loaded, or endpoint probed) when the promise resolves, and its width is
 * EMBEDDING_DIM, or start-up fails naming why.
 */
import type { Config } from "../../config.ts";
import type { Embedder } from "../../domain/documents/ports.ts";
import { EMBEDDING_DIM } from "../../domain/documents/types.ts";
import { HttpEmbedder } from "./http.ts";
import { EMBEDDING_MODELS } from "./models.ts";
import { OnnxEmbedder } from "./onnx.ts";

export { EmbeddingWidthError, HttpEmbedder, type HttpEmbedderOptions } from "./http.ts";
export {
  COMPONENTS,
  type ComponentModel,
  DEFAULT_EMBEDDING_MODEL,
  defaultModelsDir,
  EMBEDDING_MODEL_NAMES,
  EMBEDDING_MODELS,
  type EmbeddingModelName,
  ModelNotInstalledError,
  modelKey,
  PRECISIONS,
  type Precision,
} from "./models.ts";
export { OnnxEmbedder, type OnnxEmbedderOptions } from "./onnx.ts";

export async function createEmbedder(cfg: Config["embeddings"]): Promise<Embedder> {
  if (cfg.kind === "http") {
    return HttpEmbedder.create({
      url: cfg.url,
      api: cfg.api,
      model: cfg.model,
      apiKey: cfg.apiKey,
      dim: cfg.dim,
      queryPrefix: cfg.queryPrefix,
      passagePrefix: cfg.passagePrefix,
      batchSize: cfg.batchSize,
    });
  }
  const components = EMBEDDING_MODELS[cfg.model];
  const width = components.reduce((s, c) => s + c.dim, 0);
  if (width !== EMBEDDING_DIM) {
    throw new Error(`embedding model ${cfg.model} is ${width}-dimensional; the index needs ${EMBEDDING_DIM}`);
  }
  return OnnxEmbedder.create({
    modelsDir: cfg.modelsDir,
    components,
    name: cfg.model,
    precision: cfg.precision,
    processes: cfg.processes,
    threads: cfg.threads,
    batchSize: cfg.batchSize,
  });
}
