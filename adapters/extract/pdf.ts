/**
 * PDF text with unpdf (PDF.js): per page, positioned text runs become paragraphs
 * (domain/documents/pdf-layout.ts), page numbers kept. A page without a text layer (a scan)
 * is OCR'd from the images it paints: each image is turned upright by the transform that
 * draws it, rescaled towards 300 dpi, and read by Tesseract. No renderer or system package
 * is needed, at the price of ignoring vector art on scanned pages (which rarely holds text).
 */
import { getDocumentProxy, getResolvedPDFJS } from "unpdf";
import { ocrBlocks } from "../../domain/documents/ocr-layout.ts";
import { type PdfRun, pdfParagraphs } from "../../domain/documents/pdf-layout.ts";
import type { ExtractedDocument, TextBlock } from "../../domain/documents/types.ts";
import type { Ocr } from "./ocr.ts";
import { type GreyImage, orient, rescale, toGrey, toPgm } from "./raster.ts";

export interface PdfOptions {
  ocr: Ocr;
  /** Pages OCR'd at most per document; later scanned pages are listed in the notes. */
  maxOcrPages: number;
  /** Pages read at most (default PDF_BUDGET.maxPages); later pages are listed in the notes. */
  maxPages?: number;
}

/** A page with fewer printable characters than this in its text layer is treated as scanned. */
const SCANNED_PAGE_CHARS = 20;
/** Largest image handed to Tesseract, in pixels (an A4 page at 300 dpi is 8.7 MP). */
const MAX_OCR_PIXELS = 12_000_000;
/**
 * Budgets against hostile PDFs (issue 13): pages read, text kept, images OCR'd per page, and
 * the largest image PDF.js will decode (larger ones are skipped, not decoded). PDF.js offers
 * no cap on a decoded content stream; the extraction deadline (pool timeoutMs) bounds that.
 */
export const PDF_BUDGET = {
  maxPages: 2_000,
  maxTextChars: 20_000_000,
  maxOcrImagesPerPage: 4,
  maxImagePixels: 50_000_000,
};

type Matrix = [number, number, number, number, number, number];

function multiply(m: readonly number[], n: readonly number[]): Matrix {
  const [a = 1, b = 0, c = 0, d = 1, e = 0, f = 0] = m;
  const [a2 = 1, b2 = 0, c2 = 0, d2 = 1, e2 = 0, f2 = 0] = n;
  return [a * a2 + c * b2, b * a2 + d * b2, a * c2 + c * d2, b * c2 + d * d2, a * e2 + c * f2 + e, b * e2 + d * f2 + f];
}

interface PdfImageObject {
  data?: Uint8Array | Uint8ClampedArray;
  width?: number;
  height?: number;
  /** 1 = 1 bit grey, 2 = RGB, 3 = RGBA (PDF.js ImageKind). */
  kind?: number;
}

function unpackImage(img: PdfImageObject): GreyImage | null {
  const { data, width, height, kind } = img;
  if (!data || !width || !height) return null;
  if (kind === 1) {
    // 1 bit per pixel, rows padded to whole bytes, 1 = white.
    const stride = Math.ceil(width / 8);
    const out = new Uint8Array(width * height);
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++)
        out[y * width + x] = (data[y * stride + (x >> 3)]! >> (7 - (x & 7))) & 1 ? 255 : 0;
    }
    return { width, height, data: out };
  }
  const channels = kind === 3 ? 4 : kind === 2 ? 3 : data.length / (width * height);
  if (![1, 3, 4].includes(channels)) return null;
  return toGrey(data, width, height, channels);
}

interface PdfPageLike {
  getOperatorList(): Promise<{ fnArray: number[]; argsArray: unknown[][] }>;
  getViewport(o: { scale: number }): { transform: number[]; width: number; height: number };
  objs: { get(key: string, cb: (v: unknown) => void): void };
  commonObjs: { get(key: string, cb: (v: unknown) => void): void };
}

/** The page's large images, upright, scaled for OCR, largest first. */
async function pageImages(page: PdfPageLike): Promise<GreyImage[]> {
  const { OPS } = await getResolvedPDFJS();
  const ops = await page.getOperatorList();
  const viewport = page.getViewport({ scale: 1 });
  const pageArea = viewport.width * viewport.height;
  const stack: Matrix[] = [];
  let ctm: Matrix = [1, 0, 0, 1, 0, 0];
  const found: { img: PdfImageObject; m: Matrix }[] = [];
  for (let i = 0; i < ops.fnArray.length; i++) {
    const fn = ops.fnArray[i];
    const args = ops.argsArray[i] ?? [];
    if (fn === OPS.save) stack.push(ctm);
    else if (fn === OPS.restore) ctm = stack.pop() ?? ctm;
    else if (fn === OPS.transform) ctm = multiply(ctm, args as number[]);
    else if (fn === OPS.paintFormXObjectBegin) {
      stack.push(ctm);
      if (Array.isArray(args[0])) ctm = multiply(ctm, args[0] as number[]);
    } else if (fn === OPS.paintFormXObjectEnd) ctm = stack.pop() ?? ctm;
    else if (fn === OPS.paintImageXObject) {
      const key = String(args[0]);
      const objs = key.startsWith("g_") ? page.commonObjs : page.objs;
      const img = await new Promise<unknown>((resolve) => objs.get(key, resolve));
      if (img && typeof img === "object") found.push({ img: img as PdfImageObject, m: ctm });
    } else if (fn === OPS.paintInlineImageXObject && args[0] && typeof args[0] === "object") {
      found.push({ img: args[0] as PdfImageObject, m: ctm });
    }
  }
  const out: { image: GreyImage; area: number }[] = [];
  for (const { img, m } of found) {
    // Device space (y down) of the page as displayed, including /Rotate.
    const [a, b, c, d] = multiply(viewport.transform, m);
    const drawnW = Math.hypot(a, b);
    const drawnH = Math.hypot(c, d);
    const area = drawnW * drawnH;
    if (area < pageArea * 0.05) continue; // logos, bullets, rules
    const grey = unpackImage(img);
    if (!grey || grey.width < 32 || grey.height < 32) continue;
    const upright = orient(grey, [a, -b, c, -d]);
    const dpi = Math.sqrt((upright.width * upright.height) / (area / (72 * 72)));
    // Downscale big scans towards 300 dpi; upscale only really coarse ones (nearest-neighbour
    // enlargement of a 120 dpi scan reads worse than the original).
    let factor = dpi > 400 ? 300 / dpi : dpi < 100 ? Math.min(3, 200 / Math.max(dpi, 1)) : 1;
    const pixels = upright.width * upright.height * factor * factor;
    if (pixels > MAX_OCR_PIXELS) factor *= Math.sqrt(MAX_OCR_PIXELS / pixels);
    out.push({ image: rescale(upright, Math.abs(factor - 1) < 0.1 ? 1 : factor), area });
  }
  return out.sort((x, y) => y.area - x.area).map((x) => x.image);
}

function runsOf(items: unknown[]): PdfRun[] {
  const runs: PdfRun[] = [];
  for (const it of items) {
    const item = it as { str?: string; transform?: number[]; width?: number; height?: number; hasEOL?: boolean };
    if (typeof item.str !== "string" || !item.transform) continue;
    const [a = 0, b = 0, , , e = 0, f = 0] = item.transform;
    runs.push({
      str: item.str,
      x: e,
      y: f,
      width: item.width ?? 0,
      size: item.height || Math.hypot(a, b),
      hasEOL: item.hasEOL ?? false,
    });
  }
  return runs;
}

export async function extractPdf(bytes: Uint8Array, opts: PdfOptions): Promise<ExtractedDocument> {
  // Images above 60 MP (a 600 dpi A3 scan is 70 MP) are skipped by PDF.js rather than decoded.
  const pdf = await getDocumentProxy(bytes, { maxImageSize: PDF_BUDGET.maxImagePixels, stopAtErrors: false });
  try {
    const blocks: TextBlock[] = [];
    const notes: string[] = [];
    const ocrPages: number[] = [];
    const skipped: number[] = [];
    const lastPage = Math.min(pdf.numPages, opts.maxPages ?? PDF_BUDGET.maxPages);
    let chars = 0;
    let truncatedAt = 0;
    for (let p = 1; p <= lastPage; p++) {
      if (chars > PDF_BUDGET.maxTextChars) {
        truncatedAt = p;
        break;
      }
      const page = await pdf.getPage(p);
      const content = await page.getTextContent();
      const paras = pdfParagraphs(runsOf(content.items));
      for (const t of paras) chars += t.length;
      const printable = paras.join("").replace(/\s+/g, "").length;
      if (printable >= SCANNED_PAGE_CHARS) {
        for (const text of paras) blocks.push({ text, page: p, kind: "paragraph" });
      } else if (ocrPages.length >= opts.maxOcrPages) {
        skipped.push(p);
        for (const text of paras) blocks.push({ text, page: p, kind: "paragraph" });
      } else {
        const images = (await pageImages(page as unknown as PdfPageLike)).slice(0, PDF_BUDGET.maxOcrImagesPerPage);
        let got = 0;
        for (const img of images) {
          const ocr = await opts.ocr.recognize(toPgm(img));
          const b = ocrBlocks(ocr, p);
          got += b.length;
          blocks.push(...b);
        }
        if (images.length > 0) ocrPages.push(p);
        if (got === 0) for (const text of paras) blocks.push({ text, page: p, kind: "paragraph" });
      }
      page.cleanup();
    }
    if (ocrPages.length)
      notes.push(`OCR used on page${ocrPages.length > 1 ? "s" : ""} ${ocrPages.join(", ")} (no text layer)`);
    if (skipped.length) notes.push(`OCR limit reached: scanned pages ${skipped.join(", ")} were not read`);
    if (pdf.numPages > lastPage) notes.push(`page limit reached: pages after ${lastPage} were not read`);
    if (truncatedAt) notes.push(`text limit reached: pages from ${truncatedAt} on were not read`);
    return { format: "pdf", blocks, pages: pdf.numPages, notes };
  } finally {
    await pdf.loadingTask.destroy();
  }
}
