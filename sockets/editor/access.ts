/**
 * What a collaboration connection keeps re-checking after it opened (issue 13): its
 * credential's expiry and the access changes that concern it.
 */
import { decodeJwt } from "jose";
import type { AccessChange, CollabGrant } from "../../domain/editor/ports.ts";

/** Close code and reason of a connection whose token expired (docs/decisions.md). */
export const TOKEN_EXPIRED = { code: 4401, reason: "unauthenticated: token expired" } as const;

/**
 * When the token stops being valid (epoch ms), or null when it carries no `exp`. The
 * authoriser verified the token already (signature included), so reading the claim
 * without verifying again is sound; a token that is no JWT at all has no expiry here.
 */
export function tokenExpiry(token: string): number | null {
  try {
    const exp = decodeJwt(token.replace(/^Bearer\s+/i, "").trim()).exp;
    return typeof exp === "number" && Number.isFinite(exp) ? exp * 1000 : null;
  } catch {
    return null;
  }
}

/** Whether an access change concerns a connection with this grant on this document. */
export function concerns(change: AccessChange, docId: string, grant: CollabGrant): boolean {
  return (
    change.tenantId === grant.tenantId &&
    (change.docId === null || change.docId === docId) &&
    (change.userId === null || change.userId === grant.userId)
  );
}

const encoder = new TextEncoder();

/** A WebSocket close reason fits 123 bytes of UTF-8: longer ones are cut on a character boundary. */
export function closeReason(text: string): string {
  if (encoder.encode(text).byteLength <= 123) return text;
  let out = "";
  for (const ch of text) {
    if (encoder.encode(`${out}${ch}…`).byteLength > 123) break;
    out += ch;
  }
  return `${out}…`;
}

/** setTimeout's delay is a signed 32-bit count of ms: longer waits are re-armed in steps. */
export const MAX_TIMER_MS = 2 ** 31 - 1;
