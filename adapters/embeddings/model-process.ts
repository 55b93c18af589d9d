/**
 * One model process of the ONNX embedder: a Bun child running onnx-host.ts with an IPC channel
 * (structured-clone messages, so vectors arrive as Float32Array). Why a process and not a
 * thread is said in onnx-host.ts.
 */
import { OnnxChild } from "../onnx/child.ts";
import { type ComponentModel, componentFiles, type Precision } from "./models.ts";
import type { FromWorker, ToWorker } from "./protocol.ts";

/** `onExit` fires once, however the process ends (../onnx/child.ts). */
export class ModelProcess extends OnnxChild<ToWorker, FromWorker> {
  constructor() {
    super(new URL("./onnx-host.ts", import.meta.url));
  }
}

export interface ModelProcessOptions {
  modelsDir: string;
  components: readonly ComponentModel[];
  precision: Precision;
  /** ONNX Runtime intra-op threads in this process; 0 = its default (one per core). */
  threads: number;
  /** Padded tokens one model run may hold (encode.ts PADDED_TOKENS_PER_RUN). */
  paddedTokensPerRun: number;
}

/** A model process with every model loaded, or the reason it could not load them. */
export async function startModelProcess(opts: ModelProcessOptions): Promise<ModelProcess> {
  const worker = new ModelProcess();
  const ready = new Promise<void>((resolve, reject) => {
    worker.onMessage = (msg) => {
      if (msg.type === "ready") resolve();
      else if (msg.type === "fatal") reject(new Error(`embedding models failed to load: ${msg.message}`));
    };
    worker.onExit = (reason) => reject(new Error(`embedding models failed to load: the model process ${reason}`));
  });
  worker.send({
    type: "init",
    components: opts.components.map((model) => ({
      model,
      files: componentFiles(opts.modelsDir, model, opts.precision),
    })),
    threads: opts.threads,
    paddedTokensPerRun: opts.paddedTokensPerRun,
  });
  try {
    await ready;
  } catch (err) {
    worker.stop();
    throw err;
  }
  return worker;
}
