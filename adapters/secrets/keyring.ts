/**
 * Where the secret key ring comes from. CAIRN_SECRET_KEYS (config.secretKeys) wins; without
 * it a single 32-byte key is generated on first use into `<dataDir>/secret-keys.json`
 * (mode 0600) and read back on every later start.
 *
 * The generated file suits one machine (the embedded profile). Deployments with several
 * instances, or whose data directory is not private and durable, must set
 * CAIRN_SECRET_KEYS: every instance needs the same ring, and losing the file makes every
 * stored storage secret unreadable. The key is deliberately not kept in the control-plane
 * database, which would put it next to the ciphertext it protects.
 */
import { randomBytes } from "node:crypto";
import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { SecretKey } from "../../domain/secret-box.ts";

export const KEY_FILE = "secret-keys.json";

interface KeyFile {
  keys: { id: string; key: string }[];
}

export interface LoadedKeyRing {
  ring: SecretKey[];
  /** "env" when from CAIRN_SECRET_KEYS; otherwise the file it was read from or generated into. */
  source: "env" | { file: string; generated: boolean };
}

function parseFile(file: string): SecretKey[] {
  let parsed: KeyFile;
  try {
    parsed = JSON.parse(readFileSync(file, "utf8")) as KeyFile;
  } catch (err) {
    throw new Error(`${file} is not a readable key file: ${(err as Error).message}`);
  }
  const keys = Array.isArray(parsed?.keys) ? parsed.keys : [];
  const ring = keys.map((k) => ({ id: String(k.id), key: Buffer.from(String(k.key), "base64") }));
  if (ring.length === 0 || ring.some((k) => k.key.length !== 32)) {
    throw new Error(`${file} must hold {"keys":[{"id","key": base64 of 32 bytes}]}`);
  }
  return ring;
}

export function loadKeyRing(config: {
  dataDir: string;
  secretKeys: { id: string; key: Buffer }[] | null;
}): LoadedKeyRing {
  if (config.secretKeys && config.secretKeys.length > 0) return { ring: config.secretKeys, source: "env" };
  const file = join(config.dataDir, KEY_FILE);
  mkdirSync(config.dataDir, { recursive: true });
  const fresh: KeyFile = {
    keys: [{ id: `local-${randomBytes(4).toString("hex")}`, key: randomBytes(32).toString("base64") }],
  };
  try {
    // "wx": exclusive create, so two processes starting together cannot both write a key.
    writeFileSync(file, `${JSON.stringify(fresh)}\n`, { mode: 0o600, flag: "wx" });
    return { ring: parseFile(file), source: { file, generated: true } };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
  }
  // A key file readable by others is tightened rather than refused: it is ours to own.
  if ((statSync(file).mode & 0o077) !== 0) chmodSync(file, 0o600);
  return { ring: parseFile(file), source: { file, generated: false } };
}
