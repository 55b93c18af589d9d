/**
 * Text extraction for every upload format (spec 4.6). The format is detected from the bytes
 * (domain/documents/formats.ts); parsing and OCR run in worker threads (pool.ts); an image
 * gets a description from the configured vision model, or else the clearly labelled one
 * derived from its layout. Refusals are section-7 validation errors (422) on the file field.
 */
import { type DocFormat, detectFormat, SUPPORTED_FORMATS_TEXT } from "../../domain/documents/formats.ts";
import { describeImage } from "../../domain/documents/image-description.ts";
import type { ExtractedDocument } from "../../domain/documents/types.ts";
import { AppError } from "../../domain/errors.ts";
import { JobCancelled } from "../workers/pool.ts";
import { ExtractionPool, ExtractionTimeout, TooLarge, Unreadable } from "./pool.ts";
import type { WorkerResult } from "./protocol.ts";
import { imageSize } from "./raster.ts";
import { describeWithVision, type VisionConfig } from "./vision.ts";

export interface ExtractInput {
  filename: string;
  bytes: Uint8Array;
  contentType?: string | undefined;
  /** Whose upload (a tenant id): bounds one tenant's waiting jobs. Default: the upload scope's. */
  key?: string | undefined;
  /** The request's signal: aborted, the job is dropped or its worker terminated. */
  signal?: AbortSignal | undefined;
}

/** Decoded pixels an image may declare (PNG/JPEG header): past it, 413 before decoding. */
export const MAX_IMAGE_PIXELS = 50_000_000;

export interface ExtractorOptions {
  /** Worker threads, i.e. documents extracted at once (default 2). */
  concurrency?: number;
  /** Documents waiting for a worker (default 16) and their total bytes (default 200 MiB). */
  maxQueued?: number;
  maxQueuedBytes?: number;
  /** Documents of one tenant waiting for a worker (default 2); past it that tenant gets 503. */
  maxQueuedPerTenant?: number;
  /** Deadline per document (default 120 s). */
  timeoutMs?: number;
  /** Scanned PDF pages OCR'd per document (default 50). */
  maxOcrPages?: number;
  /** OpenAI-compatible vision model for image descriptions; null = derived descriptions. */
  vision?: VisionConfig | null;
  /** Told when the vision model fails (the derived description is used instead). */
  onWarning?: (message: string, detail: Record<string, unknown>) => void;
}

export type FileErrorType =
  | "empty_file"
  | "unsupported_format"
  | "unreadable_file"
  | "no_text_extracted"
  | "extraction_timeout";

/** A 422 on the upload's file field, in the section-7 shape. */
export function fileError(
  type: FileErrorType,
  msg: string,
  filename: string,
  ctx: Record<string, unknown> = {},
): AppError {
  return AppError.validation([{ loc: ["body", "file"], msg, type, input: filename, ctx }]);
}

/** 413 with a plain problem document: the file itself is small, what it unpacks to is not. */
function tooLarge(detail: string): AppError {
  return new AppError("payload_too_large", detail);
}

const MIME: Record<string, string> = { png: "image/png", jpeg: "image/jpeg", svg: "image/png" };

export class Extractor {
  readonly #pool: ExtractionPool;
  readonly #opts: ExtractorOptions;

  constructor(opts: ExtractorOptions = {}) {
    this.#opts = opts;
    this.#pool = new ExtractionPool({
      size: opts.concurrency ?? 2,
      maxQueued: opts.maxQueued ?? 16,
      maxQueuedBytes: opts.maxQueuedBytes ?? 200 * 1024 * 1024,
      maxQueuedPerKey: opts.maxQueuedPerTenant ?? 2,
      timeoutMs: opts.timeoutMs ?? 120_000,
    });
  }

  get load(): ExtractionPool["load"] {
    return this.#pool.load;
  }

  /** Extractions cancelled because their client went away (dropped or worker terminated). */
  get cancelled(): number {
    return this.#pool.cancelled;
  }

  /** Text blocks of the file in reading order; 422 when its format or text cannot be had. */
  async extract(input: ExtractInput): Promise<ExtractedDocument> {
    const verdict = detectFormat(input);
    if (!verdict.ok) {
      if (verdict.reason === "empty") throw fileError("empty_file", "The file is empty", input.filename);
      throw fileError(
        "unsupported_format",
        `Unsupported file format: ${verdict.detail}. Supported: ${SUPPORTED_FORMATS_TEXT}`,
        input.filename,
        { supported: SUPPORTED_FORMATS_TEXT },
      );
    }
    const format = verdict.format;
    if (format === "png" || format === "jpeg") {
      // A pixel bomb (a small file declaring a huge canvas) is refused before anything decodes it.
      const size = imageSize(input.bytes);
      if (size && size.width * size.height > MAX_IMAGE_PIXELS) {
        throw tooLarge(
          `The image declares ${size.width} x ${size.height} pixels; at most ${MAX_IMAGE_PIXELS / 1e6} megapixels are accepted`,
        );
      }
    }
    let result: WorkerResult;
    try {
      result = await this.#pool.run(
        { format, bytes: input.bytes, maxOcrPages: this.#opts.maxOcrPages ?? 50 },
        { key: input.key, signal: input.signal },
      );
    } catch (e) {
      // Nobody reads this answer (the client is gone); it is not a server fault either.
      if (e instanceof JobCancelled)
        throw new AppError("unavailable", "The upload was cancelled: the client went away");
      if (e instanceof TooLarge) throw tooLarge(`The ${format.toUpperCase()} is too large once unpacked: ${e.message}`);
      if (e instanceof Unreadable) {
        throw fileError(
          "unreadable_file",
          `The file could not be read as ${format.toUpperCase()}: ${e.message}`,
          input.filename,
          { format },
        );
      }
      if (e instanceof ExtractionTimeout) {
        throw fileError("extraction_timeout", `No text could be extracted in time: ${e.message}`, input.filename, {
          format,
        });
      }
      throw e;
    }
    const doc = result.doc;
    // Rules and leaders ("_____", ". . . .") are not text anyone searches for.
    doc.blocks = doc.blocks.filter((b) => /[\p{L}\p{N}]/u.test(b.text));
    if (result.image) await this.#describe(input, format, result, doc);
    // A derived description alone is no text: an image without words and without a vision
    // model's reading has nothing to search for.
    const hasText = doc.blocks.some((b) => b.kind !== "description" && b.text.trim().length > 0);
    const described = doc.blocks.some(
      (b) => b.kind === "description" && !b.text.startsWith("[Image description, derived"),
    );
    if (!hasText && !described) {
      throw fileError(
        "no_text_extracted",
        `No text could be extracted from the file: the ${format.toUpperCase()} has no ${
          format === "png" || format === "jpeg" || format === "svg"
            ? "recognisable text"
            : "text layer or readable text"
        }`,
        input.filename,
        { format },
      );
    }
    return doc;
  }

  async #describe(input: ExtractInput, format: DocFormat, result: WorkerResult, doc: ExtractedDocument): Promise<void> {
    const image = result.image!;
    const ocrText = doc.blocks.map((b) => b.text).join("\n");
    let text: string | null = null;
    const vision = this.#opts.vision;
    if (vision) {
      try {
        const bytes = image.png ?? input.bytes;
        text = await describeWithVision(vision, { mime: MIME[format] ?? "image/png", bytes }, ocrText);
        doc.notes.push(`description by vision model ${vision.model}`);
      } catch (e) {
        this.#opts.onWarning?.("vision model failed; using the derived image description", {
          error: (e as Error).message,
          filename: input.filename,
        });
        doc.notes.push("vision model unavailable: description derived from layout and OCR");
      }
    }
    if (text === null) {
      text = describeImage({ width: image.width, height: image.height, format, ocr: image.ocr });
      if (!vision) doc.notes.push("description derived from layout and OCR (no vision model configured)");
    }
    doc.blocks.push({ text, kind: "description", page: 1 });
  }

  async close(): Promise<void> {
    await this.#pool.close();
  }
}
