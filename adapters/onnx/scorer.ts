/**
 * OnnxScorer: the fast path's FastScorer (domain/foundry/serving/fast-path.ts) over
 * onnxruntime-node, off the service's event loop, in a small pool of model processes (host.ts;
 * why processes and not threads or onnxruntime's own async run is said there).
 *
 * - Rows become column tensors here (tensors.ts, the lab's input contract); a batch larger than
 *   `batchRows` is cut into chunks that run on the processes in parallel, results in row order.
 * - A process keeps up to `cacheSize` sessions (LRU by sha256). The bytes travel once per process
 *   and model: a process that lacks a model answers "missing" and gets them (read through
 *   `load`, one read per model at a time); it checks the hash before creating the session.
 * - Bounded: at most `maxPending` chunks in flight across the pool; past it score() refuses at
 *   once with AppError "unavailable" (reject new work, never drop accepted work).
 * - A process that dies (native crash, kill) fails only the chunks it held with "unavailable";
 *   the next chunk starts a new one.
 */
import { AppError } from "../../domain/errors.ts";
import type { FastModel, FastScorer, FastScores } from "../../domain/foundry/serving/fast-path.ts";
import type { JsonValue } from "../../domain/ports.ts";
import { OnnxChild } from "./child.ts";
import type { Column, FromHost, ToHost } from "./protocol.ts";
import { toFeeds } from "./tensors.ts";

export interface OnnxScorerOptions {
  /** Model processes (chunks of one batch run on them in parallel). Default 1. */
  processes?: number;
  /** ONNX Runtime intra-op threads per process. Default 1. */
  intraOpThreads?: number;
  /** Sessions kept per process (LRU). Default 16. */
  cacheSize?: number;
  /** Rows per chunk. Default 8192. */
  batchRows?: number;
  /** Chunks in flight across the pool before score() refuses. Default 256. */
  maxPending?: number;
  /** Reads a model's bytes from `FastModel.path`. Default: a local file. */
  load?: (path: string) => Promise<Uint8Array>;
}

interface Chunk {
  model: FastModel;
  rows: number;
  feeds: Record<string, Column>;
  resolve: (r: Extract<FromHost, { type: "result" }>) => void;
  reject: (err: Error) => void;
}

export class OnnxScorer implements FastScorer {
  private readonly hosts: (Host | null)[];
  private readonly batchRows: number;
  private readonly maxPending: number;
  private readonly load: (path: string) => Promise<Uint8Array>;
  private readonly reading = new Map<string, Promise<Uint8Array>>();
  private pending = 0;
  private nextId = 1;
  private closed = false;
  /** Processes replaced after a crash (for logs and tests). */
  restarts = 0;

  constructor(private readonly opts: OnnxScorerOptions = {}) {
    this.hosts = new Array(Math.max(1, opts.processes ?? 1)).fill(null);
    this.batchRows = Math.max(1, opts.batchRows ?? 8192);
    this.maxPending = Math.max(1, opts.maxPending ?? 256);
    this.load = opts.load ?? (async (path) => new Uint8Array(await Bun.file(path).arrayBuffer()));
  }

  async score(model: FastModel, rows: Record<string, JsonValue>[]): Promise<FastScores> {
    if (this.closed) throw new AppError("unavailable", "the ONNX scorer is closed");
    if (rows.length === 0) return {};
    const chunks: Promise<Extract<FromHost, { type: "result" }>>[] = [];
    const needed = Math.ceil(rows.length / this.batchRows);
    if (this.pending + needed > this.maxPending) {
      throw new AppError("unavailable", "the ONNX scorer is saturated; retry shortly", undefined, {
        "Retry-After": "1",
      });
    }
    for (let start = 0; start < rows.length; start += this.batchRows) {
      // Other requests get the event loop between two chunks of a large batch (building one
      // chunk's tensors is the only per-row work on this thread).
      if (start > 0) await new Promise<void>((resolve) => setImmediate(resolve));
      const part = rows.slice(start, start + this.batchRows);
      const chunk = this.run(model, part.length, toFeeds(model.inputs, part));
      chunk.catch(() => {}); // observed by Promise.all below, even if it fails while we yield
      chunks.push(chunk);
    }
    const results = await Promise.all(chunks);
    const output = results[0]?.output ?? "values";
    if (output === "values") {
      const values: number[] = [];
      for (const r of results) for (const v of r.data) values.push(v);
      return { values };
    }
    const probabilities: number[][] = [];
    for (const r of results) {
      for (let i = 0; i < r.data.length; i += r.width) probabilities.push(Array.from(r.data.subarray(i, i + r.width)));
    }
    return { probabilities };
  }

  /** Starts the processes now (else on first use); resolves once each answers. */
  async start(): Promise<void> {
    await Promise.all(this.hosts.map((_, i) => this.host(i).ready));
  }

  close(): void {
    this.closed = true;
    for (const h of this.hosts) h?.stop();
    this.hosts.fill(null);
  }

  private run(model: FastModel, rows: number, feeds: Record<string, Column>) {
    this.pending++;
    return new Promise<Extract<FromHost, { type: "result" }>>((resolve, reject) => {
      const chunk: Chunk = { model, rows, feeds, resolve, reject };
      const host = this.host(this.leastBusy());
      host.ready.then(
        () => this.dispatch(host, chunk, false),
        (err: Error) => reject(new AppError("unavailable", `the ONNX model process did not start: ${err.message}`)),
      );
    }).finally(() => {
      this.pending--;
    });
  }

  private dispatch(host: Host, chunk: Chunk, withBytes: boolean): void {
    const id = this.nextId++;
    const send = (bytes?: Uint8Array) => {
      host.inFlight.set(id, chunk);
      const msg: ToHost = { type: "score", id, sha256: chunk.model.sha256, rows: chunk.rows, feeds: chunk.feeds };
      if (bytes) msg.bytes = bytes;
      host.send(msg);
    };
    if (!withBytes) {
      send();
      return;
    }
    this.bytes(chunk.model).then(send, (err: Error) =>
      chunk.reject(new AppError("internal", `the ONNX model ${chunk.model.path} cannot be read: ${err.message}`)),
    );
  }

  private bytes(model: FastModel): Promise<Uint8Array> {
    let p = this.reading.get(model.sha256);
    if (!p) {
      p = this.load(model.path).finally(() => this.reading.delete(model.sha256));
      this.reading.set(model.sha256, p);
    }
    return p;
  }

  private onMessage(host: Host, msg: FromHost): void {
    if (msg.type === "ready") return;
    const chunk = host.inFlight.get(msg.id);
    if (!chunk) return;
    host.inFlight.delete(msg.id);
    if (msg.type === "result") chunk.resolve(msg);
    else if (msg.type === "missing") this.dispatch(host, chunk, true);
    else chunk.reject(new AppError(msg.code, `ONNX scoring failed: ${msg.message}`));
  }

  private leastBusy(): number {
    let best = 0;
    let load = Number.POSITIVE_INFINITY;
    for (let i = 0; i < this.hosts.length; i++) {
      const n = this.hosts[i]?.inFlight.size ?? 0;
      if (n < load) [best, load] = [i, n];
    }
    return best;
  }

  private host(i: number): Host {
    const existing = this.hosts[i];
    if (existing) return existing;
    const host = new Host(this.opts);
    host.onMessage = (msg) => this.onMessage(host, msg);
    host.onExit = (reason) => {
      if (this.hosts[i] === host) {
        this.hosts[i] = null;
        if (!this.closed) this.restarts++;
      }
      for (const c of host.inFlight.values()) c.reject(new AppError("unavailable", `the ONNX model process ${reason}`));
      host.inFlight.clear();
    };
    this.hosts[i] = host;
    return host;
  }
}

/** One model process (child.ts), with the chunks it holds and a promise of its first "ready". */
class Host extends OnnxChild<ToHost, FromHost> {
  readonly inFlight = new Map<number, Chunk>();
  readonly ready: Promise<void>;
  private started: () => void = () => {};
  private failed: (err: Error) => void = () => {};

  constructor(opts: OnnxScorerOptions) {
    super(new URL("./host.ts", import.meta.url));
    this.ready = new Promise<void>((resolve, reject) => {
      this.started = resolve;
      this.failed = reject;
    });
    this.ready.catch(() => {}); // observed by run(); never an unhandled rejection
    this.send({
      type: "init",
      cacheSize: opts.cacheSize ?? 16,
      intraOpThreads: opts.intraOpThreads ?? 1,
    });
  }

  protected override received(msg: FromHost): void {
    if (msg.type === "ready") this.started();
    super.received(msg);
  }

  protected override ended(how: string): void {
    this.failed(new Error(how));
  }
}
