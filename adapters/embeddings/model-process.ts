/**
 * One model process of the ONNX embedder: a Bun child running onnx-host.ts with an IPC channel
 * (structured-clone messages, so vectors arrive as Float32Array). Why a process and not a
 * thread is said in onnx-host.ts.
 */
import type { Subprocess } from "bun";
import { type ComponentModel, componentFiles, type Precision } from "./models.ts";
import type { FromWorker, ToWorker } from "./protocol.ts";

/** `onExit` fires once, however the process ends. */
export class ModelProcess {
  onMessage: (msg: FromWorker) => void = () => {};
  onExit: (reason: string) => void = () => {};
  readonly proc: Subprocess;
  private stopping = false;

  constructor() {
    this.proc = Bun.spawn([process.execPath, new URL("./onnx-host.ts", import.meta.url).pathname], {
      ipc: (msg: FromWorker) => this.onMessage(msg),
      serialization: "advanced",
      stdin: "ignore",
      stdout: "ignore",
      // The child's own errors (a native crash report) go where the service's own stderr goes.
      stderr: "inherit",
      env: { ...process.env, ONNXRUNTIME_NODE_INSTALL: "skip" },
    });
    void this.proc.exited.then((code) => {
      const how = this.proc.signalCode ? `was killed by ${this.proc.signalCode}` : `exited with code ${code}`;
      this.onExit(this.stopping ? "was stopped" : how);
    });
  }

  send(msg: ToWorker): void {
    this.proc.send(msg);
  }

  stop(): void {
    this.stopping = true;
    this.proc.kill("SIGTERM");
  }
}

export interface ModelProcessOptions {
  modelsDir: string;
  components: readonly ComponentModel[];
  precision: Precision;
  /** ONNX Runtime intra-op threads in this process; 0 = its default (one per core). */
  threads: number;
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
  });
  try {
    await ready;
  } catch (err) {
    worker.stop();
    throw err;
  }
  return worker;
}
