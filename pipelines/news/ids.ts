/**
 * Article ids are name-based UUIDs (RFC 9562 version 5) of the canonical URL: the same
 * article gets the same id on every instance and on every re-ingest (the demo seed run
 * twice, two pollers racing), so ids in stored links and client caches stay valid.
 */
import { createHash } from "node:crypto";

/** Namespace for Cairn article ids (a random v4 UUID fixed once). */
const NAMESPACE = "0b7c9a52-3e55-4b8e-9d1f-6a2f4c8e1d37";

function uuidBytes(uuid: string): Buffer {
  return Buffer.from(uuid.replace(/-/g, ""), "hex");
}

export function uuidV5(name: string, namespace: string = NAMESPACE): string {
  const hash = createHash("sha1").update(uuidBytes(namespace)).update(name, "utf8").digest();
  const b = hash.subarray(0, 16);
  b[6] = ((b[6] ?? 0) & 0x0f) | 0x50;
  b[8] = ((b[8] ?? 0) & 0x3f) | 0x80;
  const hex = b.toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

export function articleId(canonicalUrl: string): string {
  return uuidV5(canonicalUrl);
}
