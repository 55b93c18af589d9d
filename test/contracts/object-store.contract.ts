/** ObjectStore contract: atomic publish from a staged file, stat, local reads, list, delete. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ObjectStore } from "../../domain/object-store.ts";

export function runObjectStoreContract(
  name: string,
  make: (scratch: string) => Promise<{ store: ObjectStore; close(): Promise<void> }>,
): void {
  describe(`object store contract: ${name}`, () => {
    let scratch: string;
    let h: { store: ObjectStore; close(): Promise<void> };
    // Keys under a fresh namespace: suites sharing a bucket never see each other's objects.
    const ns = `ns_${crypto.randomUUID().replaceAll("-", "").slice(0, 12)}`;
    const staged = (text: string) => {
      const f = join(scratch, `${crypto.randomUUID()}.tmp`);
      writeFileSync(f, text);
      return f;
    };
    beforeAll(async () => {
      scratch = mkdtempSync(join(tmpdir(), "cairn-objstore-"));
      h = await make(scratch);
    });
    afterAll(async () => {
      await h.close();
      rmSync(scratch, { recursive: true, force: true });
    });

    test("put publishes the staged file (consuming it) and replaces an older object", async () => {
      const key = `${ns}/rtdb/t/2024-01-01/part-0.parquet`;
      const first = staged("first");
      expect(await h.store.put(key, first)).toEqual({ bytes: 5 });
      expect(existsSync(first)).toBe(false);
      expect(readFileSync(await h.store.localPath(key), "utf8")).toBe("first");
      await h.store.put(key, staged("second!"));
      expect(await h.store.stat(key)).toEqual({ bytes: 7 });
      // A reader's local copy follows the replacement.
      expect(readFileSync(await h.store.localPath(key), "utf8")).toBe("second!");
    });

    test("stat is null for a missing object; list is per prefix, sorted; delete removes", async () => {
      expect(await h.store.stat(`${ns}/missing.parquet`)).toBeNull();
      await h.store.put(`${ns}/b/x.parquet`, staged("x"));
      await h.store.put(`${ns}/a/y.parquet`, staged("yy"));
      await h.store.put(`${ns}_other/a/z.parquet`, staged("z"));
      expect(await h.store.list(`${ns}/a/`)).toEqual([`${ns}/a/y.parquet`]);
      expect((await h.store.list(`${ns}/`)).filter((k) => !k.includes("/rtdb/"))).toEqual([
        `${ns}/a/y.parquet`,
        `${ns}/b/x.parquet`,
      ]);
      expect(await h.store.list(`${ns}_none/`)).toEqual([]);
      await h.store.delete(`${ns}/b/x.parquet`);
      expect(await h.store.stat(`${ns}/b/x.parquet`)).toBeNull();
      expect(await h.store.list(`${ns}/b/`)).toEqual([]);
    });

    test("keys that could leave the root are refused", async () => {
      for (const bad of ["../x", `${ns}/../../x`, "/abs", ""]) {
        await expect(h.store.put(bad, staged("n"))).rejects.toThrow("invalid object key");
      }
    });
  });
}
