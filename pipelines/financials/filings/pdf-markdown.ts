/**
 * PDF -> Markdown with unpdf (Mozilla pdf.js, serverless build): the text layer page by
 * page, pages separated by a rule. Scanned pages without a text layer give no text; the
 * caller decides what an empty result means (no OCR here).
 */
import { extractText, getDocumentProxy } from "unpdf";

export async function pdfToMarkdown(bytes: Uint8Array): Promise<{ markdown: string; pages: number }> {
  // pdf.js takes ownership of (detaches) the buffer it is given: pass a copy.
  const pdf = await getDocumentProxy(new Uint8Array(bytes));
  try {
    const { totalPages, text } = await extractText(pdf, { mergePages: false });
    const pages = text.map((page) =>
      page
        .split("\n")
        .map((l) => l.replace(/\s+/g, " ").trim())
        .join("\n")
        // Lines broken inside a paragraph are joined; blank lines stay paragraph breaks.
        .replace(/([^\n])\n(?=[^\n])/g, "$1 ")
        .trim(),
    );
    return { markdown: pages.filter(Boolean).join("\n\n---\n\n"), pages: totalPages };
  } finally {
    await pdf.loadingTask.destroy();
  }
}
