/**
 * A side index's generation file is hashed once (side-builds.ts `intactGeneration`): its writer
 * stamps it, or else the first check hashes it and leaves the stamp; later checks trust the stamp while size, modification time
 * and inode match; a file that changes size or time is hashed again and refused if it no longer
 * matches its digest.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { intactGeneration, stampGeneration, stampPath } from "./side-builds.ts";

const root = mkdtempSync(join(tmpdir(), "cairn-side-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("intactGeneration", () => {
  test("hashes a generation once, then trusts its stamp until the file changes", () => {
    const path = join(root, "t.db.kw-g1.bin");
    const good = Buffer.from("postings ".repeat(1000));
    writeFileSync(path, good);
    const digest = Bun.hash(good).toString(16);
    let hashed = 0;
    const hash = () => {
      hashed++;
      return Bun.hash(readFileSync(path)).toString(16);
    };
    expect(intactGeneration(path, good.length, digest, hash)).toBe(true);
    expect(hashed).toBe(1);
    const st = statSync(path);
    expect(readFileSync(stampPath(path), "utf8")).toBe(`${digest}:${st.size}:${st.mtimeMs}:${st.ino}`);
    expect(intactGeneration(path, good.length, digest, hash)).toBe(true);
    expect(hashed).toBe(1);
    // Wrong size: refused without hashing.
    expect(intactGeneration(path, good.length + 1, digest, hash)).toBe(false);
    expect(hashed).toBe(1);
    // Same size, other bytes, a later time: hashed again and refused, and the stamp is kept as it was.
    const bad = Buffer.from(good);
    bad[10] = 0x41;
    writeFileSync(path, bad);
    const later = new Date(st.mtimeMs + 5_000);
    utimesSync(path, later, later);
    expect(intactGeneration(path, good.length, digest, hash)).toBe(false);
    expect(hashed).toBe(2);
    expect(intactGeneration(path, good.length, digest, hash)).toBe(false);
    expect(hashed).toBe(3);
    // Restored: hashed once more, accepted, stamped with the new time.
    writeFileSync(path, good);
    utimesSync(path, later, new Date(st.mtimeMs + 10_000));
    expect(intactGeneration(path, good.length, digest, hash)).toBe(true);
    expect(hashed).toBe(4);
    expect(readFileSync(stampPath(path), "utf8")).toContain(`:${statSync(path).mtimeMs}:`);
  });

  test("a writer's stamp spares every opener the hash", () => {
    const path = join(root, "t.db.kw-g4.bin");
    const bytes = Buffer.from("terms ".repeat(700));
    writeFileSync(path, bytes);
    const digest = Bun.hash(bytes).toString(16);
    stampGeneration(path, digest);
    let hashed = 0;
    const hash = () => {
      hashed++;
      return digest;
    };
    expect(intactGeneration(path, bytes.length, digest, hash)).toBe(true);
    expect(hashed).toBe(0);
  });

  test("a stamp another thread or process left is trusted without hashing", () => {
    const path = join(root, "t.db.ann-g2.usearch");
    const bytes = Buffer.from("graph ".repeat(500));
    writeFileSync(path, bytes);
    const digest = "feedface";
    const st = statSync(path);
    // As another process would leave it after checking this very file.
    writeFileSync(stampPath(path), `${digest}:${st.size}:${st.mtimeMs}:${st.ino}`);
    let hashed = 0;
    expect(
      intactGeneration(path, bytes.length, digest, () => {
        hashed++;
        return "";
      }),
    ).toBe(true);
    expect(hashed).toBe(0);
    // A stamp for another digest does not vouch: the hash runs (and here refuses).
    const other = join(root, "t.db.ann-g3.usearch");
    writeFileSync(other, bytes);
    const so = statSync(other);
    writeFileSync(stampPath(other), `cafebabe:${so.size}:${so.mtimeMs}:${so.ino}`);
    expect(
      intactGeneration(other, bytes.length, digest, () => {
        hashed++;
        return "cafebabe";
      }),
    ).toBe(false);
    expect(hashed).toBe(1);
  });
});
