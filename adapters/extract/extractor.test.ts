/**
 * Extraction end to end through the worker pool: the repository's small fixtures (always),
 * every real sample in ../shared/data/documents (when present; required under CI), the 422
 * refusals, the per-document deadline, the bounded queue, and the vision-model description.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { chunkDocument } from "../../domain/documents/chunking.ts";
import { DERIVED_LABEL } from "../../domain/documents/image-description.ts";
import type { ExtractedDocument } from "../../domain/documents/types.ts";
import { AppError } from "../../domain/errors.ts";
import { sharedData } from "../../test/shared-data.ts";
import { Extractor } from "./index.ts";

const FIXTURES = resolve(import.meta.dir, "../../test/fixtures/documents");
const fixture = (name: string) => new Uint8Array(readFileSync(join(FIXTURES, name)));

function flat(doc: ExtractedDocument): string {
  return doc.blocks
    .map((b) => b.text)
    .join("\n")
    .replace(/\s+/g, " ");
}

async function refusal(p: Promise<unknown>): Promise<{ status: number; type: string; msg: string }> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(AppError);
    const err = e as AppError;
    const issue = err.issues?.[0];
    return { status: err.status, type: issue?.type ?? err.code, msg: issue?.msg ?? err.message };
  }
  throw new Error("expected the extraction to be refused");
}

let extractor: Extractor;
beforeAll(() => {
  extractor = new Extractor({ concurrency: 2 });
});
afterAll(async () => {
  await extractor.close();
});

describe("fixtures in the repository", () => {
  const cases: [string, string, string[]][] = [
    [
      "memo_logistics_1p.pdf",
      "pdf",
      ["There were 20,000 bottles of water, 10,000 blankets, and 200 laptops delivered"],
    ],
    ["single_table_image_only.pdf", "pdf", ["Base 128", "64,058", "Chipper"]],
    ["docx_tables_nested_merged.docx", "docx", ["Header Col 1 | Header Col 2", "Lorem ipsum"]],
    ["simple_2slides_bullets.pptx", "pptx", ["Things to think about", "Where have all the flowers gone?"]],
    ["table_multi_row_column_cells.png", "png", ["Dexterity", "Mobility", "Low Vision"]],
    ["csv_with_escaped_commas.csv", "csv", ["A,A"]],
    ["mixed_formatting.md", "md", ["Scrooge McDuck | Dagobert Duck"]],
    ["how-it-works.svg", "svg", ["TYPED OBJECTS", "insider transactions"]],
    [
      "quarterly_note.html",
      "html",
      ["Northwind Traders: Q3 results", "Revenue grew 12% to $4.2bn", "Logistics | $2.5bn"],
    ],
    ["board_memo.txt", "txt", ["acquisition of Contoso Freight for a total consideration of $310 million"]],
  ];
  for (const [name, format, phrases] of cases) {
    test(`${name} -> ${format}`, async () => {
      const doc = await extractor.extract({ filename: name, bytes: fixture(name) });
      expect(doc.format).toBe(format);
      const text = flat(doc);
      for (const p of phrases) expect(text).toContain(p);
      const chunks = chunkDocument(doc);
      expect(chunks.length).toBeGreaterThan(0);
    });
  }

  test("HTML: scripts, styles, hidden elements and empty cells are not text", async () => {
    const text = flat(await extractor.extract({ filename: "n.html", bytes: fixture("quarterly_note.html") }));
    expect(text).not.toContain("script text");
    expect(text).not.toContain("color: red");
    expect(text).not.toContain("Hidden inline XBRL header");
    expect(text).toContain("• Gross margin 41.5%");
  });

  test("PDF keeps paragraphs and pages; a scanned page notes its OCR", async () => {
    const memo = await extractor.extract({ filename: "m.pdf", bytes: fixture("memo_logistics_1p.pdf") });
    expect(memo.blocks.map((b) => b.text)).toEqual([
      "May 5, 2023",
      "To Whom it May Concern:",
      "There were 20,000 bottles of water, 10,000 blankets, and 200 laptops delivered on January 23, 2023. A total of 3 trucks were used for 15 hours.",
      "Best Regards,",
      "Mallori",
    ]);
    expect(memo.blocks.every((b) => b.page === 1)).toBe(true);
    const scan = await extractor.extract({ filename: "s.pdf", bytes: fixture("single_table_image_only.pdf") });
    expect(scan.notes.join(" ")).toContain("OCR used on page 1");
  });

  test("PPTX slide numbers are pages, titles are headings", async () => {
    const doc = await extractor.extract({ filename: "d.pptx", bytes: fixture("simple_2slides_bullets.pptx") });
    expect(doc.pages).toBe(2);
    expect(doc.blocks.find((b) => b.text === "Things to think about")).toMatchObject({ page: 2, kind: "heading" });
  });

  test("an image gets OCR text plus a description labelled as derived (no vision model)", async () => {
    const doc = await extractor.extract({ filename: "t.png", bytes: fixture("table_multi_row_column_cells.png") });
    const desc = doc.blocks.filter((b) => b.kind === "description");
    expect(desc).toHaveLength(1);
    expect(desc[0]!.text.startsWith(DERIVED_LABEL)).toBe(true);
    expect(desc[0]!.text).toContain("1377×648-pixel");
    expect(desc[0]!.text).toContain("table");
  });

  test("an SVG without text elements is rasterised and read as an image", async () => {
    const png = fixture("table_multi_row_column_cells.png");
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="1377" height="648"><image width="1377" height="648" xlink:href="data:image/png;base64,${Buffer.from(png).toString("base64")}"/></svg>`;
    const doc = await extractor.extract({ filename: "outlined.svg", bytes: new TextEncoder().encode(svg) });
    expect(doc.format).toBe("svg");
    expect(flat(doc)).toContain("Dexterity");
    expect(doc.notes.join(" ")).toContain("rasterised");
  });

  test("an SVG of shapes only has no text: 422", async () => {
    const r = await refusal(extractor.extract({ filename: "shapes.svg", bytes: fixture("shapes_only.svg") }));
    expect(r).toMatchObject({ status: 422, type: "no_text_extracted" });
  });
});

describe("refusals (422)", () => {
  test("empty file", async () => {
    const r = await refusal(extractor.extract({ filename: "a.pdf", bytes: new Uint8Array() }));
    expect(r).toMatchObject({ status: 422, type: "empty_file" });
  });

  test("unsupported formats name themselves and the supported list", async () => {
    const gif = await refusal(
      extractor.extract({ filename: "a.gif", bytes: new TextEncoder().encode("GIF89a\x01\x00") }),
    );
    expect(gif.status).toBe(422);
    expect(gif.type).toBe("unsupported_format");
    expect(gif.msg).toContain("GIF");
    expect(gif.msg).toContain("PDF, DOCX, PPTX");
    const bin = await refusal(
      extractor.extract({ filename: "a.bin", bytes: new Uint8Array(4096).map((_, i) => (i * 7919) % 256) }),
    );
    expect(bin).toMatchObject({ status: 422, type: "unsupported_format" });
  });

  test("corrupt files of a supported format", async () => {
    const memo = fixture("memo_logistics_1p.pdf");
    const truncatedPdf = await refusal(extractor.extract({ filename: "t.pdf", bytes: memo.subarray(0, 300) }));
    expect(truncatedPdf.status).toBe(422);
    expect(["unreadable_file", "no_text_extracted"]).toContain(truncatedPdf.type);

    const fakeDocx = new Uint8Array([0x50, 0x4b, 0x03, 0x04, ...new TextEncoder().encode("word/document.xml garbage")]);
    expect(await refusal(extractor.extract({ filename: "f.docx", bytes: fakeDocx }))).toMatchObject({
      status: 422,
      type: "unreadable_file",
    });

    const png = fixture("table_multi_row_column_cells.png");
    expect(await refusal(extractor.extract({ filename: "t.png", bytes: png.subarray(0, 20) }))).toMatchObject({
      status: 422,
      type: "unreadable_file",
    });

    const badSvg = new TextEncoder().encode('<svg xmlns="http://www.w3.org/2000/svg"><g><rect></svg>');
    expect((await refusal(extractor.extract({ filename: "b.svg", bytes: badSvg }))).status).toBe(422);
  });

  test("a PDF without any text or images", async () => {
    const blank = [
      "%PDF-1.4",
      "1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj",
      "2 0 obj << /Type /Pages /Kids [3 0 R] /Count 1 >> endobj",
      "3 0 obj << /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >> endobj",
      "trailer << /Root 1 0 R >>",
      "%%EOF",
    ].join("\n");
    const r = await refusal(extractor.extract({ filename: "blank.pdf", bytes: new TextEncoder().encode(blank) }));
    expect(r).toMatchObject({ status: 422, type: "no_text_extracted" });
    expect(r.msg).toContain("No text could be extracted");
  });

  test("text files that are only whitespace or rules", async () => {
    const r = await refusal(
      extractor.extract({ filename: "x.txt", bytes: new TextEncoder().encode("  \n____\n. . .\n") }),
    );
    expect(r).toMatchObject({ status: 422, type: "no_text_extracted" });
  });
});

describe("worker pool", () => {
  test("a document past its deadline is refused and the pool recovers", async () => {
    const ex = new Extractor({ concurrency: 1, timeoutMs: 30 });
    try {
      const r = await refusal(ex.extract({ filename: "s.pdf", bytes: fixture("single_table_image_only.pdf") }));
      expect(r).toMatchObject({ status: 422, type: "extraction_timeout" });
      expect(ex.load.running).toBe(0);
    } finally {
      await ex.close();
    }
    // A fresh pool with a sane deadline still works after a kill (worker replaced).
    const ok = new Extractor({ concurrency: 1, timeoutMs: 60_000 });
    try {
      const first = ok.extract({ filename: "s.pdf", bytes: fixture("single_table_image_only.pdf") });
      expect(flat(await first)).toContain("Chipper");
    } finally {
      await ok.close();
    }
  });

  test("the queue is bounded: beyond it, 503 with Retry-After", async () => {
    const ex = new Extractor({ concurrency: 1, maxQueued: 1 });
    try {
      const png = fixture("table_multi_row_column_cells.png");
      const a = ex.extract({ filename: "a.png", bytes: png });
      const b = ex.extract({ filename: "b.png", bytes: png });
      const c = ex.extract({ filename: "c.png", bytes: png });
      const refused = await c.then(
        () => null,
        (e: unknown) => e as AppError,
      );
      expect(refused?.status).toBe(503);
      expect(refused?.headers?.["Retry-After"]).toBe("5");
      const [ra, rb] = await Promise.all([a, b]);
      expect(flat(ra)).toContain("Dexterity");
      expect(flat(rb)).toContain("Dexterity");
    } finally {
      await ex.close();
    }
  });

  test("OCR runs off the event loop: timers keep firing during extraction", async () => {
    let ticks = 0;
    const timer = setInterval(() => ticks++, 5);
    try {
      await extractor.extract({ filename: "t.png", bytes: fixture("table_multi_row_column_cells.png") });
    } finally {
      clearInterval(timer);
    }
    // A blocked loop would fire the interval at most once or twice.
    expect(ticks).toBeGreaterThan(10);
  });
});

describe("vision model (OpenAI-compatible)", () => {
  test("its description is used, labelled with the model; a failure falls back to the derived one", async () => {
    const seen: { auth: string | null; model: string; imageUrl: string; prompt: string }[] = [];
    let fail = false;
    const server = Bun.serve({
      port: 0,
      async fetch(req) {
        const body = (await req.json()) as {
          model: string;
          messages: { content: { type: string; text?: string; image_url?: { url: string } }[] }[];
        };
        const parts = body.messages[0]!.content;
        seen.push({
          auth: req.headers.get("authorization"),
          model: body.model,
          imageUrl: parts.find((p) => p.type === "image_url")!.image_url!.url,
          prompt: parts.find((p) => p.type === "text")!.text!,
        });
        if (fail) return new Response("overloaded", { status: 503 });
        return Response.json({
          choices: [{ message: { role: "assistant", content: "A table of ballot results by disability category." } }],
        });
      },
    });
    const warnings: string[] = [];
    const ex = new Extractor({
      concurrency: 1,
      vision: { url: `http://127.0.0.1:${server.port}/v1`, model: "test-vision", apiKey: "sk-test", timeoutMs: 5000 },
      onWarning: (m) => warnings.push(m),
    });
    try {
      const png = fixture("table_multi_row_column_cells.png");
      const doc = await ex.extract({ filename: "t.png", bytes: png });
      const desc = doc.blocks.find((b) => b.kind === "description")!;
      expect(desc.text).toBe(
        "[Image description, by vision model test-vision] A table of ballot results by disability category.",
      );
      expect(seen[0]!.auth).toBe("Bearer sk-test");
      expect(seen[0]!.model).toBe("test-vision");
      expect(seen[0]!.imageUrl).toBe(`data:image/png;base64,${Buffer.from(png).toString("base64")}`);
      expect(seen[0]!.prompt).toContain("Dexterity"); // OCR text is passed as a hint

      fail = true;
      const fallback = await ex.extract({ filename: "t.png", bytes: png });
      expect(fallback.blocks.find((b) => b.kind === "description")!.text.startsWith(DERIVED_LABEL)).toBe(true);
      expect(fallback.notes.join(" ")).toContain("vision model unavailable");
      expect(warnings).toHaveLength(1);
    } finally {
      await ex.close();
      server.stop(true);
    }
  });
});

// Every real sample: the format is detected, and text a reader would look for is there.
const SAMPLES: Record<string, { format: string; phrases: string[]; absent?: string[]; pages?: number }> = {
  "csv/csv_comma.csv": { format: "csv", phrases: ["First Name: Sheryl", "Last Name: Lozano, Dr"] },
  "csv/csv_semicolon.csv": { format: "csv", phrases: ["Company: Rasmussen Group", "Country: Chile"] },
  "csv/csv_with_escaped_commas.csv": { format: "csv", phrases: ["A,A"] },
  "docx/docx_headers_footers.docx": {
    format: "docx",
    phrases: ["First header para", "Main document", "Table cell1 | Table cell2"],
    absent: ["I should not be included"],
  },
  "docx/docx_tables_nested_merged.docx": { format: "docx", phrases: ["Header Col 1 | Header Col 2", "Lorem ipsum"] },
  "docx/us_trustee_handbook_1p.docx": {
    format: "docx",
    phrases: ["ROLE OF THE UNITED STATES TRUSTEE", "fiduciary responsibility to the bankruptcy estate"],
  },
  "docx/word_sample_paragraphs_table_image.docx": {
    format: "docx",
    phrases: ["Swimming in the lake", "Berries | Blueberry, Strawberry, Cranberry | 150"],
  },
  "docx/word_tables_merged_cells.docx": { format: "docx", phrases: ["Merged Cell 1.1 1.2", "Cell 2.2"] },
  "html/acorn_energy_EX-10.1_agreement_0001493152-25-001317.htm": {
    format: "html",
    phrases: ["CONSULTING AGREEMENT", "Jan H. Loeb"],
  },
  "html/example_10k_1page.html": {
    format: "html",
    phrases: ["Galaxy Gaming, Inc.", "Commission file number: 000-30653"],
    absent: ["<?xml"],
  },
  "images/english_and_korean_text.png": { format: "png", phrases: ["RULES AND INSTRUCTIONS"] },
  "images/msft_financial_performance_chart.png": {
    format: "png",
    phrases: ["MICROSOFT CORP (MSFT) Financial Performance", "FY24", "Net Margin", "likely a chart"],
  },
  "images/page_with_tables_and_images.jpg": {
    format: "jpeg",
    phrases: ["Langmuir adsorption isotherm", "Potentiodynamic polarization"],
  },
  "images/research_paper_page_with_table.jpg": {
    format: "jpeg",
    phrases: ["Layout Detection Models", "pre-trained model weights"],
  },
  "images/swiss_qr_invoice_sample.jpg": { format: "jpeg", phrases: ["Garden work", "Rutschmann", "3949.75"] },
  "images/table_multi_row_column_cells.png": { format: "png", phrases: ["Dexterity", "Mobility"] },
  "md/apple_8-K.md": { format: "md", phrases: ["FORM 8-K", "Date of Report"], absent: ["<div"] },
  "md/mixed_formatting.md": { format: "md", phrases: ["Scrooge McDuck | Dagobert Duck"] },
  "md/wiki_article.md": { format: "md", phrases: ["nicknamed Big Blue", "Armonk, New York"] },
  "pdf/chevron_annual_report_page.pdf": { format: "pdf", phrases: ["Eastern Mediterranean", "Leviathan"] },
  "pdf/memo_logistics_1p.pdf": { format: "pdf", phrases: ["20,000 bottles of water"] },
  "pdf/multi_page_5p.pdf": { format: "pdf", phrases: ["Christopher Latham Sholes"], pages: 5 },
  "pdf/paper_page_with_table.pdf": { format: "pdf", phrases: ["Hyper Parameter Optimization", "PubTabNet"] },
  "pdf/reliance_integrated_annual_report_2021-22_3p.pdf": {
    format: "pdf",
    phrases: ["Integrated Annual Report 2021-22"],
    pages: 3,
  },
  "pdf/research_paper_two_column_2p.pdf": {
    format: "pdf",
    phrases: ["Dense Passage Retrieval for Open-Domain Question Answering", "Open-domain question answering"],
    pages: 2,
  },
  "pdf/scanned_ocr_test.pdf": { format: "pdf", phrases: ["Docling bundles PDF document conversion to JSON"] },
  "pdf/sec_form_c_offering.pdf": {
    format: "pdf",
    phrases: ["UNITED STATES SECURITIES AND EXCHANGE COMMISSION", "FORM C"],
    pages: 20,
  },
  "pdf/single_table_image_only.pdf": { format: "pdf", phrases: ["Base 128", "64,058", "Chipper"] },
  "pptx/powerpoint_sample_table_lists.pptx": {
    format: "pptx",
    phrases: ["Test Table Slide", "A rectangle shape with this text inside.", "Speaker notes: Some notes"],
    pages: 3,
  },
  "pptx/pptx_chart_quarterly_revenue.pptx": {
    format: "pptx",
    phrases: ["Quarterly Duck Survey", "Wild Duck Observations by Year", "Freshwater Ducks — 2019: 120"],
    pages: 2,
  },
  "pptx/sample_presentation_4slides.pptx": {
    format: "pptx",
    phrases: ["This is the first content slide", "This is kinda backwards, huh?", "2 | A2 | B2 | C2"],
    pages: 4,
  },
  "pptx/simple_2slides_bullets.pptx": { format: "pptx", phrases: ["Things to think about"], pages: 2 },
  "pptx/slide_with_table.pptx": {
    format: "pptx",
    phrases: ["A Slide with a Table", "Tangerine | Pink | Aqua"],
    pages: 1,
  },
  "svg/financial-data-flow.svg": {
    format: "svg",
    phrases: ["How SEC Financial Data Reaches You", "XBRL embedded in document"],
  },
  "svg/how-it-works.svg": { format: "svg", phrases: ["TYPED OBJECTS", "insider transactions"] },
  "svg/performance-comparison.svg": {
    format: "svg",
    phrases: ["Performance Comparison: EdgarTools vs. Traditional Methods"],
  },
  "txt/norwich_city_wikipedia.txt": { format: "txt", phrases: ["Iwan Roberts", "Norwich City"] },
  "txt/war_and_peace_1p.txt": { format: "txt", phrases: ["Anna Pavlovna Scherer"] },
};

const samples = sharedData("documents", "document extraction");
describe.if(samples !== undefined)("every sample in ../shared/data/documents", () => {
  const dir = samples ?? "";
  const files = samples
    ? readdirSync(dir, { recursive: true, withFileTypes: true })
        .filter((e) => e.isFile())
        .map((e) => join(e.parentPath, e.name).slice(dir.length + 1))
        .sort()
    : [];

  test("every sample has expectations here", () => {
    expect(files.filter((f) => !(f in SAMPLES))).toEqual([]);
  });

  for (const file of files) {
    test(file, async () => {
      const want = SAMPLES[file];
      if (!want) throw new Error(`no expectations for ${file}`);
      const doc = await extractor.extract({
        filename: file.split("/").pop()!,
        bytes: new Uint8Array(readFileSync(join(dir, file))),
      });
      expect(doc.format).toBe(want.format);
      const text = flat(doc);
      for (const p of want.phrases) expect(text).toContain(p);
      for (const p of want.absent ?? []) expect(text).not.toContain(p);
      if (want.pages) {
        expect(doc.pages).toBe(want.pages);
        expect(Math.max(...doc.blocks.map((b) => b.page ?? 0))).toBe(want.pages);
      }
      for (const c of chunkDocument(doc)) expect(c.text.length).toBeLessThanOrEqual(1000);
    });
  }
});
