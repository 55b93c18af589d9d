/**
 * Extraction speed per format: the Extractor (worker pool, format detection, image
 * description) against its own parsers called directly on this thread (the ceiling: no
 * message passing, no worker). Reports ms per document and pages per second for each format
 * over the shared samples (../shared/data/documents), or the repository fixtures without them.
 *
 *   bun bench/documents-extract.ts          (BENCH_QUICK=1: one round)
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import {
  Extractor,
  extractDocx,
  extractHtml,
  extractPdf,
  extractPptx,
  Ocr,
  svgTextLines,
} from "../adapters/extract/index.ts";
import { detectFormat } from "../domain/documents/formats.ts";
import { csvBlocks, decodeUtf8, markdownBlocks, textBlocks } from "../domain/documents/text.ts";
import { emit, emitPair, QUICK, round } from "./runner.ts";

const shared = resolve(import.meta.dir, "../../shared/data/documents");
const fixtures = resolve(import.meta.dir, "../test/fixtures/documents");
const root = process.env.CAIRN_SHARED_DATA ? join(process.env.CAIRN_SHARED_DATA, "documents") : shared;

function files(dir: string): string[] {
  try {
    return readdirSync(dir, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile() && e.name !== "README.md")
      .map((e) => join(e.parentPath, e.name));
  } catch {
    return [];
  }
}

const paths = files(root).length ? files(root) : files(fixtures);
const rounds = QUICK ? 1 : Number(process.env.BENCH_ROUNDS ?? 3);
const ocr = new Ocr();

async function direct(format: string, bytes: Uint8Array): Promise<number> {
  switch (format) {
    case "pdf":
      return (await extractPdf(bytes, { ocr, maxOcrPages: 50 })).pages;
    case "docx":
      return (await extractDocx(bytes)).pages;
    case "pptx":
      return (await extractPptx(bytes)).pages;
    case "html":
      return extractHtml(bytes).pages;
    case "txt":
      return textBlocks(decodeUtf8(bytes)).length > 0 ? 1 : 0;
    case "md":
      return markdownBlocks(decodeUtf8(bytes)).length > 0 ? 1 : 0;
    case "csv":
      return csvBlocks(decodeUtf8(bytes)).length > 0 ? 1 : 0;
    case "svg":
      return svgTextLines(bytes).length > 0 ? 1 : 0;
    default:
      await ocr.recognize(Buffer.from(bytes));
      return 1;
  }
}

const byFormat = new Map<string, { pool: number[]; direct: number[]; pages: number }>();
const extractor = new Extractor({ concurrency: 1 });
// Warm both paths (worker start, Tesseract model load) before timing.
for (const p of paths.slice(0, 3)) {
  const bytes = new Uint8Array(readFileSync(p));
  await extractor.extract({ filename: p, bytes }).catch(() => {});
}
await ocr
  .recognize(Buffer.from(readFileSync(paths.find((p) => /\.(png|jpe?g)$/i.test(p)) ?? paths[0]!)))
  .catch(() => {});

for (const p of paths) {
  const bytes = new Uint8Array(readFileSync(p));
  const verdict = detectFormat({ filename: p, bytes });
  if (!verdict.ok) continue;
  const format = verdict.format;
  const entry = byFormat.get(format) ?? { pool: [], direct: [], pages: 0 };
  byFormat.set(format, entry);
  for (let r = 0; r < rounds; r++) {
    let t = performance.now();
    const doc = await extractor.extract({ filename: p, bytes }).catch((e: { issues?: unknown }) => {
      throw new Error(`${p}: ${JSON.stringify(e.issues ?? String(e))}`);
    });
    entry.pool.push(performance.now() - t);
    if (r === 0) entry.pages += doc.pages;
    t = performance.now();
    await direct(format, bytes.slice()); // PDF.js detaches the buffer it is given
    entry.direct.push(performance.now() - t);
  }
}

for (const [format, e] of [...byFormat.entries()].sort()) {
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const docs = e.pool.length / rounds;
  emitPair(
    { bench: `documents-extract/${format}/extractor`, value: mean(e.pool) },
    { bench: `documents-extract/${format}/direct`, value: mean(e.direct) },
    "mean_ms_per_document",
    "ms",
  );
  emit({
    bench: `documents-extract/${format}/extractor`,
    metric: "pages_per_second",
    value: round((e.pages / (mean(e.pool) * docs)) * 1000),
    unit: "pages/s",
    peer: null,
    ratio: null,
  });
}
await extractor.close();
await ocr.close();
