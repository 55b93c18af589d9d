import { describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { AppError } from "./errors.ts";
import { SecretBox } from "./secret-box.ts";

const k1 = { id: "k1", key: randomBytes(32) };
const k2 = { id: "k2", key: randomBytes(32) };

function flip(ct: string, part: number): string {
  const parts = ct.split(".");
  const bytes = Buffer.from(parts[part] ?? "", "base64url");
  bytes[0] = (bytes[0] ?? 0) ^ 1;
  parts[part] = bytes.toString("base64url");
  return parts.join(".");
}

describe("SecretBox", () => {
  test("round trip, fresh IV per encryption, v1 format naming the key", () => {
    const box = new SecretBox([k1]);
    const a = box.encrypt("s3cr3t/ünïcode", "catalog:1");
    const b = box.encrypt("s3cr3t/ünïcode", "catalog:1");
    expect(a).not.toBe(b);
    expect(a).toMatch(/^v1\.k1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(a).not.toContain("s3cr3t");
    expect(box.decrypt(a, "catalog:1")).toBe("s3cr3t/ünïcode");
    expect(box.decrypt(box.encrypt(""))).toBe("");
    expect(box.keyIdOf(a)).toBe("k1");
  });

  test("tampering with data, tag or IV is refused", () => {
    const box = new SecretBox([k1]);
    const ct = box.encrypt("payload");
    for (const part of [2, 3, 4]) {
      expect(() => box.decrypt(flip(ct, part))).toThrow(/failed authentication|malformed/);
    }
    expect(() => box.decrypt("v1.k1.bad")).toThrow(/format/);
    expect(() => box.decrypt(ct.replace(/^v1/, "v2"))).toThrow(/format/);
  });

  test("a ciphertext bound to one context does not open under another", () => {
    const box = new SecretBox([k1]);
    const ct = box.encrypt("payload", "catalog:a");
    expect(() => box.decrypt(ct, "catalog:b")).toThrow(/failed authentication/);
  });

  test("unknown key id is a clear AppError", () => {
    const ct = new SecretBox([k2]).encrypt("payload");
    try {
      new SecretBox([k1]).decrypt(ct);
      throw new Error("expected a failure");
    } catch (err) {
      expect(err).toBeInstanceOf(AppError);
      expect((err as AppError).message).toContain("'k2'");
      expect((err as AppError).message).toContain("not in the key ring");
    }
  });

  test("rotation: the first key encrypts, older keys still decrypt, rotate moves to the active key", () => {
    const old = new SecretBox([k1]);
    const ct = old.encrypt("payload", "ctx");
    const ring = new SecretBox([k2, k1]);
    expect(ring.activeKeyId).toBe("k2");
    expect(ring.needsRotation(ct)).toBe(true);
    expect(ring.decrypt(ct, "ctx")).toBe("payload");
    const rotated = ring.rotate(ct, "ctx");
    expect(ring.keyIdOf(rotated)).toBe("k2");
    expect(ring.needsRotation(rotated)).toBe(false);
    // Once k1 is retired, only the rotated value opens.
    const retired = new SecretBox([k2]);
    expect(retired.decrypt(rotated, "ctx")).toBe("payload");
    expect(() => retired.decrypt(ct, "ctx")).toThrow(/not in the key ring/);
  });

  test("bad key rings are refused", () => {
    expect(() => new SecretBox([])).toThrow(/empty/);
    expect(() => new SecretBox([{ id: "k", key: randomBytes(16) }])).toThrow(/32 bytes/);
    expect(() => new SecretBox([{ id: "a.b", key: randomBytes(32) }])).toThrow(/must match/);
    expect(() => new SecretBox([k1, { ...k1 }])).toThrow(/twice/);
  });
});
