/**
 * Which upload format a file is (spec 4.6): magic bytes first, because a filename or a
 * Content-Type is whatever the client says; the extension and content type only decide
 * between formats that have no signature (plain text, Markdown, CSV, HTML, SVG).
 */

export const DOC_FORMATS = ["pdf", "docx", "pptx", "txt", "md", "csv", "html", "png", "jpeg", "svg"] as const;
export type DocFormat = (typeof DOC_FORMATS)[number];

export const SUPPORTED_FORMATS_TEXT = "PDF, DOCX, PPTX, TXT, MD, CSV, HTML, PNG, JPEG, SVG";

export interface FormatInput {
  filename: string;
  bytes: Uint8Array;
  contentType?: string | undefined;
}

/** Why a file's format was refused: a recognisable but unsupported kind, or nothing readable. */
export type FormatVerdict =
  | { ok: true; format: DocFormat }
  | { ok: false; reason: "empty" | "unsupported"; detail: string };

const EXTENSIONS: Record<string, DocFormat> = {
  pdf: "pdf",
  docx: "docx",
  pptx: "pptx",
  txt: "txt",
  text: "txt",
  md: "md",
  markdown: "md",
  csv: "csv",
  htm: "html",
  html: "html",
  xhtml: "html",
  png: "png",
  jpg: "jpeg",
  jpeg: "jpeg",
  svg: "svg",
};

const CONTENT_TYPES: Record<string, DocFormat> = {
  "application/pdf": "pdf",
  "application/vnd.openxmlformats-officedocument.wordprocessingml.document": "docx",
  "application/vnd.openxmlformats-officedocument.presentationml.presentation": "pptx",
  "text/plain": "txt",
  "text/markdown": "md",
  "text/x-markdown": "md",
  "text/csv": "csv",
  "application/csv": "csv",
  "text/html": "html",
  "application/xhtml+xml": "html",
  "image/png": "png",
  "image/jpeg": "jpeg",
  "image/svg+xml": "svg",
};

/** Signatures of formats we recognise but do not extract, so the refusal can name them. */
const KNOWN_UNSUPPORTED: { magic: number[]; name: string }[] = [
  { magic: [0x47, 0x49, 0x46, 0x38], name: "GIF image" },
  { magic: [0x49, 0x49, 0x2a, 0x00], name: "TIFF image" },
  { magic: [0x4d, 0x4d, 0x00, 0x2a], name: "TIFF image" },
  { magic: [0xd0, 0xcf, 0x11, 0xe0], name: "legacy Office (OLE2: .doc/.xls/.ppt) file" },
  { magic: [0x1f, 0x8b], name: "gzip archive" },
  { magic: [0x52, 0x61, 0x72, 0x21], name: "RAR archive" },
  { magic: [0x37, 0x7a, 0xbc, 0xaf], name: "7z archive" },
  { magic: [0x7f, 0x45, 0x4c, 0x46], name: "executable (ELF)" },
  { magic: [0x4d, 0x5a], name: "executable (PE)" },
];

function startsWith(bytes: Uint8Array, magic: readonly number[], at = 0): boolean {
  if (bytes.length < at + magic.length) return false;
  return magic.every((b, i) => bytes[at + i] === b);
}

/** Whether the ASCII string occurs in the bytes (zip entry names are stored uncompressed). */
function containsAscii(bytes: Uint8Array, needle: string): boolean {
  const n = Buffer.from(needle, "latin1");
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).includes(n);
}

function extensionOf(filename: string): string {
  const base = filename.split(/[\\/]/).pop() ?? "";
  const dot = base.lastIndexOf(".");
  return dot > 0 ? base.slice(dot + 1).toLowerCase() : "";
}

function baseContentType(ct: string | undefined): string {
  return (ct ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
}

/** The leading text of the file, without a BOM, for sniffing markup. */
function head(bytes: Uint8Array, n = 2048): string {
  let start = 0;
  if (startsWith(bytes, [0xef, 0xbb, 0xbf])) start = 3;
  return new TextDecoder("utf-8", { fatal: false }).decode(bytes.subarray(start, start + n));
}

/**
 * True when the bytes look like text: valid UTF-8 (a cut multi-byte sequence at the very end
 * is tolerated) with few control characters. UTF-16 text is not accepted (the spec says UTF-8).
 */
export function looksLikeText(bytes: Uint8Array): boolean {
  const sample = bytes.subarray(0, 64 * 1024);
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(sample);
  } catch {
    if (sample.length < bytes.length) {
      // The sample may end inside a character: retry without the last 3 bytes.
      try {
        text = new TextDecoder("utf-8", { fatal: true }).decode(sample.subarray(0, sample.length - 3));
      } catch {
        return false;
      }
    } else return false;
  }
  let control = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 9 || (c > 13 && c < 32) || c === 127) control++;
  }
  return control <= Math.max(2, text.length * 0.01);
}

/** Detects the format, or says why the file is refused. */
export function detectFormat(input: FormatInput): FormatVerdict {
  const { bytes } = input;
  if (bytes.length === 0) return { ok: false, reason: "empty", detail: "the file is empty" };

  if (startsWith(bytes, [0x25, 0x50, 0x44, 0x46, 0x2d])) return { ok: true, format: "pdf" }; // %PDF-
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return { ok: true, format: "png" };
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return { ok: true, format: "jpeg" };
  if (startsWith(bytes, [0x50, 0x4b, 0x03, 0x04])) {
    if (containsAscii(bytes, "word/document.xml")) return { ok: true, format: "docx" };
    if (containsAscii(bytes, "ppt/presentation.xml")) return { ok: true, format: "pptx" };
    if (containsAscii(bytes, "xl/workbook.xml")) {
      return { ok: false, reason: "unsupported", detail: "spreadsheets (XLSX) are not a supported document format" };
    }
    return { ok: false, reason: "unsupported", detail: "a ZIP archive that is neither DOCX nor PPTX" };
  }
  for (const k of KNOWN_UNSUPPORTED) {
    if (startsWith(bytes, k.magic)) {
      return { ok: false, reason: "unsupported", detail: `${k.name} is not a supported format` };
    }
  }
  if (startsWith(bytes, [0x52, 0x49, 0x46, 0x46]) && startsWith(bytes, [0x57, 0x45, 0x42, 0x50], 8)) {
    return { ok: false, reason: "unsupported", detail: "WebP image is not a supported format" };
  }

  if (!looksLikeText(bytes)) {
    return { ok: false, reason: "unsupported", detail: "binary content of an unrecognised format" };
  }
  // Text: markup is recognised by content, the rest by extension, then by content type.
  const h = head(bytes).trimStart().toLowerCase();
  const ext = EXTENSIONS[extensionOf(input.filename)];
  const ct = CONTENT_TYPES[baseContentType(input.contentType)];
  const claimed = ext ?? ct;
  if (/^(<\?xml[^>]*>\s*)?(<!--[\s\S]*?-->\s*)*(<!doctype svg[^>]*>\s*)?<svg[\s>]/.test(h)) {
    return { ok: true, format: "svg" };
  }
  if (claimed === "svg" && h.includes("<svg")) return { ok: true, format: "svg" };
  if (/^(<!--[\s\S]*?-->\s*)*<!doctype html|^(<!--[\s\S]*?-->\s*)*<html[\s>]/.test(h))
    return { ok: true, format: "html" };
  if (claimed === "html" && /<(html|body|div|p|table)[\s>]/.test(h)) return { ok: true, format: "html" };
  if (claimed === "md" || claimed === "csv" || claimed === "txt") return { ok: true, format: claimed };
  if (claimed === undefined || claimed === "html" || claimed === "svg") return { ok: true, format: "txt" };
  // A text file claiming a binary format (e.g. "report.pdf" holding plain text) is corrupt.
  return {
    ok: false,
    reason: "unsupported",
    detail: `the file is named or typed as ${claimed.toUpperCase()} but its content is plain text`,
  };
}
