/**
 * Offline OCR with tesseract.js and the English model shipped in @tesseract.js-data/eng
 * (nothing is fetched: langPath is a local folder and nothing is cached to disk). One
 * Tesseract worker is created on first use and reused; it runs inside the extraction worker
 * thread, never on the service's event loop.
 */
import engData from "@tesseract.js-data/eng";
import { createWorker, PSM, type Worker as TesseractWorker } from "tesseract.js";
import type { OcrPage, OcrParagraph } from "../../domain/documents/ocr-layout.ts";

/** Words Tesseract is less sure of than this are dropped (chart glyphs, photo texture). */
const MIN_WORD_CONFIDENCE = 35;

export class Ocr {
  #worker: Promise<TesseractWorker> | null = null;

  #get(): Promise<TesseractWorker> {
    this.#worker ??= createWorker("eng", 1, {
      langPath: engData.langPath,
      gzip: engData.gzip,
      cacheMethod: "none",
      logger: () => {},
      errorHandler: () => {},
    }).then(async (w) => {
      // tesseract.js defaults to one uniform block (PSM 6), which loses table rows and
      // columns of text; full automatic page segmentation (PSM 3) keeps them.
      // debug_file: Tesseract's diagnostics ("Estimating resolution as ...") are not logs.
      await w.setParameters({ tessedit_pageseg_mode: PSM.AUTO, debug_file: "/dev/null" });
      return w;
    });
    return this.#worker;
  }

  /** Recognises an image file (PNG, JPEG, PGM...) into paragraphs of confident words. */
  async recognize(image: Buffer): Promise<OcrPage> {
    const worker = await this.#get();
    const { data } = await worker.recognize(image, {}, { text: true, blocks: true });
    const paragraphs: OcrParagraph[] = [];
    for (const block of data.blocks ?? []) {
      for (const para of block.paragraphs) {
        const lines = para.lines
          .map((line) => {
            const words = line.words
              .filter((w) => w.confidence >= MIN_WORD_CONFIDENCE && /[\p{L}\p{N}]/u.test(w.text))
              .map((w) => ({ text: w.text, confidence: w.confidence, bbox: w.bbox }));
            return { text: words.map((w) => w.text).join(" "), confidence: line.confidence, bbox: line.bbox, words };
          })
          .filter((l) => l.words.length > 0);
        if (lines.length) paragraphs.push({ lines, bbox: para.bbox });
      }
    }
    return { paragraphs, confidence: data.confidence };
  }

  async close(): Promise<void> {
    const w = this.#worker;
    this.#worker = null;
    if (w) await (await w).terminate();
  }
}
