import { afterEach, beforeEach, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LocalObjectStore } from "./local.ts";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "cairn-objects-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

test("a staged file on another filesystem is copied beside the target, then renamed", async () => {
  // /dev/shm is a tmpfs: rename(2) from it into the temp dir fails with EXDEV.
  if (!existsSync("/dev/shm") || statSync("/dev/shm").dev === statSync(dir).dev) {
    process.stderr.write("[skip] no second filesystem for the EXDEV path\n");
    return;
  }
  const shm = mkdtempSync("/dev/shm/cairn-objects-");
  try {
    const staged = join(shm, "x.tmp");
    writeFileSync(staged, "across");
    const store = new LocalObjectStore({ root: join(dir, "root") });
    expect(await store.put("ns/k.parquet", staged)).toEqual({ bytes: 6 });
    expect(readFileSync(await store.localPath("ns/k.parquet"), "utf8")).toBe("across");
    expect(existsSync(staged)).toBe(false);
    expect(await store.list("ns/")).toEqual(["ns/k.parquet"]);
  } finally {
    rmSync(shm, { recursive: true, force: true });
  }
});
