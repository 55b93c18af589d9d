/**
 * The numeric steps around a BERT-family ONNX model, kept free of I/O so they can be tested on
 * their own: tokenise with the model's tokenizer.json and truncate to its position limit, pad a
 * batch to its longest member (dynamic padding), pool the last hidden state as the model card
 * says (CLS or attention-masked mean), L2-normalise, and concatenate components.
 */
import { Tokenizer } from "@huggingface/tokenizers";
import type { Pooling } from "./models.ts";

/**
 * Tokenisation ignores runs of whitespace (BERT's pre-tokeniser splits on them), so collapsing
 * them and cutting very long texts before tokenising changes nothing within the first
 * `maxTokens` tokens while keeping the tokeniser's work bounded. A WordPiece token covers at
 * least one character of a word of at most 100 characters, so 64 characters per token leaves a
 * wide margin for real text.
 */
const CHARS_PER_TOKEN_BOUND = 64;

export function clipText(text: string, maxTokens: number): string {
  const collapsed = text.replace(/\s+/g, " ").trim();
  return collapsed.length > maxTokens * CHARS_PER_TOKEN_BOUND
    ? collapsed.slice(0, maxTokens * CHARS_PER_TOKEN_BOUND)
    : collapsed;
}

export interface BatchInputs {
  batch: number;
  seqLen: number;
  inputIds: BigInt64Array;
  attentionMask: BigInt64Array;
  tokenTypeIds: BigInt64Array;
}

/** A BERT WordPiece tokenizer (the three models here share the bert-base-uncased template). */
export class BertTokenizer {
  private readonly tok: Tokenizer;
  private readonly cls: number;
  private readonly sep: number;
  private readonly pad: number;

  constructor(tokenizerJson: object, config: object = {}) {
    this.tok = new Tokenizer(tokenizerJson, config);
    const id = (t: string): number => {
      const v = this.tok.token_to_id(t);
      if (v === undefined) throw new Error(`tokenizer.json has no ${t} token (not a BERT tokenizer)`);
      return v;
    };
    this.cls = id("[CLS]");
    this.sep = id("[SEP]");
    this.pad = id("[PAD]");
  }

  /** `[CLS] prefix+text [SEP]`, cut to `maxTokens` ids in all. */
  ids(text: string, prefix: string, maxTokens: number): number[] {
    const body = this.tok.encode(prefix + clipText(text, maxTokens), { add_special_tokens: false }).ids;
    const kept = body.length > maxTokens - 2 ? body.slice(0, maxTokens - 2) : body;
    return [this.cls, ...kept, this.sep];
  }

  /** One batch padded to its longest member, as the int64 tensors the ONNX exports take. */
  batch(texts: readonly string[], prefix: string, maxTokens: number): BatchInputs {
    return this.padded(texts.map((t) => this.ids(t, prefix, maxTokens)));
  }

  /** Rows of ids (from `ids`) padded to the longest one. */
  padded(rows: readonly (readonly number[])[]): BatchInputs {
    const seqLen = Math.max(...rows.map((r) => r.length));
    const n = rows.length * seqLen;
    const inputIds = new BigInt64Array(n).fill(BigInt(this.pad));
    const attentionMask = new BigInt64Array(n);
    rows.forEach((row, b) => {
      for (let i = 0; i < row.length; i++) {
        inputIds[b * seqLen + i] = BigInt(row[i] as number);
        attentionMask[b * seqLen + i] = 1n;
      }
    });
    return { batch: rows.length, seqLen, inputIds, attentionMask, tokenTypeIds: new BigInt64Array(n) };
  }
}

/**
 * Padded tokens one model run may hold. On CPU a BERT-small run is fastest per passage one
 * passage at a time (measured on this machine with the int8 weights: ~54 passages per CPU
 * second alone vs ~21 in runs of 16 — padding is a third of it, the rest is activations that
 * stop fitting in cache), so only short texts (queries, headings) share a run.
 */
export const PADDED_TOKENS_PER_RUN = 128;

/**
 * Splits rows, given their token counts, into runs: shortest first, each run as many rows as
 * fit `budget` once padded to its longest member (a row longer than the budget runs alone).
 * Returns the row indexes of each run; every index appears exactly once.
 */
export function runsByLength(lengths: readonly number[], budget = PADDED_TOKENS_PER_RUN): number[][] {
  const order = lengths.map((_, i) => i).sort((a, b) => (lengths[a] as number) - (lengths[b] as number));
  const runs: number[][] = [];
  let run: number[] = [];
  for (const i of order) {
    // Sorted ascending, so this row is the run's longest once added.
    if (run.length > 0 && (run.length + 1) * (lengths[i] as number) > budget) {
      runs.push(run);
      run = [];
    }
    run.push(i);
  }
  if (run.length > 0) runs.push(run);
  return runs;
}

/** Pools `[batch, seqLen, hidden]` hidden states into one L2-normalised vector per row. */
export function pool(
  hidden: Float32Array,
  dims: readonly number[],
  mask: BigInt64Array,
  pooling: Pooling,
): Float32Array[] {
  const [batch = 0, seqLen = 0, width = 0] = dims;
  const out: Float32Array[] = [];
  for (let b = 0; b < batch; b++) {
    const v = new Float32Array(width);
    const base = b * seqLen * width;
    if (pooling === "cls") {
      v.set(hidden.subarray(base, base + width));
    } else {
      let count = 0;
      for (let s = 0; s < seqLen; s++) {
        if (mask[b * seqLen + s] === 0n) continue;
        count++;
        const off = base + s * width;
        for (let d = 0; d < width; d++) v[d] = (v[d] as number) + (hidden[off + d] as number);
      }
      for (let d = 0; d < width; d++) v[d] = (v[d] as number) / Math.max(count, 1);
    }
    out.push(normalize(v));
  }
  return out;
}

/** Scales `v` in place to unit length; a zero vector is an error, never silently kept. */
export function normalize(v: Float32Array): Float32Array {
  let sum = 0;
  for (const x of v) sum += x * x;
  const norm = Math.sqrt(sum);
  if (!(norm > 0) || !Number.isFinite(norm)) throw new Error("embedding has zero or non-finite norm");
  for (let i = 0; i < v.length; i++) v[i] = (v[i] as number) / norm;
  return v;
}

/**
 * Concatenates unit vectors of several models and scales by 1/sqrt(n): the result is unit
 * length, and its dot product with another such vector is the mean of the models' cosines.
 */
export function concatNormalized(parts: readonly Float32Array[]): Float32Array {
  if (parts.length === 1) return parts[0] as Float32Array;
  const width = parts.reduce((s, p) => s + p.length, 0);
  const out = new Float32Array(width);
  const scale = 1 / Math.sqrt(parts.length);
  let off = 0;
  for (const p of parts) {
    for (let i = 0; i < p.length; i++) out[off + i] = (p[i] as number) * scale;
    off += p.length;
  }
  return out;
}
