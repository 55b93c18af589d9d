/**
 * The runtime process of OnnxScorer (started by scorer.ts with an IPC channel): ONNX Runtime
 * sessions, one per model (LRU by sha256, bounded), each `run` here — onnxruntime-node's `run`
 * returns a promise but executes on the calling JS thread (measured: a 1 ms interval ticked once
 * during a 670 ms batch), so it must not run on the service's event loop.
 *
 * Why a process and not a worker thread: the same as adapters/embeddings/onnx-host.ts (a native
 * fault in onnxruntime-node under Bun takes down every thread of its process); measured on this
 * machine, the IPC round trip costs ~70 µs p50 against ~48 µs for a worker's postMessage.
 * Messages are handled one after another (ONNX Runtime already uses `intraOpThreads` per run);
 * the process exits when its parent goes away.
 */
import * as ort from "onnxruntime-node";
import type { FromHost, ToHost } from "./protocol.ts";
import { tensorData } from "./tensors.ts";

const sessions = new Map<string, ort.InferenceSession>();
let cacheSize = 16;
let intraOp = 1;
let chain: Promise<void> = Promise.resolve();

function send(msg: FromHost): void {
  process.send?.(msg);
}

async function session(sha256: string, bytes: Uint8Array | undefined): Promise<ort.InferenceSession | null> {
  const hit = sessions.get(sha256);
  if (hit) {
    sessions.delete(sha256); // LRU: most recently used last
    sessions.set(sha256, hit);
    return hit;
  }
  if (!bytes) return null;
  const digest = new Bun.CryptoHasher("sha256").update(bytes).digest("hex");
  if (digest !== sha256) throw new Error(`the ONNX model's bytes hash to ${digest}, not ${sha256}`);
  const created = await ort.InferenceSession.create(bytes, {
    executionProviders: ["cpu"],
    graphOptimizationLevel: "all",
    intraOpNumThreads: intraOp,
    interOpNumThreads: 1,
    // Spinning threads would steal the cores the service runs on between requests.
    extra: { session: { intra_op: { allow_spinning: "0" }, inter_op: { allow_spinning: "0" } } },
  });
  sessions.set(sha256, created);
  while (sessions.size > cacheSize) {
    const oldest = sessions.keys().next().value as string;
    const evicted = sessions.get(oldest);
    sessions.delete(oldest);
    void evicted?.release();
  }
  return created;
}

async function score(msg: Extract<ToHost, { type: "score" }>): Promise<void> {
  let s: ort.InferenceSession | null;
  try {
    s = await session(msg.sha256, msg.bytes);
  } catch (err) {
    send({ type: "error", id: msg.id, message: err instanceof Error ? err.message : String(err), code: "internal" });
    return;
  }
  if (!s) {
    send({ type: "missing", id: msg.id });
    return;
  }
  try {
    const feeds: Record<string, ort.Tensor> = {};
    for (const [name, col] of Object.entries(msg.feeds)) {
      feeds[name] = new ort.Tensor(col.type, tensorData(col), [msg.rows, 1]);
    }
    const out = await s.run(feeds);
    const name = s.outputNames.includes("probabilities") ? "probabilities" : "values";
    const tensor = out[name];
    if (!tensor) throw new Error(`the model has no ${name} output`);
    const data = Float64Array.from(tensor.data as Float64Array);
    const width = tensor.dims.length > 1 ? Number(tensor.dims[1]) : 1;
    send({ type: "result", id: msg.id, output: name, width, data });
  } catch (err) {
    // A wrong input (name, type) is the caller's; anything else is ours.
    const message = err instanceof Error ? err.message : String(err);
    send({ type: "error", id: msg.id, message, code: /input|feed|type/i.test(message) ? "bad_request" : "internal" });
  }
}

process.on("message", (msg: ToHost) => {
  if (msg.type === "init") {
    cacheSize = Math.max(1, msg.cacheSize);
    intraOp = Math.max(1, msg.intraOpThreads);
    send({ type: "ready" });
    return;
  }
  chain = chain.then(() => score(msg));
});
// The parent went away (or re-parented us): nothing will ask for scores again.
process.on("disconnect", () => process.exit(0));
const parent = process.ppid;
setInterval(() => {
  if (process.ppid !== parent) process.exit(0);
}, 2000).unref();
