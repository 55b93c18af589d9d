/**
 * What the ONNX embedder's suites (onnx.test.ts, pool.test.ts) share: the passages they embed,
 * a dot product, and the one-model embedder (e5-small-v2) their queue and crash tests start.
 */
import { COMPONENTS } from "./models.ts";
import { OnnxEmbedder, type OnnxEmbedderOptions } from "./onnx.ts";

export const dot = (a: Float32Array, b: Float32Array): number => a.reduce((s, x, i) => s + x * (b[i] as number), 0);

/** The revenue passage first: a revenue question must rank it above the others. */
export const PASSAGES = [
  "Total net sales increased 8% to $394.3 billion in fiscal 2022, driven by higher iPhone and services revenue.",
  "The hiking trail winds through pine forest before reaching a small alpine lake.",
  "Operating expenses rose because of research and development headcount.",
  "Dividends of $0.23 per share were declared in each quarter.",
  "Rain is expected over the weekend, with temperatures falling to ten degrees.",
];

/** An embedder of e5-small-v2 alone, one thread per process unless `over` says otherwise. */
export function e5Embedder(modelsDir: string, over: Partial<OnnxEmbedderOptions> = {}): Promise<OnnxEmbedder> {
  return OnnxEmbedder.create({ modelsDir, components: [COMPONENTS["e5-small-v2"]], threads: 1, ...over });
}
