/**
 * Each route accepts exactly its scheme (spec section 5): wrong or missing credentials
 * give 401; a valid identity without the right gives 403; inactive tenants are refused.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { OpenAPIHono } from "@hono/zod-openapi";
import { AppError } from "../../domain/errors.ts";
import { startTestService, type TestService } from "../../test/harness.ts";
import type { AppEnv } from "../context.ts";
import { RequestLog } from "../request-log.ts";
import { makeGuards } from "./guards.ts";

let svc: TestService;
let probe: OpenAPIHono<AppEnv>;
let jwt: string;
let key: string;
let admin: string;
let collab: string;

beforeAll(async () => {
  svc = await startTestService();
  const deps = svc.service.deps;
  const guards = makeGuards(deps);
  probe = new OpenAPIHono<AppEnv>();
  probe.use("*", async (c, next) => {
    c.set("log", new RequestLog(deps.logger, "test"));
    await next();
  });
  probe.onError((err, c) =>
    err instanceof AppError ? c.json(err.toBody(), err.status as 401) : c.json({ detail: String(err) }, 500),
  );
  for (const scheme of [
    "jwt",
    "api_key",
    "api_key_or_query",
    "api_key_and_jwt",
    "admin_key",
    "collab_secret",
    "none",
  ] as const) {
    probe.use(`/${scheme}`, ...guards[scheme]);
    probe.get(`/${scheme}`, (c) => c.json({ kind: c.get("identity").kind }));
  }
  probe.use("/whoami", ...guards.jwt);
  probe.get("/whoami", (c) => {
    const id = c.get("identity");
    return c.json(id.kind === "user" ? { tenant: id.tenantId, roles: id.roles, barriers: id.barriers } : {});
  });
  jwt = await svc.token("scheme@example.com", "enterprise");
  key = await svc.apiKey("scheme@example.com");
  admin = svc.service.secrets.adminApiKey;
  collab = svc.service.secrets.collabSecret;
});
afterAll(() => svc.close());

const call = async (path: string, headers: Record<string, string> = {}) =>
  (await probe.request(path, { headers })).status;

describe("scheme matrix", () => {
  test("JWT routes accept only a bearer JWT", async () => {
    expect(await call("/jwt", { authorization: `Bearer ${jwt}` })).toBe(200);
    expect(await call("/jwt", { "x-api-key": key })).toBe(401);
    expect(await call("/jwt", { "x-api-key": admin })).toBe(401);
    expect(await call("/jwt")).toBe(401);
  });

  test("API-key routes accept only X-API-Key (the admin key is a valid identity without rights)", async () => {
    expect(await call("/api_key", { "x-api-key": key })).toBe(200);
    expect(await call("/api_key", { authorization: `Bearer ${jwt}` })).toBe(401);
    expect(await call("/api_key", { "x-api-key": "cairn_deadbeef_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx" })).toBe(
      401,
    );
    expect(await call("/api_key", { "x-api-key": admin })).toBe(403);
    expect(await call(`/api_key?apikey=${key}`)).toBe(401);
  });

  test("the news socket also takes apikey= in the query", async () => {
    expect(await call(`/api_key_or_query?apikey=${encodeURIComponent(key)}`)).toBe(200);
    expect(await call("/api_key_or_query", { "x-api-key": key })).toBe(200);
    expect(await call("/api_key_or_query?apikey=wrong")).toBe(401);
  });

  test("editor REST needs both the API key and the JWT", async () => {
    expect(await call("/api_key_and_jwt", { "x-api-key": key, authorization: `Bearer ${jwt}` })).toBe(200);
    expect(await call("/api_key_and_jwt", { "x-api-key": key })).toBe(401);
    expect(await call("/api_key_and_jwt", { authorization: `Bearer ${jwt}` })).toBe(401);
  });

  test("tenant administration accepts only the admin-consumer key; a user key is 403", async () => {
    expect(await call("/admin_key", { "x-api-key": admin })).toBe(200);
    expect(await call("/admin_key", { "x-api-key": key })).toBe(403);
    expect(await call("/admin_key", { authorization: `Bearer ${jwt}` })).toBe(401);
    expect(await call("/admin_key", { "x-api-key": `${admin}x` })).toBe(401);
  });

  test("the internal Yjs PUT accepts only the shared secret", async () => {
    expect(await call("/collab_secret", { "x-collab-secret": collab })).toBe(200);
    expect(await call("/collab_secret", { "x-collab-secret": "nope" })).toBe(401);
    expect(await call("/collab_secret", { "x-api-key": admin })).toBe(401);
  });

  test("the lakehouse health route needs nothing", async () => {
    expect(await call("/none")).toBe(200);
  });
});

describe("identities carry tenant, roles and barriers", () => {
  test("a user's roles and crossed barriers reach the identity; inactive tenants are refused", async () => {
    const deps = svc.service.deps;
    const u = await svc.user("roles@example.com", "pro", ["editor"]);
    await svc.service.store.updateUser(u.id, { barriers: ["7f0d1d7e-2a0b-4c55-9e7a-0c3b1c9d2e11"] });
    const token = await svc.token("roles@example.com");
    const res = await probe.request("/whoami", { headers: { authorization: `Bearer ${token}` } });
    expect(await res.json()).toEqual({
      tenant: svc.tenantId,
      roles: ["editor"],
      barriers: ["7f0d1d7e-2a0b-4c55-9e7a-0c3b1c9d2e11"],
    });

    await svc.service.store.updateTenant(svc.tenantId, { provisioning_state: "deprovisioned", is_active: false });
    await deps.tenantResolver.invalidate(svc.tenantId);
    const refused = await probe.request("/whoami", { headers: { authorization: `Bearer ${token}` } });
    expect(refused.status).toBe(403);
    await svc.service.store.updateTenant(svc.tenantId, { provisioning_state: "active", is_active: true });
    await deps.tenantResolver.invalidate(svc.tenantId);
    expect((await probe.request("/whoami", { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
  });
});
