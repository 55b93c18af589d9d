/**
 * A side index's generation file is hashed once (side-builds.ts `intactGeneration`): its writer
 * stamps it, or else the first check hashes it and leaves the stamp; later checks trust the
 * stamp while size, modification time and inode match; a file that changes size or time is
 * hashed again and refused if it no longer matches its digest.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { rewriteLater } from "./leg-test-support.ts";
import { intactGeneration, stampGeneration, stampPath } from "./side-builds.ts";

const root = mkdtempSync(join(tmpdir(), "cairn-side-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A hash function that answers `digest()` and counts its calls. */
function counting(digest: () => string) {
  const c = {
    calls: 0,
    hash: () => {
      c.calls++;
      return digest();
    },
  };
  return c;
}

/** The stamp another thread or process leaves after checking `path` against `digest`. */
const stampFor = (path: string, digest: string) => {
  const st = statSync(path);
  return `${digest}:${st.size}:${st.mtimeMs}:${st.ino}`;
};

describe("intactGeneration", () => {
  test("hashes a generation once, then trusts its stamp until the file changes", () => {
    const path = join(root, "t.db.kw-g1.bin");
    const good = Buffer.from("postings ".repeat(1000));
    writeFileSync(path, good);
    const digest = Bun.hash(good).toString(16);
    const h = counting(() => Bun.hash(readFileSync(path)).toString(16));
    expect(intactGeneration(path, good.length, digest, h.hash)).toBe(true);
    expect(h.calls).toBe(1);
    expect(readFileSync(stampPath(path), "utf8")).toBe(stampFor(path, digest));
    expect(intactGeneration(path, good.length, digest, h.hash)).toBe(true);
    expect(h.calls).toBe(1);
    // Wrong size: refused without hashing.
    expect(intactGeneration(path, good.length + 1, digest, h.hash)).toBe(false);
    expect(h.calls).toBe(1);
    // Same size, other bytes, a later time: hashed again and refused, and the stamp is kept as it was.
    const bad = Buffer.from(good);
    bad[10] = 0x41;
    rewriteLater(path, bad);
    expect(intactGeneration(path, good.length, digest, h.hash)).toBe(false);
    expect(h.calls).toBe(2);
    expect(intactGeneration(path, good.length, digest, h.hash)).toBe(false);
    expect(h.calls).toBe(3);
    // Restored: hashed once more, accepted, stamped with the new time.
    rewriteLater(path, good);
    expect(intactGeneration(path, good.length, digest, h.hash)).toBe(true);
    expect(h.calls).toBe(4);
    expect(readFileSync(stampPath(path), "utf8")).toContain(`:${statSync(path).mtimeMs}:`);
  });

  test("a writer's stamp spares every opener the hash", () => {
    const path = join(root, "t.db.kw-g4.bin");
    const bytes = Buffer.from("terms ".repeat(700));
    writeFileSync(path, bytes);
    const digest = Bun.hash(bytes).toString(16);
    stampGeneration(path, digest);
    const h = counting(() => digest);
    expect(intactGeneration(path, bytes.length, digest, h.hash)).toBe(true);
    expect(h.calls).toBe(0);
  });

  test("a stamp another thread or process left is trusted without hashing", () => {
    const path = join(root, "t.db.ann-g2.usearch");
    const bytes = Buffer.from("graph ".repeat(500));
    writeFileSync(path, bytes);
    const digest = "feedface";
    writeFileSync(stampPath(path), stampFor(path, digest));
    const h = counting(() => "");
    expect(intactGeneration(path, bytes.length, digest, h.hash)).toBe(true);
    expect(h.calls).toBe(0);
    // A stamp for another digest does not vouch: the hash runs (and here refuses).
    const other = join(root, "t.db.ann-g3.usearch");
    writeFileSync(other, bytes);
    writeFileSync(stampPath(other), stampFor(other, "cafebabe"));
    const o = counting(() => "cafebabe");
    expect(intactGeneration(other, bytes.length, digest, o.hash)).toBe(false);
    expect(o.calls).toBe(1);
  });
});
