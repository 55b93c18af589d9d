import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { SignJWT } from "jose";
import pino from "pino";
import { startTestService, type TestService } from "../test/harness.ts";
import { serve } from "../test/serve.ts";
import { isHotUrl } from "./hot-path.ts";

// Access-log lines of the service, captured at level info.
const lines: Record<string, unknown>[] = [];
const logger = pino({ level: "info" }, { write: (s: string) => lines.push(JSON.parse(s)) });

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({}, { logger });
});
afterAll(() => svc.close());

const bearer = (token: string, extra: Record<string, string> = {}) => ({
  headers: { authorization: `Bearer ${token}`, ...extra },
});
/** Sends `head` on a fresh connection and returns the status code of the answer. */
async function rawStatus(base: string, head: string): Promise<number> {
  const { hostname, port } = new URL(base);
  const { promise, resolve, reject } = Promise.withResolvers<number>();
  let got = "";
  const socket = await Bun.connect({
    hostname,
    port: Number(port),
    socket: {
      data(s, chunk) {
        got += chunk.toString();
        const m = got.match(/^HTTP\/1\.1 (\d{3})/);
        if (m) {
          resolve(Number(m[1]));
          s.end();
        }
      },
      error: (_s, err) => reject(err),
      close: () => reject(new Error(`closed before a status line: ${got.slice(0, 80)}`)),
    },
  });
  socket.write(head);
  return promise;
}

type Profile = { tier: string; current_usage: { today: number; this_month: number } };

describe("which requests take the hot path", () => {
  test("exactly GET /v1/user/me: no query, no trailing slash, no other prefix", () => {
    expect(isHotUrl("http://cairn.test/v1/user/me")).toBe(true);
    expect(isHotUrl("https://127.0.0.1:8080/v1/user/me")).toBe(true);
    expect(isHotUrl("http://cairn.test/v1/user/me?x=1")).toBe(false);
    expect(isHotUrl("http://cairn.test/v1/user/me/")).toBe(false);
    expect(isHotUrl("http://cairn.test/api/v1/user/me")).toBe(false);
    expect(isHotUrl("http://cairn.test/v1/user/meme")).toBe(false);
  });
});

describe("GET /v1/user/me on the hot path answers as the Hono route does", () => {
  test("same status, headers and body as the routed request (a query string sends it through Hono)", async () => {
    const token = await svc.token("same@example.com", "pro");
    const hot = await svc.request("/v1/user/me", bearer(token));
    const routed = await svc.request("/v1/user/me?via=hono", bearer(token));
    expect(hot.status).toBe(200);
    expect(routed.status).toBe(200);
    const names = (r: Response) => {
      const out: string[] = [];
      r.headers.forEach((_, k) => {
        out.push(k);
      });
      return out.sort();
    };
    expect(names(hot)).toEqual(names(routed));
    expect(hot.headers.get("content-type")).toBe(routed.headers.get("content-type"));
    expect(hot.headers.get("x-ratelimit-limit")).toBe("60");
    expect(Number(hot.headers.get("x-ratelimit-remaining"))).toBe(
      Number(routed.headers.get("x-ratelimit-remaining")) + 1,
    );
    const a = (await hot.json()) as Profile;
    const b = (await routed.json()) as Profile;
    expect(a.current_usage).toEqual({ today: 1, this_month: 1 });
    expect(b).toEqual({ ...a, current_usage: { today: 2, this_month: 2 } });
  });

  test("the request id is echoed when well-formed and made otherwise", async () => {
    const token = await svc.token("rid@example.com", "enterprise");
    const echoed = await svc.request("/v1/user/me", bearer(token, { "x-request-id": "abc-123.x" }));
    expect(echoed.headers.get("x-request-id")).toBe("abc-123.x");
    const made = await svc.request("/v1/user/me", bearer(token, { "x-request-id": "no spaces allowed" }));
    expect(made.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
  });

  test("one access line per request, with tenant and user bound", async () => {
    const token = await svc.token("logged@example.com", "enterprise");
    const u = await svc.user("logged@example.com");
    const res = await svc.request("/v1/user/me", bearer(token, { "x-request-id": "log-line-1" }));
    expect(res.status).toBe(200);
    const mine = lines.filter((l) => l.request_id === "log-line-1");
    expect(mine).toHaveLength(1);
    expect(mine[0]).toMatchObject({
      msg: "request",
      method: "GET",
      path: "/v1/user/me",
      status: 200,
      tenant_id: svc.tenantId,
      user_id: u.id,
    });
  });

  test("no or a bad token: 401 with WWW-Authenticate and the request id, and an access line", async () => {
    const none = await svc.request("/v1/user/me", { headers: { "x-request-id": "no-token-1" } });
    expect(none.status).toBe(401);
    expect(none.headers.get("www-authenticate")).toContain("Bearer");
    expect(none.headers.get("x-request-id")).toBe("no-token-1");
    expect(none.headers.get("content-type")).toBe("application/json");
    expect(((await none.json()) as { detail: string }).detail).toMatch(/Missing bearer token/);
    expect(lines.filter((l) => l.request_id === "no-token-1").map((l) => l.status)).toEqual([401]);
    const bad = await svc.request("/v1/user/me", bearer("not.a.jwt"));
    expect(bad.status).toBe(401);
  });

  test("hostile-input guards still apply: encoded bodies 415, oversized headers 431", async () => {
    const token = await svc.token("guards@example.com", "enterprise");
    const encoded = await svc.request("/v1/user/me", bearer(token, { "content-encoding": "gzip" }));
    expect(encoded.status).toBe(415);
    const big = await svc.request("/v1/user/me", bearer(token, { "x-filler": "a".repeat(17 * 1024) }));
    expect(big.status).toBe(431);
  });
});

describe("the checks hold on the very next request", () => {
  test("a cached token is refused on the first request after it expires", async () => {
    const u = await svc.user("expiring@example.com", "enterprise");
    const { secrets, config } = svc.service;
    // Expired 4 s ago: still inside the default 5 s clock tolerance, so accepted (and cached).
    const token = await new SignJWT({ email: u.email, tid: u.tenant_id })
      .setProtectedHeader({ alg: "HS256" })
      .setSubject(String(u.id))
      .setIssuer(config.jwt.issuer)
      .setAudience(config.jwt.audience)
      .setExpirationTime(Math.floor(Date.now() / 1000) - 4)
      .sign(new TextEncoder().encode(secrets.jwtSecret));
    expect((await svc.request("/v1/user/me", bearer(token))).status).toBe(200);
    await Bun.sleep(1_000 - (Date.now() % 1000) + 1_100);
    const refused = await svc.request("/v1/user/me", bearer(token));
    expect(refused.status).toBe(401);
    expect(((await refused.json()) as { detail: string }).detail).toMatch(/expired/);
  });

  test("a suspended tenant is refused at once; a tier change shows at once", async () => {
    const other = await svc.addTenant();
    const token = await other.token("suspend@example.com");
    expect((await svc.request("/v1/user/me", bearer(token))).status).toBe(200);
    const { store, deps } = svc.service;
    await store.updateTenant(other.tenantId, { provisioning_state: "deprovisioned", is_active: false });
    await deps.tenantResolver.invalidate(other.tenantId);
    expect((await svc.request("/v1/user/me", bearer(token))).status).toBe(403);

    const t2 = await svc.token("retier@example.com", "free");
    expect(((await (await svc.request("/v1/user/me", bearer(t2))).json()) as Profile).tier).toBe("free");
    await store.updateUser((await svc.user("retier@example.com")).id, { tier: "pro" });
    expect(((await (await svc.request("/v1/user/me", bearer(t2))).json()) as Profile).tier).toBe("pro");
  });

  test("a tier change or a deletion committed by another process applies on the very next request", async () => {
    // The user row is cached between requests (adapters/controlplane/user-cache.ts); a write
    // from outside this process (the CLI, another instance on the same file) must still show.
    const token = await svc.token("outside@example.com", "free");
    const id = (await svc.user("outside@example.com")).id;
    for (let i = 0; i < 2; i++) {
      expect(((await (await svc.request("/v1/user/me", bearer(token))).json()) as Profile).tier).toBe("free");
    }
    const path = (svc.service.config.controlPlane as { path: string }).path;
    const script = `const {Database}=require("bun:sqlite");const db=new Database(${JSON.stringify(path)});
      db.query("UPDATE users SET tier = 'pro' WHERE id = ?").run(${id});db.close();`;
    expect(Bun.spawnSync([process.execPath, "-e", script]).exitCode).toBe(0);
    const res = await svc.request("/v1/user/me", bearer(token));
    expect(((await res.json()) as Profile).tier).toBe("pro");
    expect(res.headers.get("x-ratelimit-limit")).toBe("60");
    const deleted = `const {Database}=require("bun:sqlite");const db=new Database(${JSON.stringify(path)});
      db.query("DELETE FROM users WHERE id = ?").run(${id});db.close();`;
    expect(Bun.spawnSync([process.execPath, "-e", deleted]).exitCode).toBe(0);
    expect((await svc.request("/v1/user/me", bearer(token))).status).toBe(401);
  });

  test("the rate limiter refuses at the limit with its headers; refused calls are not usage", async () => {
    const token = await svc.token("limited@example.com", "free");
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) {
      const res = await svc.request("/v1/user/me", bearer(token, { "x-request-id": `limited-${i}` }));
      statuses.push(res.status);
      if (res.status === 429) {
        expect(res.headers.get("retry-after")).toMatch(/^\d+$/);
        expect(res.headers.get("x-ratelimit-remaining")).toBe("0");
        expect(res.headers.get("x-request-id")).toBe(`limited-${i}`);
        expect(((await res.json()) as { detail: string }).detail).toMatch(/Rate limit exceeded/);
      }
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429]);
    const used = await svc.service.deps.usage.usage((await svc.user("limited@example.com")).id);
    expect(used.today).toBe(5);
  });

  test("usage counts stay exact after a concurrent burst", async () => {
    const token = await svc.token("burst@example.com", "enterprise");
    const burst = await Promise.all(
      Array.from({ length: 300 }, () => svc.request("/v1/user/me", bearer(token)).then((r) => r.status)),
    );
    expect(burst.filter((s) => s === 200)).toHaveLength(300);
    const body = (await (await svc.request("/v1/user/me", bearer(token))).json()) as Profile;
    expect(body.current_usage).toEqual({ today: 301, this_month: 301 });
  });
});

describe("over a real socket (Bun.serve hands the request over)", () => {
  test("answers 200 with the profile; a declared body or an encoding still meets the guards", async () => {
    const served = serve(svc.service);
    try {
      const token = await svc.token("wire@example.com", "enterprise");
      const url = `${served.url}/v1/user/me`;
      const ok = await fetch(url, bearer(token, { "x-request-id": "wire-1" }));
      expect(ok.status).toBe(200);
      expect(ok.headers.get("x-request-id")).toBe("wire-1");
      expect(((await ok.json()) as Profile).current_usage.today).toBe(1);
      // A GET that declares a body past the route's limit (fetch() will not send one; a raw
      // socket does) is Hono's to judge: the same answer as the routed form of the URL.
      const declared = (path: string) =>
        rawStatus(
          served.url,
          `GET ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\n` +
            "Content-Length: 2000000\r\nConnection: close\r\n\r\n",
        );
      const declaredStatus = await declared("/v1/user/me");
      expect(declaredStatus).toBe(await declared("/v1/user/me?via=hono"));
      const encoded = await fetch(url, bearer(token, { "content-encoding": "br" }));
      expect(encoded.status).toBe(415);
      // The encoded request was refused before counting; the two declared-body ones count
      // only if they were accepted.
      const after = (await (await fetch(url, bearer(token))).json()) as Profile;
      expect(after.current_usage.today).toBe(declaredStatus === 200 ? 4 : 2);
    } finally {
      await served.stop();
    }
  });
});
