import { describe, expect, test } from "bun:test";
import { detectFormat } from "./formats.ts";

const enc = (s: string) => new TextEncoder().encode(s);
const bytes = (...b: number[]) => new Uint8Array([...b, ...new Array(32).fill(0x20)]);
const zipWith = (entry: string) => new Uint8Array([0x50, 0x4b, 0x03, 0x04, ...enc(`....${entry}....`)]);

describe("detectFormat", () => {
  test("signatures win over names and content types", () => {
    expect(detectFormat({ filename: "a.txt", bytes: enc("%PDF-1.7\n...") })).toEqual({ ok: true, format: "pdf" });
    expect(detectFormat({ filename: "a.pdf", bytes: bytes(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a) })).toEqual({
      ok: true,
      format: "png",
    });
    expect(detectFormat({ filename: "x", bytes: bytes(0xff, 0xd8, 0xff, 0xe0), contentType: "text/plain" })).toEqual({
      ok: true,
      format: "jpeg",
    });
    expect(detectFormat({ filename: "deck.bin", bytes: zipWith("ppt/presentation.xml") })).toEqual({
      ok: true,
      format: "pptx",
    });
    expect(detectFormat({ filename: "memo.pptx", bytes: zipWith("word/document.xml") })).toEqual({
      ok: true,
      format: "docx",
    });
  });

  test("text formats follow the content, then the extension, then the content type", () => {
    expect(detectFormat({ filename: "chart", bytes: enc('<?xml version="1.0"?>\n<svg xmlns="x"></svg>') })).toEqual({
      ok: true,
      format: "svg",
    });
    expect(detectFormat({ filename: "f.txt", bytes: enc("<!DOCTYPE html><html><body>x</body></html>") })).toEqual({
      ok: true,
      format: "html",
    });
    expect(detectFormat({ filename: "notes.md", bytes: enc("# Title\n\ntext") })).toEqual({ ok: true, format: "md" });
    expect(detectFormat({ filename: "rows.CSV", bytes: enc("a,b\n1,2") })).toEqual({ ok: true, format: "csv" });
    expect(
      detectFormat({ filename: "upload", bytes: enc("a;b\n1;2"), contentType: "text/csv; charset=utf-8" }),
    ).toEqual({
      ok: true,
      format: "csv",
    });
    expect(detectFormat({ filename: "README", bytes: enc("plain words") })).toEqual({ ok: true, format: "txt" });
    // Named .html but not markup: plain text.
    expect(detectFormat({ filename: "x.html", bytes: enc("just text") })).toEqual({ ok: true, format: "txt" });
  });

  test("refusals say why", () => {
    expect(detectFormat({ filename: "a.pdf", bytes: new Uint8Array() })).toMatchObject({ ok: false, reason: "empty" });
    const gif = detectFormat({ filename: "a.gif", bytes: enc("GIF89a......") });
    expect(gif).toMatchObject({ ok: false, reason: "unsupported" });
    expect(!gif.ok && gif.detail).toContain("GIF");
    const xlsx = detectFormat({ filename: "a.xlsx", bytes: zipWith("xl/workbook.xml") });
    expect(!xlsx.ok && xlsx.detail).toContain("XLSX");
    const doc = detectFormat({ filename: "a.doc", bytes: bytes(0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1) });
    expect(!doc.ok && doc.detail).toContain("legacy Office");
    const binary = detectFormat({ filename: "a.bin", bytes: new Uint8Array([1, 2, 3, 0, 0, 0, 4, 5, 6, 0, 0, 7]) });
    expect(binary).toMatchObject({ ok: false, reason: "unsupported" });
    // Text pretending to be a PDF is corrupt, not plain text.
    const fake = detectFormat({ filename: "report.pdf", bytes: enc("this is not a pdf") });
    expect(!fake.ok && fake.detail).toContain("PDF");
  });
});
