/** One test per token attack (issue 2 item 5), against a real JWKS served over HTTP. */
import { afterAll, beforeAll, describe, expect, setSystemTime, test } from "bun:test";
import { exportJWK, exportSPKI, generateKeyPair, type JWK, SignJWT } from "jose";
import { AppError } from "../../domain/errors.ts";
import { JwtVerifier, signUserToken } from "./jwt.ts";

const SECRET = "s".repeat(40);
const ISS = "cairn-test";
const AUD = "cairn-api";
const enc = (o: object) => Buffer.from(JSON.stringify(o)).toString("base64url");
const nowSec = () => Math.floor(Date.now() / 1000);

let server: ReturnType<typeof Bun.serve>;
let rsa: Awaited<ReturnType<typeof generateKeyPair>>;
let ec: Awaited<ReturnType<typeof generateKeyPair>>;
let verifier: JwtVerifier;

async function expect401(token: string, message?: RegExp): Promise<void> {
  const err = await verifier.verify(token).then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AppError);
  expect((err as AppError).status).toBe(401);
  if (message) expect((err as AppError).message).toMatch(message);
}

beforeAll(async () => {
  rsa = await generateKeyPair("RS256", { extractable: true });
  ec = await generateKeyPair("ES256", { extractable: true });
  const keys: JWK[] = [
    { ...(await exportJWK(rsa.publicKey)), kid: "rsa-1", alg: "RS256", use: "sig" },
    { ...(await exportJWK(ec.publicKey)), kid: "ec-1", alg: "ES256", use: "sig" },
  ];
  server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => Response.json({ keys }) });
  verifier = new JwtVerifier({
    secret: SECRET,
    jwksUrl: `http://127.0.0.1:${server.port}/jwks.json`,
    issuer: ISS,
    audience: AUD,
    clockToleranceSec: 0,
  });
});
afterAll(() => server.stop(true));

const hs = (claims: Record<string, unknown> = {}) =>
  new SignJWT({ ...claims })
    .setProtectedHeader({ alg: "HS256" })
    .setSubject("1")
    .setIssuer(ISS)
    .setAudience(AUD)
    .setExpirationTime("5m")
    .sign(new TextEncoder().encode(SECRET));

describe("JwtVerifier", () => {
  test("accepts a valid HS256 token minted by the CLI signer", async () => {
    const token = await signUserToken(
      { secret: SECRET, issuer: ISS, audience: AUD, ttlSeconds: 60 },
      { userId: 7, email: "a@b.c", tenantId: "t" },
    );
    const claims = await verifier.verify(token);
    expect(claims.sub).toBe("7");
    expect(claims.tid).toBe("t");
  });

  test("accepts RS256 and ES256 tokens whose keys are in the JWKS", async () => {
    for (const [alg, key, kid] of [
      ["RS256", rsa.privateKey, "rsa-1"],
      ["ES256", ec.privateKey, "ec-1"],
    ] as const) {
      const token = await new SignJWT({ email: "x@y.z" })
        .setProtectedHeader({ alg, kid })
        .setSubject("9")
        .setIssuer(ISS)
        .setAudience(AUD)
        .setExpirationTime("5m")
        .sign(key);
      expect((await verifier.verify(token)).sub).toBe("9");
    }
  });

  test("rejects alg none", async () => {
    const token = `${enc({ alg: "none", typ: "JWT" })}.${enc({ sub: "1", iss: ISS, aud: AUD, exp: nowSec() + 60 })}.`;
    await expect401(token, /algorithm/);
  });

  test("rejects algorithm confusion: HS256 signed with the RSA public key", async () => {
    const pem = await exportSPKI(rsa.publicKey);
    const forged = await new SignJWT({})
      .setProtectedHeader({ alg: "HS256", kid: "rsa-1" })
      .setSubject("1")
      .setIssuer(ISS)
      .setAudience(AUD)
      .setExpirationTime("5m")
      .sign(new TextEncoder().encode(pem));
    await expect401(forged, /signature/);
    // And a verifier with only a JWKS refuses HMAC tokens outright.
    const jwksOnly = new JwtVerifier({
      secret: undefined,
      jwksUrl: `http://127.0.0.1:${server.port}/`,
      issuer: ISS,
      audience: AUD,
    });
    await expect(jwksOnly.verify(forged)).rejects.toThrow(/algorithm HS256 is not accepted/);
  });

  test("rejects an RS256 token whose key is not in the JWKS", async () => {
    const other = await generateKeyPair("RS256");
    const token = await new SignJWT({})
      .setProtectedHeader({ alg: "RS256", kid: "rsa-1" })
      .setSubject("1")
      .setIssuer(ISS)
      .setAudience(AUD)
      .setExpirationTime("5m")
      .sign(other.privateKey);
    await expect401(token, /signature/);
  });

  test("rejects expired tokens", async () => {
    const token = await new SignJWT({})
      .setProtectedHeader({ alg: "HS256" })
      .setSubject("1")
      .setIssuer(ISS)
      .setAudience(AUD)
      .setExpirationTime(nowSec() - 10)
      .sign(new TextEncoder().encode(SECRET));
    await expect401(token, /expired/);
  });

  test("rejects tokens that are not yet valid (nbf)", async () => {
    const token = await new SignJWT({})
      .setProtectedHeader({ alg: "HS256" })
      .setSubject("1")
      .setIssuer(ISS)
      .setAudience(AUD)
      .setNotBefore(nowSec() + 600)
      .setExpirationTime("1h")
      .sign(new TextEncoder().encode(SECRET));
    await expect401(token, /not yet valid/);
  });

  test("rejects wrong issuer and wrong audience", async () => {
    const wrongIss = await new SignJWT({})
      .setProtectedHeader({ alg: "HS256" })
      .setSubject("1")
      .setIssuer("evil")
      .setAudience(AUD)
      .setExpirationTime("5m")
      .sign(new TextEncoder().encode(SECRET));
    await expect401(wrongIss, /'iss'/);
    const wrongAud = await new SignJWT({})
      .setProtectedHeader({ alg: "HS256" })
      .setSubject("1")
      .setIssuer(ISS)
      .setAudience("other-api")
      .setExpirationTime("5m")
      .sign(new TextEncoder().encode(SECRET));
    await expect401(wrongAud, /'aud'/);
  });

  test("rejects a tampered payload, a wrong secret, a missing exp and garbage", async () => {
    const good = await hs();
    const [h, , s] = good.split(".");
    await expect401(`${h}.${enc({ sub: "2", iss: ISS, aud: AUD, exp: nowSec() + 60 })}.${s}`, /signature/);
    const wrongSecret = await new SignJWT({})
      .setProtectedHeader({ alg: "HS256" })
      .setSubject("1")
      .setIssuer(ISS)
      .setAudience(AUD)
      .setExpirationTime("5m")
      .sign(new TextEncoder().encode("w".repeat(40)));
    await expect401(wrongSecret, /signature/);
    const noExp = await new SignJWT({})
      .setProtectedHeader({ alg: "HS256" })
      .setSubject("1")
      .setIssuer(ISS)
      .setAudience(AUD)
      .sign(new TextEncoder().encode(SECRET));
    await expect401(noExp, /'exp'/);
    await expect401("not-a-jwt", /Malformed/);
  });
});

describe("verified-token cache", () => {
  test("a cached token is refused once it expires", async () => {
    const token = await new SignJWT({})
      .setProtectedHeader({ alg: "HS256" })
      .setSubject("1")
      .setIssuer(ISS)
      .setAudience(AUD)
      .setExpirationTime(nowSec() + 1)
      .sign(new TextEncoder().encode(SECRET));
    expect((await verifier.verify(token)).sub).toBe("1");
    expect((await verifier.verify(token)).sub).toBe("1");
    await Bun.sleep(2_100 - (Date.now() % 1000));
    await expect401(token, /expired/);
  });

  test("remembered() and verify() give the same answer on a cached token as the clock moves", async () => {
    // The private map is read only to see eviction: remembered() leaves a stale entry,
    // verify() drops it (the split around the shared standing() check).
    const cache = (verifier as unknown as { verified: Map<string, unknown> }).verified;
    const t = nowSec();
    const at = (sec: number) => setSystemTime(new Date(sec * 1000));
    const token = await new SignJWT({})
      .setProtectedHeader({ alg: "HS256" })
      .setSubject("9")
      .setIssuer(ISS)
      .setAudience(AUD)
      .setNotBefore(t + 600)
      .setExpirationTime(t + 3600)
      .sign(new TextEncoder().encode(SECRET));
    try {
      expect(verifier.remembered(token)).toBeUndefined(); // never verified
      at(t + 700);
      const claims = await verifier.verify(token);
      expect(verifier.remembered(token)).toBe(claims);
      expect(await verifier.verify(token)).toBe(claims); // the cached object, no re-verification

      at(t); // clock stepped back: early again
      expect(verifier.remembered(token)).toBeUndefined();
      expect(cache.has(token)).toBe(true);
      await expect401(token, /not yet valid/);
      expect(cache.has(token)).toBe(false);

      at(t + 700);
      expect((await verifier.verify(token)).sub).toBe("9");
      at(t + 7200); // past exp
      expect(verifier.remembered(token)).toBeUndefined();
      expect(cache.has(token)).toBe(true);
      await expect401(token, /expired/);
      expect(cache.has(token)).toBe(false);
    } finally {
      setSystemTime();
    }
  });
});
