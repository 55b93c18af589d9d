/** Budgets of the extractor against hostile files (issue 13): refusals are 413 problems, quick. */
import { afterAll, describe, expect, test } from "bun:test";
import type { AppError } from "../../domain/errors.ts";
import { docxBomb, smallDocx } from "../../test/hostile/zip-bombs.ts";
import { Extractor, MAX_IMAGE_PIXELS } from "./extractor.ts";
import { Ocr } from "./ocr.ts";
import { extractPdf } from "./pdf.ts";
import { imageSize } from "./raster.ts";
import { MAX_SVG_PIXELS, rasteriseSvg } from "./svg.ts";

const extractor = new Extractor({ concurrency: 1 });
afterAll(() => extractor.close());

/** A PNG whose header declares width x height (the pixel data never matters: it is refused first). */
function pngHeader(width: number, height: number): Uint8Array {
  const b = Buffer.alloc(64);
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(b, 0);
  b.writeUInt32BE(13, 8);
  b.write("IHDR", 12, "latin1");
  b.writeUInt32BE(width, 16);
  b.writeUInt32BE(height, 20);
  return new Uint8Array(b);
}

/** A PDF of `pages` pages, each with one line of text naming its page. */
function pdfOf(pages: number): Uint8Array {
  const objs = ["<< /Type /Catalog /Pages 2 0 R >>", "", "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"];
  const kids: string[] = [];
  for (let p = 1; p <= pages; p++) {
    const text = `BT /F1 12 Tf 72 720 Td (Quarterly revenue guidance on page number ${p}) Tj ET`;
    objs.push(`<< /Length ${text.length} >>\nstream\n${text}\nendstream`);
    const content = objs.length;
    objs.push(
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents ${content} 0 R /Resources << /Font << /F1 3 0 R >> >> >>`,
    );
    kids.push(`${objs.length} 0 R`);
  }
  objs[1] = `<< /Type /Pages /Kids [${kids.join(" ")}] /Count ${pages} >>`;
  const body = objs.map((o, i) => `${i + 1} 0 obj ${o} endobj`).join("\n");
  return new TextEncoder().encode(`%PDF-1.4\n${body}\ntrailer << /Root 1 0 R >>\n%%EOF`);
}

describe("extraction budgets", () => {
  test("a PDF past the page budget is read up to it; the notes say which pages were not", async () => {
    const ocr = new Ocr();
    const doc = await extractPdf(pdfOf(5), { ocr, maxOcrPages: 0, maxPages: 3 });
    await ocr.close();
    expect(doc.pages).toBe(5);
    expect(doc.blocks.map((b) => b.page)).toEqual([1, 2, 3]);
    expect(doc.blocks[2]?.text).toContain("page number 3");
    expect(doc.notes).toContain("page limit reached: pages after 3 were not read");
  });

  test("a DOCX bomb is a 413 problem naming the budget, and the worker serves the next file", async () => {
    const err = (await extractor
      .extract({ filename: "bomb.docx", bytes: await docxBomb(200 * 1024 * 1024, false) })
      .catch((e: unknown) => e)) as AppError;
    expect(err.status).toBe(413);
    expect(err.toBody()).toEqual({
      detail: "The DOCX is too large once unpacked: the part word/document.xml inflates to more than 32 MiB",
    });
    const doc = await extractor.extract({ filename: "ok.docx", bytes: smallDocx("Quarterly revenue rose") });
    expect(doc.blocks.map((b) => b.text)).toEqual(["Quarterly revenue rose"]);
  }, 30_000);

  test("a PNG declaring more than 50 megapixels is 413 before anything decodes it", async () => {
    const err = (await extractor
      .extract({ filename: "huge.png", bytes: pngHeader(100_000, 100_000) })
      .catch((e: unknown) => e)) as AppError;
    expect(err.status).toBe(413);
    expect(String(err.message)).toContain(`at most ${MAX_IMAGE_PIXELS / 1e6} megapixels`);
    expect(extractor.load).toMatchObject({ running: 0, queued: 0 });
  });

  test("an SVG declaring a huge canvas is rasterised scaled down, within the pixel cap", () => {
    const svg =
      '<svg xmlns="http://www.w3.org/2000/svg" width="100000" height="80000"><rect width="10" height="10"/></svg>';
    const size = imageSize(rasteriseSvg(new TextEncoder().encode(svg)));
    expect(size).not.toBeNull();
    expect((size?.width ?? 0) * (size?.height ?? 0)).toBeLessThanOrEqual(MAX_SVG_PIXELS * 1.01);
  });
});
