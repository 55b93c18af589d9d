/**
 * Extraction worker thread: parses one document at a time, off the service's event loop.
 * Holds one Tesseract worker, created on first OCR and reused for every later job.
 */
import { ocrBlocks } from "../../domain/documents/ocr-layout.ts";
import { csvBlocks, decodeUtf8, markdownBlocks, textBlocks } from "../../domain/documents/text.ts";
import type { ExtractedDocument } from "../../domain/documents/types.ts";
import { extractDocx } from "./docx.ts";
import { extractHtml } from "./html.ts";
import { Ocr } from "./ocr.ts";
import { extractPdf } from "./pdf.ts";
import { extractPptx } from "./pptx.ts";
import type { ExtractJob, FromWorker, ToWorker, WorkerResult } from "./protocol.ts";
import { imageSize } from "./raster.ts";
import { rasteriseSvg, svgTextLines } from "./svg.ts";
import { PackageTooLarge } from "./zip.ts";

declare const self: Worker;

const ocr = new Ocr();

/** A parser's complaint about the file itself, as opposed to a bug or resource failure. */
class Unreadable extends Error {}

async function image(bytes: Uint8Array, format: "png" | "jpeg" | "svg", png?: Buffer): Promise<WorkerResult> {
  const size = imageSize(png ?? bytes);
  const page = await ocr.recognize(Buffer.from(png ?? bytes));
  const doc: ExtractedDocument = { format, blocks: ocrBlocks(page, 1), pages: 1, notes: ["OCR (Tesseract, English)"] };
  return {
    doc,
    image: { width: size?.width ?? null, height: size?.height ?? null, ocr: page, ...(png ? { png } : {}) },
  };
}

async function run(job: ExtractJob): Promise<WorkerResult> {
  const { bytes } = job;
  switch (job.format) {
    case "pdf":
      return { doc: await extractPdf(bytes, { ocr, maxOcrPages: job.maxOcrPages }) };
    case "docx":
      return { doc: await extractDocx(bytes) };
    case "pptx":
      return { doc: await extractPptx(bytes) };
    case "html":
      return { doc: extractHtml(bytes) };
    case "txt":
      return { doc: { format: "txt", blocks: textBlocks(decodeUtf8(bytes)), pages: 1, notes: [] } };
    case "md":
      return { doc: { format: "md", blocks: markdownBlocks(decodeUtf8(bytes)), pages: 1, notes: [] } };
    case "csv":
      return { doc: { format: "csv", blocks: csvBlocks(decodeUtf8(bytes)), pages: 1, notes: [] } };
    case "png":
    case "jpeg":
      if (!imageSize(bytes)) throw new Unreadable(`the ${job.format.toUpperCase()} image is truncated or corrupt`);
      return image(bytes, job.format);
    case "svg": {
      let lines: string[];
      try {
        lines = svgTextLines(bytes);
      } catch (e) {
        throw new Unreadable(`the SVG is not well-formed XML (${(e as Error).message})`);
      }
      if (lines.length > 0) {
        return {
          doc: { format: "svg", blocks: [{ text: lines.join("\n"), kind: "frame", page: 1 }], pages: 1, notes: [] },
        };
      }
      let png: Buffer;
      try {
        png = rasteriseSvg(bytes);
      } catch (e) {
        throw new Unreadable(`the SVG has no text elements and could not be rendered (${(e as Error).message})`);
      }
      const r = await image(bytes, "svg", png);
      r.doc.notes.push("SVG had no text elements: rasterised and read as an image");
      return r;
    }
  }
}

function post(msg: FromWorker): void {
  self.postMessage(msg);
}

self.onmessage = async (ev: MessageEvent<ToWorker>) => {
  const msg = ev.data;
  if (msg.type === "close") {
    await ocr.close().catch(() => {});
    post({ type: "closed" });
    return;
  }
  try {
    post({ type: "done", id: msg.id, result: await run(msg) });
  } catch (e) {
    const err = e as Error;
    // Parsers throw plain errors on malformed input; only our own resource faults are internal.
    const internal = !(err instanceof Unreadable) && /out of memory|worker|wasm/i.test(err.message ?? "");
    post({
      type: "failed",
      id: msg.id,
      reason: err instanceof PackageTooLarge ? "too_large" : internal ? "internal" : "unreadable",
      message: err.message ?? String(e),
    });
  }
};
