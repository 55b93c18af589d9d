import { describe, expect, test } from "bun:test";
import { DERIVED_LABEL, describeImage } from "./image-description.ts";
import { type OcrLine, type OcrPage, ocrBlocks } from "./ocr-layout.ts";

/** A line of words laid out left to right from x, 10 px per character, 20 px high. */
function line(text: string, x: number, y: number): OcrLine {
  let cx = x;
  const words = text.split(" ").map((w) => {
    const word = { text: w, confidence: 90, bbox: { x0: cx, y0: y, x1: cx + w.length * 10, y1: y + 20 } };
    cx += w.length * 10 + 10;
    return word;
  });
  return { text, confidence: 90, bbox: { x0: x, y0: y, x1: cx - 10, y1: y + 20 }, words };
}

const page = (...paragraphs: OcrLine[][]): OcrPage => ({
  paragraphs: paragraphs.map((lines) => ({ lines, bbox: lines[0]!.bbox })),
  confidence: 88,
});

describe("derived image descriptions", () => {
  test("a chart: period labels on one baseline and a stacked value scale", () => {
    const ocr = page(
      [line("Revenue by year", 300, 10)],
      [line("$300B", 10, 100)],
      [line("$200B", 10, 200)],
      [line("$100B", 10, 300)],
      [line("FY21", 100, 400), line("FY22", 250, 400), line("FY23", 400, 400)],
    );
    const d = describeImage({ width: 800, height: 450, format: "png", ocr });
    expect(d.startsWith(DERIVED_LABEL)).toBe(true);
    expect(d).toContain("800×450-pixel landscape PNG");
    expect(d).toContain("likely a chart or graph with category or period labels FY21, FY22, FY23");
    expect(d).toContain("$300B, $200B, $100B");
    expect(d).toContain('Text at the top: "Revenue by year"');
  });

  test("a table: rows whose cells are far apart", () => {
    const rows = [
      "Region      Sales      Margin",
      "North      120      12%",
      "South      95      9%",
      "East      80      7%",
    ];
    const ocr = page(rows.map((r, i) => line(r.replace(/ {6}/g, " "), 10, 30 * i)).map((l) => spread(l)));
    const d = describeImage({ width: 600, height: 200, format: "jpeg", ocr });
    expect(d).toContain("likely a table of about 4 rows and 3 columns");
  });

  test("no words: said plainly", () => {
    const d = describeImage({ width: 10, height: 10, format: "png", ocr: page() });
    expect(d).toContain("No text was recognised");
  });
});

/** Moves each word 100 px apart, as table cells are. */
function spread(l: OcrLine): OcrLine {
  const words = l.words.map((w, i) => ({ ...w, bbox: { ...w.bbox, x0: 10 + i * 200, x1: 10 + i * 200 + 60 } }));
  return { ...l, words, bbox: { ...l.bbox, x0: 10, x1: 10 + (words.length - 1) * 200 + 60 } };
}

describe("OCR reading order", () => {
  test("prose keeps Tesseract's paragraphs", () => {
    const ocr = page([line("The board approved the deal.", 10, 10), line("Closing is expected soon.", 10, 40)]);
    expect(ocrBlocks(ocr, 2)).toEqual([
      { text: "The board approved the deal.\nClosing is expected soon.", kind: "ocr", page: 2 },
    ]);
  });

  test("a sparse page is re-read row by row, cells joined left to right", () => {
    // An invoice: Tesseract returned each cell as its own paragraph, columns first.
    const cells = [
      ["Item", 10, 10],
      ["Garden work", 10, 40],
      ["Disposal", 10, 70],
      ["Amount", 300, 10],
      ["CHF 3360.00", 300, 40],
      ["CHF 307.35", 300, 70],
      ["Qty", 600, 10],
      ["28", 600, 40],
      ["1", 600, 70],
    ] as const;
    const ocr = page(...cells.map(([t, x, y]) => [line(t, x, y)]));
    expect(ocrBlocks(ocr).map((b) => b.text)).toEqual([
      "Item | Amount | Qty\nGarden work | CHF 3360.00 | 28\nDisposal | CHF 307.35 | 1",
    ]);
  });
});
