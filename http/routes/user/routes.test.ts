import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { TIER_LIMITS } from "../../../domain/user/tiers.ts";
import { startTestService, type TestService } from "../../../test/harness.ts";

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(() => svc.close());

const bearer = (token: string) => ({ headers: { authorization: `Bearer ${token}` } });

describe("GET /v1/user/me", () => {
  test("returns exactly the spec 2.1 profile with the right types", async () => {
    const token = await svc.token("me@example.com", "pro");
    const res = await svc.request("/v1/user/me", bearer(token));
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual(
      ["created_at", "current_usage", "email", "email_verified", "id", "limits", "name", "tier"].sort(),
    );
    expect(Number.isInteger(body.id)).toBe(true);
    expect(body.email).toBe("me@example.com");
    expect(typeof body.name).toBe("string");
    expect(body.tier).toBe("pro");
    expect(typeof body.email_verified).toBe("boolean");
    expect(new Date(body.created_at as string).toISOString()).toBe(body.created_at as string);
    expect(body.limits).toEqual({
      req_per_min: 60,
      req_per_day: 10_000,
      api_keys: 5,
      history_retention_years: 5,
      filings_per_query: 100,
    });
    const usage = body.current_usage as Record<string, unknown>;
    expect(Object.keys(usage).sort()).toEqual(["this_month", "today"]);
    expect(usage.today).toBe(1);
    expect(usage.this_month).toBe(1);
  });

  test("current_usage counts accepted requests", async () => {
    const token = await svc.token("counter@example.com", "enterprise");
    for (let i = 0; i < 3; i++) await svc.request("/v1/user/me", bearer(token));
    const body = (await (await svc.request("/v1/user/me", bearer(token))).json()) as {
      current_usage: { today: number; this_month: number };
      limits: unknown;
    };
    expect(body.current_usage).toEqual({ today: 4, this_month: 4 });
    expect(body.limits).toEqual({ ...TIER_LIMITS.enterprise });
  });

  test("accepts only a bearer JWT: an API key alone is 401", async () => {
    const key = await svc.apiKey("keyonly@example.com", "pro");
    const res = await svc.request("/v1/user/me", { headers: { "x-api-key": key } });
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toContain("Bearer");
    expect(await res.json()).toEqual({ detail: "Missing bearer token (Authorization: Bearer <JWT>)" });
    expect((await svc.request("/v1/user/me")).status).toBe(401);
    expect((await svc.request("/v1/user/me", bearer("garbage"))).status).toBe(401);
  });
});

describe("API keys", () => {
  test("create up to the tier limit, then 409; list never shows keys; revoke", async () => {
    const token = await svc.token("keys@example.com", "free");
    const h = { authorization: `Bearer ${token}`, "content-type": "application/json" };
    const first = await svc.request("/v1/user/api-keys", {
      method: "POST",
      headers: h,
      body: JSON.stringify({ label: "ci" }),
    });
    expect(first.status).toBe(201);
    const made = (await first.json()) as { id: string; key: string; prefix: string; label: string };
    expect(made.key).toMatch(/^cairn_[0-9a-f]{8}_/);
    expect(made.key.slice(6, 14)).toBe(made.prefix);
    expect(made.label).toBe("ci");
    const second = await svc.request("/v1/user/api-keys", { method: "POST", headers: h, body: "{}" });
    expect(second.status).toBe(409);
    expect(((await second.json()) as { detail: string }).detail).toContain("free tier allows 1");

    const list = (await (await svc.request("/v1/user/api-keys", { headers: h })).json()) as {
      api_keys: Record<string, unknown>[];
    };
    expect(list.api_keys).toHaveLength(1);
    expect(JSON.stringify(list)).not.toContain(made.key);
    expect(list.api_keys[0]?.key).toBeUndefined();

    // More calls follow than the free tier's 5 a minute allows: lift the account to pro.
    const u = await svc.user("keys@example.com");
    await svc.service.store.updateUser(u.id, { tier: "pro" });
    // The key works on an API-key route; revoking it takes effect on the very next request.
    const withKey = () => svc.request("/v1/transcripts?limit=1", { headers: { "x-api-key": made.key } });
    expect((await withKey()).status).toBe(200);
    expect((await withKey()).status).toBe(200);
    expect((await svc.request(`/v1/user/api-keys/${made.id}`, { method: "DELETE", headers: h })).status).toBe(204);
    expect((await withKey()).status).toBe(401);
    expect((await svc.request(`/v1/user/api-keys/${made.id}`, { method: "DELETE", headers: h })).status).toBe(404);
  });
});

describe("validation errors (spec section 7)", () => {
  test("bad path parameter gives 422 with {detail:[{loc,msg,type,input,ctx}]}", async () => {
    const token = await svc.token("val@example.com", "pro");
    const res = await svc.request("/v1/user/api-keys/not-a-uuid", { method: "DELETE", ...bearer(token) });
    expect(res.status).toBe(422);
    expect(await res.json()).toEqual({
      detail: [
        {
          loc: ["path", "key_id"],
          msg: "Input should be a valid UUID",
          type: "uuid_parsing",
          input: "not-a-uuid",
          ctx: {},
        },
      ],
    });
  });

  test("bad body gives 422 naming the field; malformed JSON gives 422 json_invalid", async () => {
    const token = await svc.token("val2@example.com", "pro");
    const h = { authorization: `Bearer ${token}`, "content-type": "application/json" };
    const res = await svc.request("/v1/user/api-keys", {
      method: "POST",
      headers: h,
      body: JSON.stringify({ label: "" }),
    });
    expect(res.status).toBe(422);
    const body = (await res.json()) as { detail: Record<string, unknown>[] };
    expect(body.detail[0]).toEqual({
      loc: ["body", "label"],
      msg: "String should have at least 1 character",
      type: "string_too_short",
      input: "",
      ctx: { min_length: 1 },
    });
    const extra = await svc.request("/v1/user/api-keys", {
      method: "POST",
      headers: h,
      body: JSON.stringify({ nope: 1 }),
    });
    expect(extra.status).toBe(422);
    expect(((await extra.json()) as { detail: { type: string }[] }).detail[0]?.type).toBe("extra_forbidden");
    const bad = await svc.request("/v1/user/api-keys", { method: "POST", headers: h, body: "{not json" });
    expect(bad.status).toBe(422);
    expect(((await bad.json()) as { detail: { type: string; loc: string[] }[] }).detail[0]).toMatchObject({
      type: "json_invalid",
      loc: ["body"],
    });
  });

  test("unknown routes give 404 {detail}", async () => {
    const res = await svc.request("/v1/nope");
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ detail: "Not Found" });
  });
});
