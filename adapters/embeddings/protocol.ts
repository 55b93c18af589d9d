/** Messages between OnnxEmbedder (service side) and each of its model processes (onnx-host.ts). */
import type { EmbedKind } from "../../domain/documents/types.ts";
import type { ComponentModel, ModelFiles } from "./models.ts";

export type ToWorker =
  | {
      type: "init";
      components: { model: ComponentModel; files: ModelFiles }[];
      threads: number;
      paddedTokensPerRun: number;
    }
  | { type: "embed"; id: number; texts: string[]; kind: EmbedKind }
  /** Answered with "drained" once every message before it has been handled. */
  | { type: "drain" };

export type FromWorker =
  | { type: "ready" }
  | { type: "drained" }
  | { type: "fatal"; message: string }
  /** `vectors` holds texts.length rows of `dim` floats, row-major (its buffer is transferred). */
  | { type: "result"; id: number; vectors: Float32Array }
  | { type: "error"; id: number; message: string };
