/**
 * Secrets encrypted at rest (catalog storage keys): AES-256-GCM under a key ring.
 * The first key encrypts; every key decrypts, found by the id carried in the ciphertext,
 * so keys can be rotated without a flag day: add a new key in front, run rotate() over
 * the stored values, then retire the old key.
 *
 * Ciphertext: `v1.<keyId>.<iv>.<tag>.<data>` (base64url). An optional context string is
 * bound as additional authenticated data, so a ciphertext copied onto another row (another
 * tenant's catalog) fails to decrypt instead of leaking that row's secret.
 */
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { AppError } from "./errors.ts";

export interface SecretKey {
  id: string;
  /** 32 bytes. */
  key: Uint8Array;
}

const VERSION = "v1";
const KEY_ID_RE = /^[A-Za-z0-9_-]{1,32}$/;
const IV_BYTES = 12;
const TAG_BYTES = 16;

function fail(message: string): AppError {
  return new AppError("internal", message);
}

export class SecretBox {
  private readonly keys: Map<string, Uint8Array>;
  /** The id of the key that encrypts. */
  readonly activeKeyId: string;

  constructor(ring: readonly SecretKey[]) {
    const first = ring[0];
    if (!first) throw fail("Secret key ring is empty");
    this.keys = new Map();
    for (const k of ring) {
      if (!KEY_ID_RE.test(k.id)) throw fail(`Secret key id '${k.id}' must match ${KEY_ID_RE}`);
      if (k.key.length !== 32) throw fail(`Secret key '${k.id}' must be 32 bytes, got ${k.key.length}`);
      if (this.keys.has(k.id)) throw fail(`Secret key id '${k.id}' appears twice in the key ring`);
      this.keys.set(k.id, k.key);
    }
    this.activeKeyId = first.id;
  }

  encrypt(plaintext: string, context = ""): string {
    const key = this.keys.get(this.activeKeyId) as Uint8Array;
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv("aes-256-gcm", key, iv);
    cipher.setAAD(Buffer.from(context, "utf8"));
    const data = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
    const tag = cipher.getAuthTag();
    return [VERSION, this.activeKeyId, iv, tag, data]
      .map((p) => (typeof p === "string" ? p : p.toString("base64url")))
      .join(".");
  }

  decrypt(ciphertext: string, context = ""): string {
    const { keyId, iv, tag, data } = parse(ciphertext);
    const key = this.keys.get(keyId);
    if (!key) {
      throw fail(`Secret was encrypted under key '${keyId}', which is not in the key ring (CAIRN_SECRET_KEYS)`);
    }
    const decipher = createDecipheriv("aes-256-gcm", key, iv);
    decipher.setAAD(Buffer.from(context, "utf8"));
    decipher.setAuthTag(tag);
    try {
      return Buffer.concat([decipher.update(data), decipher.final()]).toString("utf8");
    } catch {
      // GCM says only "unable to authenticate"; the cause is a wrong key, context or tampering.
      throw fail(`Secret failed authentication under key '${keyId}' (tampered, or bound to another record)`);
    }
  }

  /** The id of the key a ciphertext was made with (without decrypting it). */
  keyIdOf(ciphertext: string): string {
    return parse(ciphertext).keyId;
  }

  /** True when the ciphertext is under a key other than the active one. */
  needsRotation(ciphertext: string): boolean {
    return this.keyIdOf(ciphertext) !== this.activeKeyId;
  }

  /** Re-encrypts under the active key (a fresh IV even when the key is unchanged). */
  rotate(ciphertext: string, context = ""): string {
    return this.encrypt(this.decrypt(ciphertext, context), context);
  }
}

function parse(ciphertext: string): { keyId: string; iv: Buffer; tag: Buffer; data: Buffer } {
  const parts = ciphertext.split(".");
  if (parts.length !== 5 || parts[0] !== VERSION) throw fail("Secret is not in the v1.<key>.<iv>.<tag>.<data> format");
  const [, keyId = "", iv = "", tag = "", data = ""] = parts;
  if (!KEY_ID_RE.test(keyId)) throw fail("Secret carries an invalid key id");
  const bytes = [iv, tag, data].map((p) => Buffer.from(p, "base64url"));
  const [ivB, tagB, dataB] = bytes as [Buffer, Buffer, Buffer];
  if (ivB.length !== IV_BYTES || tagB.length !== TAG_BYTES) throw fail("Secret has a malformed IV or tag");
  return { keyId, iv: ivB, tag: tagB, data: dataB };
}
