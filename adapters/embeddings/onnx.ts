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
 * A pool of `processes` model processes (each with `threads` ONNX Runtime threads) serves the
 * batches: each batch goes to the process with the fewest batches in hand, so the batches of
 * one large upload run on every core at once, and a long batch in one process never holds the
 * batches of other uploads that another process can take. processes x threads should not
 * exceed the cores (the config derives threads from that; docs/embeddings.md).
 *
 * Every model process is started by create() and must answer "ready" (models loaded) before
 * the embedder is returned, so a missing or broken model fails start-up, not the first upload.
 * A process that dies later (a native crash, a kill) fails only the batches it held, with
 * "unavailable"; the next batch sent to its place starts a new one.
 */
import type { Embedder } from "../../domain/documents/ports.ts";
import type { EmbedKind } from "../../domain/documents/types.ts";
import { AppError } from "../../domain/errors.ts";
import { clipText, PADDED_TOKENS_PER_RUN } from "./encode.ts";
import { type ModelProcess, startModelProcess } from "./model-process.ts";
import { assertInstalled, type ComponentModel, modelKey, type Precision } from "./models.ts";
import type { FromWorker } from "./protocol.ts";

export interface OnnxEmbedderOptions {
  modelsDir: string;
  /** Component models, concatenated in this order (models.EMBEDDING_MODELS[name]). */
  components: readonly ComponentModel[];
  /** Label returned as `model` (with "@int8" for int8); defaults to the components' names joined by "+". */
  name?: string;
  /** Weights to load: the published fp32 export (the default here) or its int8 quantisation. */
  precision?: Precision;
  /** Model processes in the pool (default 1). */
  processes?: number;
  /** ONNX Runtime intra-op threads per process; 0 = its default (one per core). */
  threads?: number;
  batchSize?: number;
  /**
   * Padded tokens one model run may hold inside a batch (default encode.ts PADDED_TOKENS_PER_RUN);
   * Infinity runs each batch whole, padded to its longest text (the service before issue 20).
   */
  paddedTokensPerRun?: number;
  maxPendingBatches?: number;
  maxWaitingBatches?: number;
}

interface Pending {
  resolve: (rows: Float32Array) => void;
  reject: (err: Error) => void;
}

/** One place in the pool: its running process (null after a crash) and the batches it holds. */
interface Slot {
  worker: ModelProcess | null;
  starting: Promise<ModelProcess> | null;
  readonly inFlight: Map<number, Pending>;
  /** Batches given to this place and not yet answered (counted before the send is awaited). */
  assigned: number;
  drained: (() => void) | null;
}

export class OnnxEmbedder implements Embedder {
  readonly dim: number;
  readonly model: string;
  private readonly batchSize: number;
  private readonly maxPending: number;
  private readonly maxWaiting: number;
  private readonly maxTokens: number;
  private readonly slots: Slot[];
  private readonly waiting: (() => void)[] = [];
  private slotsUsed = 0;
  private nextId = 1;
  private closed = false;
  /** How many times a crashed worker was replaced (for logs and tests). */
  restarts = 0;

  private constructor(
    workers: ModelProcess[],
    private readonly opts: OnnxEmbedderOptions,
  ) {
    this.dim = opts.components.reduce((s, c) => s + c.dim, 0);
    this.model = modelKey(opts.name ?? opts.components.map((c) => c.name).join("+"), opts.precision ?? "fp32");
    this.batchSize = opts.batchSize ?? 16;
    // Two batches per process keep each one busy while the next batch is sent.
    this.maxPending = opts.maxPendingBatches ?? Math.max(4, 2 * workers.length);
    this.maxWaiting = opts.maxWaitingBatches ?? 1024;
    this.maxTokens = Math.max(...opts.components.map((c) => c.maxTokens));
    this.slots = workers.map((w) => {
      const slot: Slot = { worker: null, starting: null, inFlight: new Map(), assigned: 0, drained: null };
      slot.worker = this.adopt(slot, w);
      return slot;
    });
  }

  /** Starts every model process and waits until each has loaded every model; throws when one cannot. */
  static async create(opts: OnnxEmbedderOptions): Promise<OnnxEmbedder> {
    if (opts.components.length === 0) throw new Error("OnnxEmbedder needs at least one model");
    const label = opts.name ?? opts.components.map((c) => c.name).join("+");
    const precision = opts.precision ?? "fp32";
    assertInstalled(opts.modelsDir, opts.components, label, precision);
    const n = Math.max(1, opts.processes ?? 1);
    const started = await Promise.allSettled(Array.from({ length: n }, () => startWorker(opts)));
    const failed = started.find((r) => r.status === "rejected");
    if (failed) {
      for (const r of started) if (r.status === "fulfilled") r.value.stop();
      throw failed.reason;
    }
    return new OnnxEmbedder(
      started.map((r) => (r as PromiseFulfilledResult<ModelProcess>).value),
      opts,
    );
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

  /** Process id of the first model process (null when none is running), for operators and tests. */
  get pid(): number | null {
    return this.slots[0]?.worker?.proc.pid ?? null;
  }

  /** Process ids of the running model processes, one per pool place (null where none runs). */
  get pids(): (number | null)[] {
    return this.slots.map((s) => s.worker?.proc.pid ?? null);
  }

  /** Refuses new work, lets the batches already in the model processes finish, then stops them. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const w of this.waiting.splice(0)) w();
    await Promise.all(this.slots.map((slot) => this.closeSlot(slot)));
  }

  private async closeSlot(slot: Slot): Promise<void> {
    const worker = slot.worker ?? (await slot.starting?.catch(() => null)) ?? null;
    if (!worker) return;
    if (slot.inFlight.size > 0) {
      const drained = new Promise<void>((resolve) => {
        slot.drained = resolve;
      });
      worker.send({ type: "drain" });
      await drained;
    }
    slot.worker = null;
    worker.stop();
  }

  /** Runs one batch once a queue slot is free, in the process with the fewest batches in hand. */
  private async run(texts: string[], kind: EmbedKind): Promise<Float32Array> {
    await this.acquire();
    // Chosen and counted in one synchronous step, so batches admitted together spread out.
    const slot = this.slots.reduce((a, b) => (b.assigned < a.assigned ? b : a));
    slot.assigned++;
    try {
      this.assertUsable();
      const worker = await this.currentWorker(slot);
      const id = this.nextId++;
      const rows = new Promise<Float32Array>((resolve, reject) => slot.inFlight.set(id, { resolve, reject }));
      worker.send({ type: "embed", id, texts, kind });
      return await rows;
    } finally {
      slot.assigned--;
      this.releaseSlot();
    }
  }

  /** The slot's live model process, or a new one (single flight) after a crash. */
  private async currentWorker(slot: Slot): Promise<ModelProcess> {
    if (slot.worker) return slot.worker;
    slot.starting ??= startWorker(this.opts).then(
      (w) => {
        slot.starting = null;
        if (this.closed) {
          w.stop();
          throw new AppError("unavailable", "the embedder is closed");
        }
        this.restarts++;
        slot.worker = this.adopt(slot, w);
        return w;
      },
      (err: unknown) => {
        slot.starting = null;
        throw new AppError("unavailable", `the embedding process could not be restarted: ${(err as Error).message}`);
      },
    );
    return slot.starting;
  }

  private adopt(slot: Slot, worker: ModelProcess): ModelProcess {
    worker.onMessage = (msg) => this.onMessage(slot, msg);
    worker.onExit = (reason) => this.lost(slot, worker, `embedding process ${reason}`);
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

  private onMessage(slot: Slot, msg: FromWorker): void {
    if (msg.type === "drained") slot.drained?.();
    if (msg.type !== "result" && msg.type !== "error") return;
    const p = slot.inFlight.get(msg.id);
    if (!p) return;
    slot.inFlight.delete(msg.id);
    if (msg.type === "result") p.resolve(msg.vectors);
    else p.reject(new Error(`embedding failed: ${msg.message}`));
  }

  /**
   * The model process died (a native crash, a kill, or it exited): the batches it held fail
   * with "unavailable"; the next batch starts a fresh process.
   */
  private lost(slot: Slot, worker: ModelProcess, reason: string): void {
    if (slot.worker !== worker) return;
    slot.worker = null;
    for (const p of slot.inFlight.values()) p.reject(new AppError("unavailable", reason));
    slot.inFlight.clear();
    slot.drained?.();
  }
}

function startWorker(opts: OnnxEmbedderOptions): Promise<ModelProcess> {
  return startModelProcess({
    modelsDir: opts.modelsDir,
    components: opts.components,
    precision: opts.precision ?? "fp32",
    threads: opts.threads ?? 0,
    paddedTokensPerRun: opts.paddedTokensPerRun ?? PADDED_TOKENS_PER_RUN,
  });
}
