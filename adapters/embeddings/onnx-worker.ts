/**
 * The worker thread that runs the ONNX models, so tokenising and inference never block the
 * service's event loop. Messages are handled strictly one after another (a promise chain):
 * ONNX Runtime already spreads one batch over `threads` cores, and serial handling keeps the
 * memory of one batch at a time.
 */
import { readFileSync } from "node:fs";
import * as ort from "onnxruntime-node";
import { BertTokenizer, concatNormalized, pool } from "./encode.ts";
import type { ComponentModel } from "./models.ts";
import type { FromWorker, ToWorker } from "./protocol.ts";

declare const self: Worker;

interface Loaded {
  model: ComponentModel;
  tokenizer: BertTokenizer;
  session: ort.InferenceSession;
}

let loaded: Loaded[] = [];
let chain: Promise<void> = Promise.resolve();

function send(msg: FromWorker, transfer: Transferable[] = []): void {
  self.postMessage(msg, transfer);
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

async function embed(msg: Extract<ToWorker, { type: "embed" }>): Promise<void> {
  try {
    const perModel: Float32Array[][] = [];
    for (const { model, tokenizer, session } of loaded) {
      const prefix = msg.kind === "query" ? model.queryPrefix : model.passagePrefix;
      const b = tokenizer.batch(msg.texts, prefix, model.maxTokens);
      const shape = [b.batch, b.seqLen];
      const feeds: Record<string, ort.Tensor> = {
        input_ids: new ort.Tensor("int64", b.inputIds, shape),
        attention_mask: new ort.Tensor("int64", b.attentionMask, shape),
      };
      if (session.inputNames.includes("token_type_ids")) {
        feeds.token_type_ids = new ort.Tensor("int64", b.tokenTypeIds, shape);
      }
      const out = await session.run(feeds);
      const hidden = out.last_hidden_state ?? out[session.outputNames[0] as string];
      if (!hidden) throw new Error(`${model.name}: the ONNX model returned no hidden state`);
      const dims = hidden.dims;
      if (dims[2] !== model.dim) throw new Error(`${model.name}: hidden width ${dims[2]}, expected ${model.dim}`);
      perModel.push(pool(hidden.data as Float32Array, dims, b.attentionMask, model.pooling));
      for (const t of Object.values(out)) t.dispose();
    }
    const dim = loaded.reduce((s, l) => s + l.model.dim, 0);
    const vectors = new Float32Array(msg.texts.length * dim);
    for (let i = 0; i < msg.texts.length; i++) {
      vectors.set(concatNormalized(perModel.map((rows) => rows[i] as Float32Array)), i * dim);
    }
    send({ type: "result", id: msg.id, vectors }, [vectors.buffer]);
  } catch (err) {
    send({ type: "error", id: msg.id, message: err instanceof Error ? err.message : String(err) });
  }
}

self.onmessage = (event: MessageEvent<ToWorker>) => {
  const msg = event.data;
  chain = chain.then(() => {
    if (msg.type === "init") return init(msg);
    if (msg.type === "embed") return embed(msg);
    send({ type: "drained" });
  });
};
