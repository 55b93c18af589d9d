import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { FilingRecord } from "../../../domain/financials/presentations.ts";
import { sharedData } from "../../../test/shared-data.ts";
import {
  describeFileName,
  docTypeLabel,
  htmlToMarkdown,
  ingestFilingsDirectory,
  markdownToText,
  parseSgmlHeader,
  pdfToMarkdown,
  readHtmlCover,
  secUrl,
  splitSgmlDocuments,
  uudecode,
} from "./index.ts";

describe("HTML to Markdown", () => {
  test("print-layout tables become clean grids: colspans expanded, $ joined, spacers dropped", () => {
    const html = `<html><head><title>x</title></head><body>
      <ix:header><ix:hidden>0000123456 false</ix:hidden></ix:header>
      <p>Results</p>
      <table>
        <tr><td></td><td colspan="3">Thirteen Weeks Ended</td></tr>
        <tr><td>Net income</td><td>$</td><td>44,172</td><td></td></tr>
        <tr><td>Margin</td><td></td><td>(1.2</td><td>)%</td></tr>
        <tr><td></td><td></td><td></td><td></td></tr>
      </table></body></html>`;
    const md = htmlToMarkdown(html);
    expect(md).not.toContain("0000123456");
    expect(md).toContain("| Net income | $44,172");
    expect(md).toContain("(1.2)%");
    expect(md).toContain("Thirteen Weeks Ended");
    expect(md.split("\n").filter((l) => l.startsWith("|")).length).toBe(4); // header, rule, two rows
  });

  test("one-row layout tables read as a paragraph", () => {
    const md = htmlToMarkdown("<table><tr><td>●</td><td>Revenue up 234%</td></tr></table>");
    expect(md).toBe("● Revenue up 234%");
  });

  test("plain text from Markdown keeps prose and can drop tables", () => {
    const md = "# Title\n\nSome **bold** [link](http://x).\n\n| a | b |\n| - | - |\n| 1 | 2 |";
    expect(markdownToText(md, { tables: "drop" }).trim()).toBe("Title\n\nSome bold link.");
    expect(markdownToText(md)).toContain("a ; b");
  });
});

describe("SGML submissions", () => {
  const txt = [
    "<SEC-DOCUMENT>0000000001-25-000001.txt : 20250415",
    "<SEC-HEADER>0000000001-25-000001.hdr.sgml : 20250415",
    "ACCESSION NUMBER:\t\t0000000001-25-000001",
    "CONFORMED SUBMISSION TYPE:\t8-K",
    "CONFORMED PERIOD OF REPORT:\t20250414",
    "FILED AS OF DATE:\t\t20250415",
    "\t\tCOMPANY CONFORMED NAME:\t\t\tEXAMPLE CORP",
    "\t\tCENTRAL INDEX KEY:\t\t\t0000000001",
    "</SEC-HEADER>",
    "<DOCUMENT>\n<TYPE>8-K\n<SEQUENCE>1\n<FILENAME>a.htm\n<TEXT>\n<html><body>Body</body></html>\n</TEXT>\n</DOCUMENT>",
    "<DOCUMENT>\n<TYPE>EX-99.1\n<SEQUENCE>2\n<FILENAME>b.htm\n<DESCRIPTION>PRESS RELEASE\n<TEXT>\n<p>Hi</p>\n</TEXT>\n</DOCUMENT>",
  ].join("\n");

  test("header fields in both the .txt and the .nc dialect", () => {
    expect(parseSgmlHeader(txt)).toEqual({
      accession_number: "0000000001-25-000001",
      form_type: "8-K",
      filed_date: "2025-04-15",
      period_of_report: "2025-04-14",
      company_name: "EXAMPLE CORP",
      cik: "0000000001",
    });
    const nc =
      "<SUBMISSION>\n<ACCESSION-NUMBER>0001493152-25-001317<TYPE>8-K<PERIOD>20250106<FILING-DATE>20250108" +
      "<FILER><COMPANY-DATA><CONFORMED-NAME>ACORN ENERGY, INC.<CIK>0000880984</COMPANY-DATA><DOCUMENT><TYPE>8-K";
    expect(parseSgmlHeader(nc)).toMatchObject({
      accession_number: "0001493152-25-001317",
      form_type: "8-K",
      filed_date: "2025-01-08",
      company_name: "ACORN ENERGY, INC.",
      cik: "0000880984",
    });
  });

  test("documents with type, sequence, file name and description", () => {
    const docs = splitSgmlDocuments(txt);
    expect(docs.map((d) => [d.type, d.sequence, d.filename, d.description])).toEqual([
      ["8-K", 1, "a.htm", null],
      ["EX-99.1", 2, "b.htm", "PRESS RELEASE"],
    ]);
    expect(docs[1]?.text.trim()).toBe("<p>Hi</p>");
  });

  test("uuencoded bodies decode to their bytes", () => {
    // "Cat" uuencoded.
    expect(new TextDecoder().decode(uudecode("begin 644 cat.txt\n#0V%T\n`\nend\n") ?? new Uint8Array())).toBe("Cat");
    expect(uudecode("no body")).toBeNull();
  });
});

describe("names, labels and URLs", () => {
  test("file names carry the accession, the document type and the original name", () => {
    expect(describeFileName("0001213900-25-032135_EX-99.1_ea023837201ex99-1_abvcbio.htm")).toEqual({
      groupKey: "0001213900-25-032135",
      accession: "0001213900-25-032135",
      typeHint: "EX-99.1",
      filename: "ea023837201ex99-1_abvcbio.htm",
    });
    expect(describeFileName("Buckle_8-K_2024-11-22_EX-99.1.html")).toEqual({
      groupKey: "file:Buckle_8-K_2024-11-22",
      accession: null,
      typeHint: "EX-99.1",
      filename: null,
    });
  });

  test("labels: the description decides, else the opening lines", () => {
    expect(docTypeLabel("8-K", null, "")).toBe("Current report");
    expect(docTypeLabel("EX-99.2", "Investor Presentation", "")).toBe("Investor presentation");
    expect(docTypeLabel("EX-99.1", null, "ACME REPORTS THIRD QUARTER RESULTS ... webcast presentation")).toBe(
      "Press release",
    );
    expect(docTypeLabel("EX-99.1", null, "Q3 2024 Earnings Presentation")).toBe("Investor presentation");
    expect(docTypeLabel("EX-10.1", null, "")).toBe("Exhibit");
  });

  test("SEC archive URLs use the CIK without zeros and the accession without dashes", () => {
    expect(secUrl("0001173313", "0001213900-25-032135", "ex99.htm")).toBe(
      "https://www.sec.gov/Archives/edgar/data/1173313/000121390025032135/ex99.htm",
    );
    expect(secUrl("0001173313", "0001213900-25-032135", null)).toBe(
      "https://www.sec.gov/Archives/edgar/data/1173313/000121390025032135/0001213900-25-032135-index.htm",
    );
    expect(secUrl(null, "0001213900-25-032135", "x.htm")).toBeNull();
  });
});

const eightK = sharedData("sec/8k", "8-K pipeline");
describe.skipIf(!eightK)("real 8-K filings", () => {
  const dir = eightK ?? "";

  test("Buckle's EX-99.1 keeps its income statement as a table", () => {
    const md = htmlToMarkdown(readFileSync(join(dir, "Buckle_8-K_2024-11-22_EX-99.1.html"), "utf8"));
    expect(md).toContain("THE BUCKLE, INC. REPORTS THIRD QUARTER NET INCOME");
    expect(md).toContain("net income for the fiscal quarter ended November 2, 2024 was $44.2 million");
    expect(md).toMatch(/\| NET INCOME\s+\| \$44,172\s+\| \$51,762\s+\| \$118,270\s+\| \$140,338\s+\|/);
  });

  test("inline-XBRL cover pages name the registrant and the date of report", () => {
    expect(readHtmlCover(readFileSync(join(dir, "Buckle_8-K_2024-11-22.html"), "utf8"))).toEqual({
      cik: "0000885245",
      company_name: "BUCKLE, INC",
      ticker: "BKE",
      form_type: "8-K",
      date_of_report: "2024-11-22",
    });
    // A 2016 cover without inline XBRL: name and date from the captions.
    expect(readHtmlCover(readFileSync(join(dir, "0001437749-16-028287.html"), "utf8"))).toMatchObject({
      cik: null,
      company_name: "Sophiris Bio Inc.",
      date_of_report: "2016-03-23",
    });
  });

  test("the directory ingest groups files by filing and keeps 8-K bodies and EX-99 exhibits", async () => {
    const saved: FilingRecord[] = [];
    const store = {
      upsertFiling: async (f: FilingRecord) => void saved.push(f),
      presentation: async () => null,
      texts: async () => [],
    };
    const report = await ingestFilingsDirectory({ filings: store }, dir);
    expect(report.skipped).toEqual([]);
    const abvc = saved.find((f) => f.accession_number === "0001213900-25-032135");
    expect(abvc).toMatchObject({ cik: "0001173313", ticker: "ABVC", form_type: "8-K", filed_date: "2025-04-15" });
    // The stand-alone copies of the 8-K and EX-99.1 duplicate the submission's documents.
    expect(abvc?.documents.map((d) => [d.doc_type, d.sequence, d.doc_type_label])).toEqual([
      ["8-K", 1, "Current report"],
      ["EX-99.1", 2, "Press release"],
    ]);
    const buckle = saved.find((f) => f.filing_key === "file:Buckle_8-K_2024-11-22");
    expect(buckle).toMatchObject({ accession_number: null, cik: "0000885245", ticker: "BKE" });
    expect(buckle?.documents.find((d) => d.doc_type === "EX-99.1")?.filename).toBe("bke20241122-8kexhibit.htm");
    // Acorn's EX-10.1 (an employment agreement) and the XBRL parts are not kept.
    const acorn = saved.find((f) => f.accession_number === "0001493152-25-001317");
    expect(acorn?.documents.map((d) => d.doc_type)).toEqual(["8-K"]);
    expect(acorn?.filed_date).toBe("2025-01-08");
  });
});

const pdfs = sharedData("documents/pdf", "PDF conversion");
describe.skipIf(!pdfs)("PDF to Markdown", () => {
  test("text-layer PDFs give their text, pages separated by rules", async () => {
    const memo = await pdfToMarkdown(new Uint8Array(readFileSync(join(pdfs ?? "", "memo_logistics_1p.pdf"))));
    expect(memo.pages).toBe(1);
    expect(memo.markdown).toContain("There were 20,000 bottles of water, 10,000 blankets, and 200 laptops delivered");
    const multi = await pdfToMarkdown(new Uint8Array(readFileSync(join(pdfs ?? "", "multi_page_5p.pdf"))));
    expect(multi.pages).toBe(5);
    expect(multi.markdown.split("\n\n---\n\n").length).toBe(5);
  });

  test("an image-only scan has no text layer: empty Markdown, no error", async () => {
    const scan = await pdfToMarkdown(new Uint8Array(readFileSync(join(pdfs ?? "", "scanned_ocr_test.pdf"))));
    expect(scan.markdown.trim()).toBe("");
  });
});
