/**
 * The sentence-embedding models the ONNX embedder can load, as their model cards describe them
 * (pooling, prefixes, width). The files come from `scripts/install-models.sh` (run by
 * `scripts/setup.sh --models`); nothing is downloaded at run time.
 *
 * A choice is a list of components. Its vector is the concatenation of every component's own
 * L2-normalised vector, scaled by 1/sqrt(n) so the whole is unit length again; with one
 * component that is simply the model's vector. No dimension is padded: the widths add up to
 * EMBEDDING_DIM or the choice is refused.
 */
import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

export type Pooling = "cls" | "mean";

export interface ComponentModel {
  /** Folder name under the models directory; holds model.onnx and tokenizer.json. */
  name: string;
  dim: number;
  pooling: Pooling;
  queryPrefix: string;
  passagePrefix: string;
  /** The model's position limit, special tokens included. */
  maxTokens: number;
}

/** BAAI/bge-small-en-v1.5: CLS pooling; queries carry the retrieval instruction, passages nothing. */
const BGE_QUERY = "Represent this sentence for searching relevant passages: ";

export const COMPONENTS = {
  "bge-small-en-v1.5": {
    name: "bge-small-en-v1.5",
    dim: 384,
    pooling: "cls",
    queryPrefix: BGE_QUERY,
    passagePrefix: "",
    maxTokens: 512,
  },
  /** intfloat/e5-small-v2: mean pooling over the attention mask; "query: " / "passage: ". */
  "e5-small-v2": {
    name: "e5-small-v2",
    dim: 384,
    pooling: "mean",
    queryPrefix: "query: ",
    passagePrefix: "passage: ",
    maxTokens: 512,
  },
  /** BAAI/bge-base-en-v1.5: the native 768-d model (needs internet at set-up). */
  "bge-base-en-v1.5": {
    name: "bge-base-en-v1.5",
    dim: 768,
    pooling: "cls",
    queryPrefix: BGE_QUERY,
    passagePrefix: "",
    maxTokens: 512,
  },
} as const satisfies Record<string, ComponentModel>;

export const EMBEDDING_MODELS = {
  "bge-small-en-v1.5+e5-small-v2": [COMPONENTS["bge-small-en-v1.5"], COMPONENTS["e5-small-v2"]],
  "bge-base-en-v1.5": [COMPONENTS["bge-base-en-v1.5"]],
} as const satisfies Record<string, readonly ComponentModel[]>;

export type EmbeddingModelName = keyof typeof EMBEDDING_MODELS;
export const EMBEDDING_MODEL_NAMES = Object.keys(EMBEDDING_MODELS) as EmbeddingModelName[];
export const DEFAULT_EMBEDDING_MODEL: EmbeddingModelName = "bge-small-en-v1.5+e5-small-v2";

/** Where set-up installs models: $CAIRN_MODELS_DIR, else ${XDG_CACHE_HOME:-~/.cache}/cairn/models. */
export function defaultModelsDir(env: Record<string, string | undefined> = process.env): string {
  if (env.CAIRN_MODELS_DIR) return env.CAIRN_MODELS_DIR;
  return join(env.XDG_CACHE_HOME || join(homedir(), ".cache"), "cairn", "models");
}

export interface ModelFiles {
  onnx: string;
  tokenizer: string;
}

/**
 * Which weights of a model are loaded: the fp32 export as published, or its int8 dynamic
 * quantisation (MatMul weights in int8, made at set-up by scripts/quantize-embedding.py).
 * int8 is ~2x faster on CPU and agrees with fp32 to a mean cosine above 0.99
 * (docs/embeddings.md, "Precision").
 */
export type Precision = "int8" | "fp32";
export const PRECISIONS = ["int8", "fp32"] as const satisfies readonly Precision[];

/** The file of each precision, side by side in the model's folder. */
const ONNX_FILE: Record<Precision, string> = { fp32: "model.onnx", int8: "model.int8.onnx" };

export function componentFiles(modelsDir: string, c: ComponentModel, precision: Precision = "fp32"): ModelFiles {
  return { onnx: join(modelsDir, c.name, ONNX_FILE[precision]), tokenizer: join(modelsDir, c.name, "tokenizer.json") };
}

/**
 * The name an embedder reports as `model`, which callers key stored vectors by (the retrieval
 * evaluation's vector cache): int8 vectors are close to fp32 ones but not equal, so the two
 * precisions never share a key. fp32 keeps the bare name, so existing caches stay valid.
 */
export function modelKey(name: string, precision: Precision): string {
  return precision === "fp32" ? name : `${name}@${precision}`;
}

export class ModelNotInstalledError extends Error {
  override readonly name = "ModelNotInstalledError";
}

/** Throws naming the set-up command when a component's files are missing. */
export function assertInstalled(
  modelsDir: string,
  components: readonly ComponentModel[],
  choice: string,
  precision: Precision = "fp32",
): void {
  for (const c of components) {
    const f = componentFiles(modelsDir, c, precision);
    for (const p of [f.onnx, f.tokenizer]) {
      if (!existsSync(p)) {
        const alt = precision === "int8" ? " (or load the fp32 weights: CAIRN_EMBEDDING_PRECISION=fp32)" : "";
        throw new ModelNotInstalledError(
          `embedding model ${c.name} (${precision}) is not installed (${p} is missing): run ` +
            `CAIRN_EMBEDDING_MODEL=${choice} CAIRN_MODELS_DIR=${modelsDir} scripts/setup.sh --models${alt}`,
        );
      }
    }
  }
}
