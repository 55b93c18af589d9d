/**
 * The child process that runs the ONNX models (started by onnx.ts with an IPC channel).
 *
 * Why a process and not a worker thread: onnxruntime-node is a native module, and under Bun a
 * native fault while loading or running it (seen: a segfault loading the module in a fresh
 * worker thread in the middle of the test suite; terminating a thread mid-inference aborts the
 * process) takes down every thread of the process — the whole service. In a child process the
 * same fault costs only the batches in flight; the parent starts a new child for the next one.
 *
 * Messages are handled strictly one after another (a promise chain): ONNX Runtime already
 * spreads one batch over `threads` cores, and serial handling keeps one batch in memory.
 * The child exits when its parent goes away (IPC disconnect, or re-parented), so a killed
 * service never leaves a model process behind.
 */
import { readFileSync } from "node:fs";
import * as ort from "onnxruntime-node";
import {
  type BatchInputs,
  BertTokenizer,
  concatNormalized,
  PADDED_TOKENS_PER_RUN,
  pool,
  runsByLength,
} from "./encode.ts";
import type { ComponentModel } from "./models.ts";
import type { FromWorker, ToWorker } from "./protocol.ts";

interface Loaded {
  model: ComponentModel;
  tokenizer: BertTokenizer;
  session: ort.InferenceSession;
}

let loaded: Loaded[] = [];
let paddedTokensPerRun = PADDED_TOKENS_PER_RUN;
let chain: Promise<void> = Promise.resolve();

function send(msg: FromWorker): void {
  process.send?.(msg);
}

async function init(msg: Extract<ToWorker, { type: "init" }>): Promise<void> {
  try {
    const options: ort.InferenceSession.SessionOptions = {
      executionProviders: ["cpu"],
      graphOptimizationLevel: "all",
      ...(msg.threads > 0 ? { intraOpNumThreads: msg.threads, interOpNumThreads: 1 } : {}),
      // Each session owns a thread pool; spinning threads of one model would steal the cores
      // the other model (and the rest of the machine) is running on.
      // Measured: with spinning, the pair's query p99 was ~4x worse (bench/embeddings.ts).
      extra: { session: { intra_op: { allow_spinning: "0" }, inter_op: { allow_spinning: "0" } } },
    };
    paddedTokensPerRun = msg.paddedTokensPerRun;
    loaded = await Promise.all(
      msg.components.map(async ({ model, files }) => ({
        model,
        tokenizer: new BertTokenizer(JSON.parse(readFileSync(files.tokenizer, "utf8"))),
        session: await ort.InferenceSession.create(files.onnx, options),
      })),
    );
    send({ type: "ready" });
  } catch (err) {
    send({ type: "fatal", message: err instanceof Error ? err.message : String(err) });
  }
}

/** One model over one padded run: a pooled, normalised vector per row. */
async function runModel(model: ComponentModel, session: ort.InferenceSession, b: BatchInputs): Promise<Float32Array[]> {
  const shape = [b.batch, b.seqLen];
  const feeds: Record<string, ort.Tensor> = {
    input_ids: new ort.Tensor("int64", b.inputIds, shape),
    attention_mask: new ort.Tensor("int64", b.attentionMask, shape),
  };
  if (session.inputNames.includes("token_type_ids")) {
    feeds.token_type_ids = new ort.Tensor("int64", b.tokenTypeIds, shape);
  }
  const out = await session.run(feeds);
  try {
    const hidden = out.last_hidden_state ?? out[session.outputNames[0] as string];
    if (!hidden) throw new Error(`${model.name}: the ONNX model returned no hidden state`);
    const dims = hidden.dims;
    if (dims[2] !== model.dim) throw new Error(`${model.name}: hidden width ${dims[2]}, expected ${model.dim}`);
    return pool(hidden.data as Float32Array, dims, b.attentionMask, model.pooling);
  } finally {
    for (const t of Object.values(out)) t.dispose();
  }
}

async function embed(msg: Extract<ToWorker, { type: "embed" }>): Promise<void> {
  try {
    const perModel: Float32Array[][] = [];
    for (const { model, tokenizer, session } of loaded) {
      const prefix = msg.kind === "query" ? model.queryPrefix : model.passagePrefix;
      const ids = msg.texts.map((t) => tokenizer.ids(t, prefix, model.maxTokens));
      const rows = new Array<Float32Array>(ids.length);
      for (const run of runsByLength(
        ids.map((r) => r.length),
        paddedTokensPerRun,
      )) {
        const b = tokenizer.padded(run.map((i) => ids[i] as number[]));
        const pooled = await runModel(model, session, b);
        run.forEach((i, j) => {
          rows[i] = pooled[j] as Float32Array;
        });
      }
      perModel.push(rows);
    }
    const dim = loaded.reduce((s, l) => s + l.model.dim, 0);
    const vectors = new Float32Array(msg.texts.length * dim);
    for (let i = 0; i < msg.texts.length; i++) {
      vectors.set(concatNormalized(perModel.map((rows) => rows[i] as Float32Array)), i * dim);
    }
    send({ type: "result", id: msg.id, vectors });
  } catch (err) {
    send({ type: "error", id: msg.id, message: err instanceof Error ? err.message : String(err) });
  }
}

process.on("message", (msg: ToWorker) => {
  chain = chain.then(() => {
    if (msg.type === "init") return init(msg);
    if (msg.type === "embed") return embed(msg);
    send({ type: "drained" });
  });
});

// Die with the parent: the IPC channel closes when it exits, and a re-parented child (its
// parent was SIGKILLed) notices within a second.
const parent = process.ppid;
process.on("disconnect", () => process.exit(0));
setInterval(() => {
  if (process.ppid !== parent) process.exit(0);
}, 1000).unref();
