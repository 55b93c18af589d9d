import { afterAll, describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { chmodSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SecretBox } from "../../domain/secret-box.ts";
import { KEY_FILE, loadKeyRing } from "./keyring.ts";

const dirs: string[] = [];
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), "cairn-keys-"));
  dirs.push(d);
  return d;
};
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe("loadKeyRing", () => {
  test("CAIRN_SECRET_KEYS wins and writes nothing", () => {
    const dir = tempDir();
    const keys = [{ id: "a", key: randomBytes(32) }];
    const loaded = loadKeyRing({ dataDir: dir, secretKeys: keys });
    expect(loaded.source).toBe("env");
    expect(loaded.ring).toBe(keys);
    expect(() => statSync(join(dir, KEY_FILE))).toThrow();
  });

  test("generates one 32-byte key into a 0600 file, then reads the same key back", () => {
    const dir = join(tempDir(), "nested");
    const first = loadKeyRing({ dataDir: dir, secretKeys: null });
    expect(first.source).toEqual({ file: join(dir, KEY_FILE), generated: true });
    expect(first.ring).toHaveLength(1);
    expect(first.ring[0]?.key.length).toBe(32);
    expect(statSync(join(dir, KEY_FILE)).mode & 0o777).toBe(0o600);
    const again = loadKeyRing({ dataDir: dir, secretKeys: null });
    expect(again.source).toEqual({ file: join(dir, KEY_FILE), generated: false });
    const ct = new SecretBox(first.ring).encrypt("x");
    expect(new SecretBox(again.ring).decrypt(ct)).toBe("x");
  });

  test("a group-readable key file is tightened to 0600; a corrupt one fails naming the file", () => {
    const dir = tempDir();
    loadKeyRing({ dataDir: dir, secretKeys: null });
    const file = join(dir, KEY_FILE);
    chmodSync(file, 0o644);
    loadKeyRing({ dataDir: dir, secretKeys: null });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    writeFileSync(file, '{"keys":[{"id":"x","key":"c2hvcnQ="}]}');
    expect(() => loadKeyRing({ dataDir: dir, secretKeys: null })).toThrow(file);
  });
});
