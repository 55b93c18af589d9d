/**
 * Bearer JWT verification (jose). HS256 tokens are checked against the installation
 * secret; RS256/ES256 tokens against the keys published at the configured JWKS URL.
 * The algorithm is pinned per key source, so a token cannot pick its own verifier:
 * `none` and HMAC-signed-with-the-public-key (algorithm confusion) both fail.
 */
import { createRemoteJWKSet, decodeProtectedHeader, errors, type JWTPayload, jwtVerify, SignJWT } from "jose";
import { AppError } from "../../domain/errors.ts";

export const HMAC_ALGS = ["HS256"] as const;
export const ASYMMETRIC_ALGS = ["RS256", "ES256"] as const;

export interface JwtSettings {
  secret: string | undefined;
  jwksUrl: string | undefined;
  issuer: string;
  audience: string;
  /** Allowed clock skew for exp/nbf, seconds. */
  clockToleranceSec?: number;
}

export interface CairnClaims extends JWTPayload {
  sub: string;
  email?: string;
  tid?: string;
}

/** Verified tokens remembered (bounded); a hit still re-checks exp and nbf against the clock. */
const CACHE_MAX = 10_000;

export class JwtVerifier {
  private readonly hmacKey: Uint8Array | undefined;
  private readonly jwks: ReturnType<typeof createRemoteJWKSet> | undefined;
  /**
   * Signature checks dominate the cost of an authenticated request. A token is immutable,
   * so once its signature, issuer and audience verified, only the time claims can change
   * the answer. Insertion-ordered Map: the oldest entry goes first when full.
   */
  private readonly verified = new Map<string, CairnClaims>();

  constructor(private readonly s: JwtSettings) {
    this.hmacKey = s.secret ? new TextEncoder().encode(s.secret) : undefined;
    this.jwks = s.jwksUrl ? createRemoteJWKSet(new URL(s.jwksUrl), { cooldownDuration: 30_000 }) : undefined;
  }

  /**
   * The claims of a token verified before whose exp and nbf still hold against the clock,
   * synchronously; undefined otherwise (then verify() decides, with the reason, and evicts).
   * The same clock check as verify()'s cache hit (standing()), minus a promise turn on every
   * request. It evicts nothing: a stale entry stays for verify() to answer from.
   */
  remembered(token: string): CairnClaims | undefined {
    const hit = this.verified.get(token);
    return hit && this.standing(hit) === "live" ? hit : undefined;
  }

  async verify(token: string): Promise<CairnClaims> {
    const hit = this.verified.get(token);
    if (hit) {
      const standing = this.standing(hit);
      if (standing === "live") return hit;
      this.verified.delete(token);
      // Expired is final, so it is answered from the cache; a not-yet-valid entry (the clock
      // went back) is verified afresh, and jose names the reason.
      if (standing === "expired") throw new AppError("unauthenticated", "Token has expired");
    }
    const claims = await this.verifyUncached(token);
    if (this.verified.size >= CACHE_MAX) {
      const oldest = this.verified.keys().next().value;
      if (oldest !== undefined) this.verified.delete(oldest);
    }
    this.verified.set(token, claims);
    return claims;
  }

  /**
   * Whether remembered claims still hold now: the one exp/nbf check both remembered() and
   * verify() make, kept in one place so the sync and async paths can never disagree.
   */
  private standing(claims: CairnClaims): "live" | "expired" | "early" {
    const now = Date.now() / 1000;
    const tolerance = this.s.clockToleranceSec ?? 5;
    if (typeof claims.exp === "number" && claims.exp + tolerance <= now) return "expired";
    if (typeof claims.nbf === "number" && claims.nbf - tolerance > now) return "early";
    return "live";
  }

  private async verifyUncached(token: string): Promise<CairnClaims> {
    let alg: string | undefined;
    try {
      alg = decodeProtectedHeader(token).alg;
    } catch {
      throw new AppError("unauthenticated", "Malformed bearer token");
    }
    const common = {
      issuer: this.s.issuer,
      audience: this.s.audience,
      clockTolerance: this.s.clockToleranceSec ?? 5,
      requiredClaims: ["sub", "exp"],
    };
    try {
      if (alg && (HMAC_ALGS as readonly string[]).includes(alg) && this.hmacKey) {
        const { payload } = await jwtVerify(token, this.hmacKey, { ...common, algorithms: [...HMAC_ALGS] });
        return payload as CairnClaims;
      }
      if (alg && (ASYMMETRIC_ALGS as readonly string[]).includes(alg) && this.jwks) {
        const { payload } = await jwtVerify(token, this.jwks, { ...common, algorithms: [...ASYMMETRIC_ALGS] });
        return payload as CairnClaims;
      }
    } catch (err) {
      throw new AppError("unauthenticated", describeJoseError(err));
    }
    throw new AppError("unauthenticated", `Token algorithm ${alg ?? "(none)"} is not accepted`);
  }
}

function describeJoseError(err: unknown): string {
  if (err instanceof errors.JWTExpired) return "Token has expired";
  if (err instanceof errors.JWTClaimValidationFailed) {
    if (err.claim === "nbf") return "Token is not yet valid";
    return `Token claim '${err.claim}' is invalid`;
  }
  if (err instanceof errors.JWSSignatureVerificationFailed) return "Token signature is invalid";
  if (err instanceof errors.JWKSNoMatchingKey) return "No key in the JWKS matches the token";
  if (err instanceof errors.JOSEAlgNotAllowed) return "Token algorithm is not accepted";
  if (err instanceof errors.JWKSTimeout || err instanceof errors.JOSEError) return "Token could not be verified";
  return "Token could not be verified";
}

/** Mints an HS256 access token for a Cairn user (CLI and dashboard sign-in). */
export async function signUserToken(
  s: { secret: string; issuer: string; audience: string; ttlSeconds: number },
  claims: { userId: number; email: string; tenantId: string },
): Promise<string> {
  return new SignJWT({ email: claims.email, tid: claims.tenantId })
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setSubject(String(claims.userId))
    .setIssuer(s.issuer)
    .setAudience(s.audience)
    .setIssuedAt()
    .setExpirationTime(`${s.ttlSeconds}s`)
    .sign(new TextEncoder().encode(s.secret));
}
