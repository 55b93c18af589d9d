/**
 * A budgeted reader of ZIP packages (DOCX, PPTX): the central directory is read and checked
 * before a single entry is inflated, and every inflation is capped by what is left of the
 * budget, because a central directory's sizes are whatever the file's author wrote.
 *
 * Refused before inflating: more than `maxEntries` entries, a declared total past
 * `maxTotalBytes`, an entry whose declared ratio passes `maxRatio` (beyond a small floor, as
 * tiny XML parts compress very well). Refused while inflating: a part that inflates past the
 * remaining budget, past `maxPartBytes` (the most one XML part may be; the XML parser's
 * tree is many times the text, so this is what bounds the worker's memory), or past
 * `maxRatio` times its compressed size (the ratio rule again, on real bytes: a bomb that
 * lies about its size costs ~20 MB of inflating, not 32, before it is refused).
 *
 * A refusal is a PackageTooLarge (answered 413) or, for a broken archive, an Error whose
 * message says what is wrong (answered 422 as unreadable).
 */
import { inflateRawSync } from "node:zlib";

export interface ZipBudget {
  maxEntries: number;
  maxTotalBytes: number;
  maxPartBytes: number;
  maxRatio: number;
  /** Entries smaller than this (declared) are not held to maxRatio. */
  ratioFloorBytes: number;
}

export const ZIP_BUDGET: ZipBudget = {
  maxEntries: 5_000,
  maxTotalBytes: 100 * 1024 * 1024,
  maxPartBytes: 32 * 1024 * 1024,
  maxRatio: 100,
  ratioFloorBytes: 1024 * 1024,
};

/** The package inflates (or says it would inflate) past the budget: 413, not 422. */
export class PackageTooLarge extends Error {}

interface Entry {
  name: string;
  method: number;
  compressed: number;
  declared: number;
  localOffset: number;
}

const MiB = 1024 * 1024;
const mib = (n: number) => `${Math.round(n / MiB)} MiB`;

function endOfCentralDirectory(v: DataView): number {
  // The EOCD record is 22 bytes plus a comment of at most 65535 bytes, at the very end.
  const stop = Math.max(0, v.byteLength - 22 - 0xffff);
  for (let p = v.byteLength - 22; p >= stop; p--) if (v.getUint32(p, true) === 0x06054b50) return p;
  throw new Error("not a ZIP package (no end of central directory)");
}

/** Sizes and offset of a ZIP64 entry from its extra field (only the fields marked 0xFFFFFFFF). */
function zip64(v: DataView, at: number, len: number, e: Entry, flags: { c: boolean; u: boolean; o: boolean }): void {
  for (let p = at; p + 4 <= at + len; ) {
    const id = v.getUint16(p, true);
    const size = v.getUint16(p + 2, true);
    if (id === 0x0001) {
      let q = p + 4;
      const next = () => {
        const n = Number(v.getBigUint64(q, true));
        q += 8;
        return n;
      };
      if (flags.u) e.declared = next();
      if (flags.c) e.compressed = next();
      if (flags.o) e.localOffset = next();
      return;
    }
    p += 4 + size;
  }
}

function centralDirectory(bytes: Uint8Array, budget: ZipBudget): Map<string, Entry> {
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const eocd = endOfCentralDirectory(v);
  const count = v.getUint16(eocd + 10, true);
  if (count > budget.maxEntries) {
    throw new PackageTooLarge(`the package has ${count} entries (at most ${budget.maxEntries} are accepted)`);
  }
  const entries = new Map<string, Entry>();
  const decoder = new TextDecoder();
  let p = v.getUint32(eocd + 16, true);
  let total = 0;
  // Walk the records rather than trust the count: a ZIP64 archive says 0xFFFF there.
  while (p + 46 <= bytes.length && v.getUint32(p, true) === 0x02014b50) {
    if (entries.size >= budget.maxEntries) {
      throw new PackageTooLarge(`the package has more than ${budget.maxEntries} entries`);
    }
    const nameLen = v.getUint16(p + 28, true);
    const extraLen = v.getUint16(p + 30, true);
    const commentLen = v.getUint16(p + 32, true);
    const e: Entry = {
      name: decoder.decode(bytes.subarray(p + 46, p + 46 + nameLen)),
      method: v.getUint16(p + 10, true),
      compressed: v.getUint32(p + 20, true),
      declared: v.getUint32(p + 24, true),
      localOffset: v.getUint32(p + 42, true),
    };
    const max = 0xffffffff;
    if (e.compressed === max || e.declared === max || e.localOffset === max) {
      zip64(v, p + 46 + nameLen, extraLen, e, {
        u: e.declared === max,
        c: e.compressed === max,
        o: e.localOffset === max,
      });
    }
    total += e.declared;
    if (total > budget.maxTotalBytes) {
      throw new PackageTooLarge(`the package declares more than ${mib(budget.maxTotalBytes)} once inflated`);
    }
    if (e.declared > budget.ratioFloorBytes && e.declared > e.compressed * budget.maxRatio) {
      throw new PackageTooLarge(
        `the entry ${e.name} is compressed more than ${budget.maxRatio}:1 (${mib(e.declared)} from ${e.compressed} bytes)`,
      );
    }
    entries.set(e.name, e);
    p += 46 + nameLen + extraLen + commentLen;
  }
  if (entries.size === 0 && count > 0) throw new Error("the ZIP central directory is corrupt");
  return entries;
}

export interface Package {
  /** Entry names, as the central directory lists them. */
  names(): string[];
  /** A part as UTF-8 text, or undefined when the package has no such entry. */
  text(path: string): string | undefined;
  /** Bytes inflated so far (for tests and notes). */
  readonly inflated: number;
}

/** Opens a ZIP package under a budget; throws PackageTooLarge or Error (corrupt) at once. */
export function openPackage(bytes: Uint8Array, budget: ZipBudget = ZIP_BUDGET): Package {
  const entries = centralDirectory(bytes, budget);
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let inflated = 0;
  const decoder = new TextDecoder("utf-8", { fatal: false });
  return {
    names: () => [...entries.keys()],
    get inflated() {
      return inflated;
    },
    text(path) {
      const e = entries.get(path);
      if (!e) return undefined;
      const at = e.localOffset;
      if (at + 30 > bytes.length || v.getUint32(at, true) !== 0x04034b50) {
        throw new Error(`the ZIP entry ${path} has no local header`);
      }
      const start = at + 30 + v.getUint16(at + 26, true) + v.getUint16(at + 28, true);
      const data = bytes.subarray(start, start + e.compressed);
      if (data.length < e.compressed) throw new Error(`the ZIP entry ${path} is truncated`);
      const left = budget.maxTotalBytes - inflated;
      const byRatio = Math.max(budget.ratioFloorBytes, e.compressed * budget.maxRatio);
      const cap = Math.min(left, budget.maxPartBytes, byRatio);
      let out: Uint8Array;
      if (e.method === 0) out = data;
      else if (e.method === 8) {
        try {
          // The real bound: inflation stops at `cap` bytes whatever the header declared.
          out = inflateRawSync(data, { maxOutputLength: Math.max(1, cap) });
        } catch (err) {
          if ((err as { code?: string }).code === "ERR_BUFFER_TOO_LARGE") {
            throw new PackageTooLarge(
              cap === left
                ? `the package inflates to more than ${mib(budget.maxTotalBytes)}`
                : cap === byRatio
                  ? `the part ${path} inflates more than ${budget.maxRatio}:1 (over ${mib(cap)} from ${e.compressed} bytes)`
                  : `the part ${path} inflates to more than ${mib(budget.maxPartBytes)}`,
            );
          }
          throw new Error(`the ZIP entry ${path} is corrupt (${(err as Error).message})`);
        }
      } else throw new Error(`the ZIP entry ${path} uses an unsupported compression method (${e.method})`);
      if (out.length > cap) throw new PackageTooLarge(`the part ${path} is larger than ${mib(cap)}`);
      inflated += out.length;
      return decoder.decode(out);
    },
  };
}
