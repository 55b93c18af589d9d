/**
 * The history cursor: an opaque token naming the ingest position of the last article a
 * page returned. Versioned base64url JSON, so the format can change without clients
 * parsing it; anything that does not decode is a validation error, not an empty page.
 */

export function encodeCursor(seq: number): string {
  return Buffer.from(JSON.stringify({ v: 1, s: seq })).toString("base64url");
}

export function decodeCursor(token: string): number | null {
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(token)) return null;
  try {
    const o = JSON.parse(Buffer.from(token, "base64url").toString("utf8")) as { v?: unknown; s?: unknown };
    return o.v === 1 && typeof o.s === "number" && Number.isSafeInteger(o.s) && o.s > 0 ? o.s : null;
  } catch {
    return null;
  }
}
