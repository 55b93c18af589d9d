export { htmlToMarkdown, markdownToText } from "./html-markdown.ts";
export { describeFileName, type FilingIngestReport, ingestFilingsDirectory } from "./ingest.ts";
export { docTypeLabel, type HtmlCover, parseLongDate, readHtmlCover, secUrl } from "./metadata.ts";
export { pdfToMarkdown } from "./pdf-markdown.ts";
export { isSgmlSubmission, parseSgmlHeader, splitSgmlDocuments, uudecode } from "./sgml.ts";
