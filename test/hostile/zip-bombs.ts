/**
 * Hostile ZIP packages for the upload-budget tests, written by hand so a test can lie in the
 * central directory (declared sizes) and build a 200 MB bomb without holding 200 MB: the
 * deflate stream is fed the same 1 MiB block over and over.
 */
import { createDeflateRaw } from "node:zlib";

export interface RawEntry {
  name: string;
  /** Raw deflate data (method 8), or the stored bytes (method 0). */
  data: Uint8Array;
  method: 0 | 8;
  /** The uncompressed size written in the headers (may lie). */
  declared: number;
}

/** Raw deflate of `head`, then `text` repeated to about `bytes`, then `tail`. */
export async function deflateRepeated(
  head: string,
  text: string,
  bytes: number,
  tail: string,
): Promise<Uint8Array<ArrayBuffer>> {
  const d = createDeflateRaw({ level: 9 });
  const out: Buffer[] = [];
  d.on("data", (b: Buffer) => out.push(b));
  const done = new Promise<void>((resolve, reject) => {
    d.on("end", resolve);
    d.on("error", reject);
  });
  const block = Buffer.from(text.repeat(Math.ceil((1024 * 1024) / text.length)));
  d.write(head);
  for (let n = 0; n < bytes; n += block.length) {
    if (!d.write(block)) await new Promise((r) => d.once("drain", r));
  }
  d.end(tail);
  await done;
  return new Uint8Array(Buffer.concat(out));
}

/** A ZIP archive of the entries (no CRCs: the readers under test do not check them). */
export function zipOf(entries: RawEntry[]): Uint8Array<ArrayBuffer> {
  const enc = new TextEncoder();
  const locals: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const name = enc.encode(e.name);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(e.method, 8);
    local.writeUInt32LE(e.data.length, 18);
    local.writeUInt32LE(e.declared, 22);
    local.writeUInt16LE(name.length, 26);
    locals.push(local, Buffer.from(name), Buffer.from(e.data));
    const cd = Buffer.alloc(46);
    cd.writeUInt32LE(0x02014b50, 0);
    cd.writeUInt16LE(20, 4);
    cd.writeUInt16LE(20, 6);
    cd.writeUInt16LE(e.method, 10);
    cd.writeUInt32LE(e.data.length, 20);
    cd.writeUInt32LE(e.declared, 24);
    cd.writeUInt16LE(name.length, 28);
    cd.writeUInt32LE(offset, 42);
    central.push(cd, Buffer.from(name));
    offset += 30 + name.length + e.data.length;
  }
  const cdBytes = Buffer.concat(central);
  const eocd = Buffer.alloc(22);
  eocd.writeUInt32LE(0x06054b50, 0);
  const count = Math.min(entries.length, 0xffff);
  eocd.writeUInt16LE(count, 8);
  eocd.writeUInt16LE(count, 10);
  eocd.writeUInt32LE(cdBytes.length, 12);
  eocd.writeUInt32LE(offset, 16);
  return new Uint8Array(Buffer.concat([...locals, cdBytes, eocd]));
}

const DOC_HEAD =
  '<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p><w:r><w:t>';
const DOC_TAIL = "</w:t></w:r></w:p></w:body></w:document>";

/** A DOCX whose word/document.xml is `inflated` bytes of repeated text; `honest` = true sizes in the headers. */
export async function docxBomb(inflated: number, honest: boolean): Promise<Uint8Array<ArrayBuffer>> {
  const data = await deflateRepeated(DOC_HEAD, "lorem ipsum ", inflated, DOC_TAIL);
  return zipOf([{ name: "word/document.xml", data, method: 8, declared: honest ? inflated : 1024 }]);
}

/** A DOCX-looking archive of `count` tiny stored entries. */
export function manyEntries(count: number): Uint8Array<ArrayBuffer> {
  const doc = new TextEncoder().encode(`${DOC_HEAD}hello${DOC_TAIL}`);
  const entries: RawEntry[] = [{ name: "word/document.xml", data: doc, method: 0, declared: doc.length }];
  const x = new Uint8Array([120]);
  for (let i = 1; i < count; i++) entries.push({ name: `word/media/e${i}.txt`, data: x, method: 0, declared: 1 });
  return zipOf(entries);
}

/** A small, valid DOCX with the given paragraph text. */
export function smallDocx(text: string): Uint8Array<ArrayBuffer> {
  const doc = new TextEncoder().encode(`${DOC_HEAD}${text}${DOC_TAIL}`);
  return zipOf([{ name: "word/document.xml", data: doc, method: 0, declared: doc.length }]);
}
