/**
 * Embedder over local ONNX models (onnxruntime-node, CPU) running in a child process
 * (onnx-host.ts; why a process and not a thread is said there).
 *
 * A request is cut into batches of `batchSize` texts, sorted by length first so each batch is
 * padded only to lengths close to its own (dynamic padding); results come back in the caller's
 * order. Batches pass through a bounded queue: at most `maxPendingBatches` are handed to the
 * worker at once, and at most `maxWaitingBatches` more wait for a slot (first come, first
 * served). Past that, embed() refuses at once with AppError "unavailable" (named policy: reject
 * new work, never drop accepted work). Texts are clipped before they are queued
 * (encode.clipText), so the queue is bounded in bytes as well as in count.
 *
 * The model process is started by create() and must answer "ready" (models loaded) before
 * the embedder is returned, so a missing or broken model fails start-up, not the first upload.
 * A process that dies later (a native crash, a kill) fails only the batches it held, with
 * "unavailable"; the next batch starts a new one.
 */
import type { Subprocess } from "bun";
import type { Embedder } from "../../domain/documents/ports.ts";
import type { EmbedKind } from "../../domain/documents/types.ts";
import { AppError } from "../../domain/errors.ts";
import { clipText } from "./encode.ts";
import { assertInstalled, type ComponentModel, componentFiles } from "./models.ts";
import type { FromWorker, ToWorker } from "./protocol.ts";

export interface OnnxEmbedderOptions {
  modelsDir: string;
  /** Component models, concatenated in this order (models.EMBEDDING_MODELS[name]). */
  components: readonly ComponentModel[];
  /** Label returned as `model`; defaults to the components' names joined by "+". */
  name?: string;
  /** ONNX Runtime intra-op threads; 0 = its default (one per core). */
  threads?: number;
  batchSize?: number;
  maxPendingBatches?: number;
  maxWaitingBatches?: number;
}

interface Pending {
  resolve: (rows: Float32Array) => void;
  reject: (err: Error) => void;
}

export class OnnxEmbedder implements Embedder {
  readonly dim: number;
  readonly model: string;
  private readonly batchSize: number;
  private readonly maxPending: number;
  private readonly maxWaiting: number;
  private readonly maxTokens: number;
  private readonly inFlight = new Map<number, Pending>();
  private readonly waiting: (() => void)[] = [];
  private slotsUsed = 0;
  private nextId = 1;
  private closed = false;
  /** The running model process; null after a crash until the next batch starts a new one. */
  private worker: ModelProcess | null;
  private starting: Promise<ModelProcess> | null = null;
  private drained: (() => void) | null = null;
  /** How many times a crashed worker was replaced (for logs and tests). */
  restarts = 0;

  private constructor(
    worker: ModelProcess,
    private readonly opts: OnnxEmbedderOptions,
  ) {
    this.dim = opts.components.reduce((s, c) => s + c.dim, 0);
    this.model = opts.name ?? opts.components.map((c) => c.name).join("+");
    this.batchSize = opts.batchSize ?? 16;
    this.maxPending = opts.maxPendingBatches ?? 4;
    this.maxWaiting = opts.maxWaitingBatches ?? 1024;
    this.maxTokens = Math.max(...opts.components.map((c) => c.maxTokens));
    this.worker = this.adopt(worker);
  }

  /** Starts the model process and waits until every model is loaded; throws when one cannot be. */
  static async create(opts: OnnxEmbedderOptions): Promise<OnnxEmbedder> {
    if (opts.components.length === 0) throw new Error("OnnxEmbedder needs at least one model");
    const label = opts.name ?? opts.components.map((c) => c.name).join("+");
    assertInstalled(opts.modelsDir, opts.components, label);
    return new OnnxEmbedder(await startWorker(opts), opts);
  }

  async embed(texts: string[], kind: EmbedKind): Promise<Float32Array[]> {
    if (texts.length === 0) return [];
    // Longest first, so each batch pads to lengths close to its own.
    const order = texts.map((t, i) => ({ i, t: clipText(t, this.maxTokens) })).sort((a, b) => b.t.length - a.t.length);
    const batches: (typeof order)[] = [];
    for (let i = 0; i < order.length; i += this.batchSize) batches.push(order.slice(i, i + this.batchSize));
    const out = new Array<Float32Array>(texts.length);
    await Promise.all(
      batches.map(async (batch) => {
        const texts = batch.map((b) => b.t);
        const rows = await this.run(texts, kind);
        batch.forEach((b, j) => {
          out[b.i] = rows.slice(j * this.dim, (j + 1) * this.dim);
        });
      }),
    );
    return out;
  }

  /** Process id of the running model process (null when none), for operators and tests. */
  get pid(): number | null {
    return this.worker?.proc.pid ?? null;
  }

  /** Refuses new work, lets the batches already in the model process finish, then stops it. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const w of this.waiting.splice(0)) w();
    const worker = this.worker ?? (await this.starting?.catch(() => null)) ?? null;
    if (!worker) return;
    if (this.inFlight.size > 0) {
      const drained = new Promise<void>((resolve) => {
        this.drained = resolve;
      });
      worker.send({ type: "drain" });
      await drained;
    }
    this.worker = null;
    worker.stop();
  }

  /** Runs one batch once a queue slot is free. */
  private async run(texts: string[], kind: EmbedKind): Promise<Float32Array> {
    await this.acquire();
    try {
      this.assertUsable();
      const worker = await this.currentWorker();
      const id = this.nextId++;
      const rows = new Promise<Float32Array>((resolve, reject) => this.inFlight.set(id, { resolve, reject }));
      worker.send({ type: "embed", id, texts, kind });
      return await rows;
    } finally {
      this.releaseSlot();
    }
  }

  /** The live model process, or a new one (single flight) after a crash. */
  private async currentWorker(): Promise<ModelProcess> {
    if (this.worker) return this.worker;
    this.starting ??= startWorker(this.opts).then(
      (w) => {
        this.starting = null;
        if (this.closed) {
          w.stop();
          throw new AppError("unavailable", "the embedder is closed");
        }
        this.restarts++;
        this.worker = this.adopt(w);
        return w;
      },
      (err: unknown) => {
        this.starting = null;
        throw new AppError("unavailable", `the embedding process could not be restarted: ${(err as Error).message}`);
      },
    );
    return this.starting;
  }

  private adopt(worker: ModelProcess): ModelProcess {
    worker.onMessage = (msg) => this.onMessage(msg);
    worker.onExit = (reason) => this.lost(worker, `embedding process ${reason}`);
    return worker;
  }

  private async acquire(): Promise<void> {
    this.assertUsable();
    if (this.slotsUsed < this.maxPending && this.waiting.length === 0) {
      this.slotsUsed++;
      return;
    }
    if (this.waiting.length >= this.maxWaiting) {
      throw new AppError("unavailable", "the embedding queue is full; retry shortly");
    }
    // The slot is handed over by releaseSlot() without being freed in between.
    await new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  private releaseSlot(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.slotsUsed--;
  }

  private assertUsable(): void {
    if (this.closed) throw new AppError("unavailable", "the embedder is closed");
  }

  private onMessage(msg: FromWorker): void {
    if (msg.type === "drained") this.drained?.();
    if (msg.type !== "result" && msg.type !== "error") return;
    const p = this.inFlight.get(msg.id);
    if (!p) return;
    this.inFlight.delete(msg.id);
    if (msg.type === "result") p.resolve(msg.vectors);
    else p.reject(new Error(`embedding failed: ${msg.message}`));
  }

  /**
   * The model process died (a native crash, a kill, or it exited): the batches it held fail
   * with "unavailable"; the next batch starts a fresh process.
   */
  private lost(worker: ModelProcess, reason: string): void {
    if (this.worker !== worker) return;
    this.worker = null;
    this.rejectInFlight(reason);
    this.drained?.();
  }

  private rejectInFlight(reason: string): void {
    for (const p of this.inFlight.values()) p.reject(new AppError("unavailable", reason));
    this.inFlight.clear();
  }
}

/**
 * One model process: a Bun child with an IPC channel (structured-clone messages, so vectors
 * arrive as Float32Array). `onExit` fires once, however the process ends.
 */
class ModelProcess {
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

/** A model process with every model loaded, or the reason it could not load them. */
async function startWorker(opts: OnnxEmbedderOptions): Promise<ModelProcess> {
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
    components: opts.components.map((model) => ({ model, files: componentFiles(opts.modelsDir, model) })),
    threads: opts.threads ?? 0,
  });
  try {
    await ready;
  } catch (err) {
    worker.stop();
    throw err;
  }
  return worker;
}
