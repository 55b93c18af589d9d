/**
 * API keys: `cairn_<8 hex prefix>_<43 base64url secret>`. Only a SHA-256 hash is stored;
 * the keys carry 256 bits of randomness, so a fast hash is enough (no password stretching).
 */
import { createHash, timingSafeEqual } from "node:crypto";

const KEY_RE = /^cairn_([0-9a-f]{8})_([A-Za-z0-9_-]{43})$/;

export interface NewApiKey {
  key: string;
  prefix: string;
  hash: string;
}

export function hashApiKey(key: string): string {
  return createHash("sha256").update(key).digest("hex");
}

export function generateApiKey(): NewApiKey {
  const prefix = Buffer.from(crypto.getRandomValues(new Uint8Array(4))).toString("hex");
  const secret = Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64url");
  const key = `cairn_${prefix}_${secret}`;
  return { key, prefix, hash: hashApiKey(key) };
}

export function looksLikeApiKey(key: string): boolean {
  return KEY_RE.test(key);
}

/** Constant-time comparison for shared secrets (hashing first hides the length too). */
export function safeEqual(a: string, b: string): boolean {
  const ha = createHash("sha256").update(a).digest();
  const hb = createHash("sha256").update(b).digest();
  return timingSafeEqual(ha, hb);
}
