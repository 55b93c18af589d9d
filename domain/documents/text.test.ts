import { describe, expect, test } from "bun:test";
import { pdfParagraphs } from "./pdf-layout.ts";
import { csvBlocks, markdownBlocks, parseCsv, sniffDelimiter, textBlocks } from "./text.ts";

describe("text formats", () => {
  test("plain text: blank-line paragraphs, hard wraps joined, one-paragraph-per-line files split", () => {
    expect(textBlocks("Line one\nwraps here.\n\nSecond para.").map((b) => b.text)).toEqual([
      "Line one wraps here.",
      "Second para.",
    ]);
    const long = `${"a ".repeat(80)}end.`;
    expect(textBlocks(`${long}\n${long}`)).toHaveLength(2);
  });

  test("markdown: headings marked, inline HTML tables read as rows", () => {
    const blocks = markdownBlocks(
      "# Title\nintro\n\n<table><tr><th>A</th><th>B</th></tr><tr><td>1</td><td>2</td></tr></table>",
    );
    expect(blocks[0]).toEqual({ text: "Title", kind: "heading" });
    expect(blocks.map((b) => b.text)).toContain("A | B\n1 | 2");
  });

  test("CSV: quoted delimiters and quotes, header names each value", () => {
    expect(parseCsv('a,"b,c","d ""q"""\n1,2,3', ",")).toEqual([
      ["a", "b,c", 'd "q"'],
      ["1", "2", "3"],
    ]);
    expect(sniffDelimiter("x;y;z\n1;2;3")).toBe(";");
    const blocks = csvBlocks('Name,City\nAda,London\nGrace,"New York, NY"\n');
    expect(blocks[0]).toEqual({ text: "Columns: Name, City", kind: "heading" });
    expect(blocks[1]!.text).toBe("Name: Ada; City: London\nName: Grace; City: New York, NY");
  });
});

describe("PDF paragraphs", () => {
  const run = (str: string, y: number, x = 72, size = 11) => ({ str, x, y, width: str.length * 5, size });

  test("wider line spacing and short sentence-ending lines end paragraphs; hyphenation is undone", () => {
    const paras = pdfParagraphs([
      run("May 5, 2023", 710),
      run("There were 20,000 bottles of water delivered and the trucks were", 686),
      run("used for 15 hours by the logis-", 674),
      run("tics team.", 662),
      run("Best Regards,", 638),
    ]);
    expect(paras).toEqual([
      "May 5, 2023",
      "There were 20,000 bottles of water delivered and the trucks were used for 15 hours by the logistics team.",
      "Best Regards,",
    ]);
  });

  test("a jump back up the page (next column) starts a paragraph", () => {
    const paras = pdfParagraphs([
      run("left column line one", 700),
      run("left column two", 688),
      run("right col", 700, 320),
    ]);
    expect(paras).toHaveLength(2);
  });
});
