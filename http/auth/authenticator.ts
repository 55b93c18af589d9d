/**
 * Turns credentials into an Identity. Wrong or missing credentials are 401
 * ("unauthenticated"); a valid identity without rights is 403 ("forbidden").
 */

import { createHash, timingSafeEqual } from "node:crypto";
import { AppError } from "../../domain/errors.ts";
import { type UserIdentity, userIdentity } from "../../domain/identity.ts";
import type { ApiKeyRecord, ControlPlaneStore, User } from "../../domain/ports.ts";
import { hashApiKey, safeEqual } from "../../domain/user/api-keys.ts";
import type { JwtVerifier } from "./jwt.ts";
import type { InstallationSecrets } from "./secrets.ts";

const TOUCH_INTERVAL_MS = 60_000;
/**
 * A verified key (and its user) is reused this long: the lookup was half the cost of an
 * API-key request. Revocation through this instance is immediate (forgetApiKey); changes
 * made elsewhere show within this window.
 */
const KEY_CACHE_MS = 2_000;
const KEY_CACHE_MAX = 10_000;

/** Exactly what `\s` matches in a JavaScript regex (ASCII and Unicode spaces). */
function isSpace(c: number): boolean {
  if (c < 128) return c === 32 || (c >= 9 && c <= 13);
  return (
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000 ||
    c === 0xfeff
  );
}

/**
 * The token of `Bearer <token>` (scheme case-insensitive, at least one space after it,
 * trailing spaces allowed, nothing else), or null. What /^Bearer\s+(\S+)\s*$/i accepted,
 * as a character loop: the regex was a visible share of the hot path's own time.
 */
export function bearerToken(h: string | undefined): string | null {
  if (h === undefined || h.length < 8 || h.slice(0, 6).toLowerCase() !== "bearer") return null;
  let i = 6;
  if (!isSpace(h.charCodeAt(i))) return null;
  while (i < h.length && isSpace(h.charCodeAt(i))) i++;
  const start = i;
  while (i < h.length && !isSpace(h.charCodeAt(i))) i++;
  const end = i;
  while (i < h.length && isSpace(h.charCodeAt(i))) i++;
  if (end === start || i !== h.length) return null;
  return start === 7 && end === h.length ? h.slice(7) : h.slice(start, end);
}

/** /^\d+$/ as a loop. */
function isDigits(s: string): boolean {
  if (s.length === 0) return false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
}

export class Authenticator {
  /** Last time each API key's last_used_at was written; bounded by the number of keys in use. */
  private readonly touched = new Map<string, number>();
  private readonly verifiedKeys = new Map<string, { at: number; found: { key: ApiKeyRecord; user: User } }>();
  private readonly adminKeyDigest: Buffer;

  constructor(
    private readonly store: ControlPlaneStore,
    private readonly jwt: JwtVerifier,
    private readonly secrets: InstallationSecrets,
  ) {
    this.adminKeyDigest = createHash("sha256").update(secrets.adminApiKey).digest();
  }

  async fromBearer(authorization: string | undefined): Promise<UserIdentity> {
    const token = bearerToken(authorization);
    if (!token) throw new AppError("unauthenticated", "Missing bearer token (Authorization: Bearer <JWT>)");
    // A remembered token answers without another promise turn (jwt.ts keeps the checks).
    const claims = this.jwt.remembered(token) ?? (await this.jwt.verify(token));
    let user: User | null = null;
    if (isDigits(claims.sub)) user = await this.store.getUser(Number(claims.sub));
    else if (typeof claims.email === "string") user = await this.store.getUserByEmail(claims.email);
    if (!user) throw new AppError("unauthenticated", "Token subject is not a known user");
    if (claims.tid !== undefined && claims.tid !== user.tenant_id) {
      throw new AppError("unauthenticated", "Token tenant does not match the user");
    }
    return userIdentity(user, "jwt");
  }

  async fromApiKey(key: string | undefined): Promise<UserIdentity> {
    if (!key) throw new AppError("unauthenticated", "Missing API key (X-API-Key header)");
    const digest = createHash("sha256").update(key).digest();
    // The digest serves both checks: constant-time against the admin key, lookup by hash.
    if (timingSafeEqual(digest, this.adminKeyDigest)) {
      throw new AppError("forbidden", "The admin-consumer key cannot call user endpoints");
    }
    const hash = digest.toString("hex");
    const now = Date.now();
    const hit = this.verifiedKeys.get(hash);
    if (hit && now - hit.at < KEY_CACHE_MS) {
      this.touch(hit.found.key.id);
      return userIdentity(hit.found.user, "api_key", hit.found.key.id);
    }
    const found = await this.store.findUserByApiKeyHash(hash);
    if (!found) {
      this.verifiedKeys.delete(hash);
      throw new AppError("unauthenticated", "Invalid API key");
    }
    if (this.verifiedKeys.size >= KEY_CACHE_MAX) this.verifiedKeys.clear();
    this.verifiedKeys.set(hash, { at: now, found });
    this.touch(found.key.id);
    return userIdentity(found.user, "api_key", found.key.id);
  }

  /** Drops a revoked key from this instance's cache at once (other instances: within KEY_CACHE_MS). */
  forgetApiKey(keyId: string): void {
    for (const [hash, v] of this.verifiedKeys) if (v.found.key.id === keyId) this.verifiedKeys.delete(hash);
  }

  /** Tenant administration: only the admin-consumer key; a user's key is valid but lacks the right. */
  async admin(key: string | undefined): Promise<void> {
    if (!key) throw new AppError("unauthenticated", "Missing admin API key (X-API-Key header)");
    if (safeEqual(key, this.secrets.adminApiKey)) return;
    const found = await this.store.findUserByApiKeyHash(hashApiKey(key));
    if (found) throw new AppError("forbidden", "Tenant administration is restricted to the admin consumer");
    throw new AppError("unauthenticated", "Invalid API key");
  }

  collab(secret: string | undefined): void {
    if (!secret || !safeEqual(secret, this.secrets.collabSecret)) {
      throw new AppError("unauthenticated", "Missing or invalid X-Collab-Secret");
    }
  }

  private touch(keyId: string): void {
    const now = Date.now();
    const last = this.touched.get(keyId) ?? 0;
    if (now - last < TOUCH_INTERVAL_MS) return;
    this.touched.set(keyId, now);
    if (this.touched.size > 10_000) this.touched.clear();
    // Best effort: last_used_at is informational; a failed write must not fail the request.
    this.store.touchApiKeys([keyId], new Date(now).toISOString()).catch(() => this.touched.delete(keyId));
  }
}
