/**
 * A side index's generation file is hashed once (generation-check.ts): its writer stamps it, or
 * else the first check hashes it and leaves the stamp; later checks trust the stamp while size,
 * modification time and inode match; a file that changes size or time is hashed again and
 * refused if it no longer matches its digest. A stamp hashed before the checking thread started
 * is trusted at once and scrubbed in the background: bit rot that keeps size, time and inode is
 * found there, and the generation's stamp and sidecar go.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type Generation,
  generationRefused,
  intactGeneration,
  scrubsSettled,
  stampGeneration,
  stampPath,
} from "./generation-check.ts";
import { rewriteLater, rot, settle, stampFor, stampIdentity } from "./leg-test-support.ts";

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

/** A committed generation of `bytes` (keyword-file layout: wyhash of the whole file), with its sidecar. */
function generation(name: string, bytes: Uint8Array): Generation {
  const path = join(root, `${name}.kw-g1.bin`);
  writeFileSync(path, bytes);
  const digest = Bun.hash(bytes).toString(16);
  const sidecar = join(root, `${name}.kw.json`);
  writeFileSync(sidecar, JSON.stringify({ gen: "g1", digest }));
  return { path, gen: "g1", sidecar, bytes: bytes.length, digest, method: "whole" };
}

describe("intactGeneration", () => {
  test("hashes a generation once, then trusts its stamp until the file changes", () => {
    const good = Buffer.from("postings ".repeat(1000));
    const g = generation("t1", good);
    const h = counting(() => Bun.hash(readFileSync(g.path)).toString(16));
    expect(intactGeneration(g, h.hash)).toBe(true);
    expect(h.calls).toBe(1);
    expect(readFileSync(stampPath(g.path), "utf8").startsWith(`${stampIdentity(g.path, g.digest)}:`)).toBe(true);
    expect(intactGeneration(g, h.hash)).toBe(true);
    expect(h.calls).toBe(1);
    // Wrong size: refused without hashing.
    expect(intactGeneration({ ...g, bytes: good.length + 1 }, h.hash)).toBe(false);
    expect(h.calls).toBe(1);
    // Same size, other bytes, a later time: hashed again and refused, then refused unhashed while unchanged.
    const bad = Buffer.from(good);
    bad[10] = 0x41;
    rewriteLater(g.path, bad);
    expect(intactGeneration(g, h.hash)).toBe(false);
    expect(h.calls).toBe(2);
    expect(intactGeneration(g, h.hash)).toBe(false);
    expect(h.calls).toBe(2);
    // Restored: hashed once more, accepted, stamped with the new time.
    rewriteLater(g.path, good);
    expect(intactGeneration(g, h.hash)).toBe(true);
    expect(h.calls).toBe(3);
    expect(readFileSync(stampPath(g.path), "utf8")).toContain(`:${statSync(g.path).mtimeMs}:`);
  });

  test("a writer's stamp spares every opener the hash, and the scrub", async () => {
    const g = generation("t2", Buffer.from("terms ".repeat(700)));
    settle(g.path);
    stampGeneration(g.path, g.digest);
    // Changed behind the stamp: only a scrub would notice, and none runs for a stamp this run wrote.
    rot(g.path, 77);
    const h = counting(() => g.digest);
    expect(intactGeneration(g, h.hash)).toBe(true);
    expect(h.calls).toBe(0);
    await scrubsSettled();
    expect(existsSync(stampPath(g.path))).toBe(true);
    expect(existsSync(g.sidecar)).toBe(true);
  });

  test("a stamp for another digest does not vouch: the hash runs (and here refuses)", () => {
    const g = generation("t3", Buffer.from("graph ".repeat(500)));
    writeFileSync(stampPath(g.path), stampFor(g.path, "cafebabe"));
    const o = counting(() => "cafebabe");
    expect(intactGeneration(g, o.hash)).toBe(false);
    expect(o.calls).toBe(1);
  });
});

describe("scrubbing a stamp from an earlier run", () => {
  test("an intact file is trusted at once, hashed in the background, and its stamp re-dated", async () => {
    const g = generation("s1", Buffer.from("postings ".repeat(3000)));
    settle(g.path);
    writeFileSync(stampPath(g.path), stampIdentity(g.path, g.digest)); // as written before scrubs existed
    const h = counting(() => "never used");
    const before = Date.now();
    expect(intactGeneration(g, h.hash)).toBe(true);
    expect(h.calls).toBe(0);
    await scrubsSettled();
    const stamp = readFileSync(stampPath(g.path), "utf8");
    expect(stamp.startsWith(`${stampIdentity(g.path, g.digest)}:`)).toBe(true);
    expect(Number(stamp.split(":").at(-1))).toBeGreaterThanOrEqual(before);
    expect(existsSync(g.sidecar)).toBe(true);
    expect(generationRefused(g.path)).toBe(false);
  });

  test("bit rot that keeps size, time and inode is found: stamp and sidecar go, the file is refused", async () => {
    const g = generation("s2", Buffer.from("neighbours ".repeat(4000)));
    settle(g.path);
    writeFileSync(stampPath(g.path), stampFor(g.path, g.digest, 1_000));
    rot(g.path, 1234);
    const h = counting(() => "never used");
    // The stamp still vouches, so the open goes on; the scrub finds the damage behind it.
    expect(intactGeneration(g, h.hash)).toBe(true);
    await scrubsSettled();
    expect(existsSync(stampPath(g.path))).toBe(false);
    expect(existsSync(g.sidecar)).toBe(false);
    expect(generationRefused(g.path)).toBe(true);
    expect(intactGeneration(g, h.hash)).toBe(false);
    expect(h.calls).toBe(0);
  });

  test("a sidecar that names a newer generation is kept; a file changed meanwhile is left to the next open", async () => {
    const g = generation("s3", Buffer.from("vectors ".repeat(2000)));
    settle(g.path);
    writeFileSync(stampPath(g.path), stampFor(g.path, g.digest, 1_000));
    rot(g.path, 99);
    expect(intactGeneration(g, () => "never used")).toBe(true);
    writeFileSync(g.sidecar, JSON.stringify({ gen: "g2", digest: "other" }));
    await scrubsSettled();
    expect(existsSync(g.sidecar)).toBe(true);
    expect(existsSync(stampPath(g.path))).toBe(false);

    const m = generation("s4", Buffer.from("vectors ".repeat(2000)));
    settle(m.path);
    writeFileSync(stampPath(m.path), stampFor(m.path, m.digest, 1_000));
    expect(intactGeneration(m, () => "never used")).toBe(true);
    rewriteLater(m.path, Buffer.from("VECTORS ".repeat(2000))); // before the scrub reads it
    await scrubsSettled();
    expect(existsSync(m.sidecar)).toBe(true);
    expect(generationRefused(m.path)).toBe(false);
    // The next open sees the new time, hashes, and refuses.
    expect(intactGeneration(m, () => Bun.hash(readFileSync(m.path)).toString(16))).toBe(false);
  });
});
