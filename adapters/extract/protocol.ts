/** Messages between the Extractor (service thread) and its extraction worker threads. */
import type { DocFormat } from "../../domain/documents/formats.ts";
import type { OcrPage } from "../../domain/documents/ocr-layout.ts";
import type { ExtractedDocument } from "../../domain/documents/types.ts";

export interface ExtractJob {
  type: "extract";
  id: number;
  format: DocFormat;
  bytes: Uint8Array;
  maxOcrPages: number;
}

export type ToWorker = ExtractJob | { type: "close" };

/** What OCR saw in an image (PNG, JPEG, or a rasterised SVG), for its description. */
export interface ImageFacts {
  width: number | null;
  height: number | null;
  ocr: OcrPage;
  /** The rasterised PNG when the source was an SVG (a vision model needs a bitmap). */
  png?: Uint8Array;
}

export interface WorkerResult {
  doc: ExtractedDocument;
  image?: ImageFacts;
}

export type FromWorker =
  | { type: "done"; id: number; result: WorkerResult }
  /**
   * `unreadable`: the file is corrupt or not what its signature says (answered 422);
   * `too_large`: it would inflate or decode past a budget (an archive, a pixel count: 413).
   */
  | { type: "failed"; id: number; reason: "unreadable" | "too_large" | "internal"; message: string }
  | { type: "closed" };
