import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Validator } from "@seriousme/openapi-schema-validator";
import { startTestService, type TestService } from "../test/harness.ts";

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(() => svc.close());

describe("OpenAPI and docs", () => {
  test("/openapi.json validates as OpenAPI 3.1 and declares every route with its security", async () => {
    const res = await svc.request("/openapi.json");
    expect(res.status).toBe(200);
    const doc = (await res.json()) as {
      openapi: string;
      paths: Record<string, Record<string, { security?: unknown[]; responses: Record<string, unknown> }>>;
    };
    expect(doc.openapi).toBe("3.1.0");
    const result = await new Validator().validate(doc);
    if (!result.valid) throw new Error(JSON.stringify(result.errors, null, 2));
    expect(doc.paths["/v1/user/me"]?.get?.security).toEqual([{ bearerAuth: [] }]);
    expect(Object.keys(doc.paths["/v1/user/me"]?.get?.responses ?? {})).toEqual(
      expect.arrayContaining(["200", "401", "422", "429"]),
    );
    expect(doc.paths["/v1/user/api-keys/{key_id}"]?.delete).toBeDefined();
  });

  test("3.1 only: tuples are prefixItems (never an array under items); credentials are writeOnly", async () => {
    type Props = { properties?: Record<string, Record<string, unknown>> };
    const doc = (await (await svc.request("/openapi.json")).json()) as {
      components: { schemas: Record<string, Props> };
      paths: Record<string, Record<string, { requestBody: { content: Record<string, { schema: Props }> } }>>;
    };
    const tupleItems: string[] = [];
    const walk = (node: unknown, at: string) => {
      if (node === null || typeof node !== "object") return;
      for (const [k, v] of Object.entries(node)) {
        if (k === "items" && Array.isArray(v)) tupleItems.push(at);
        walk(v, `${at}/${k}`);
      }
    };
    walk(doc, "#");
    expect(tupleItems).toEqual([]);
    const tables = doc.components.schemas.RealtimeStorage?.properties?.tables as { items: { prefixItems: unknown[] } };
    expect(tables.items.prefixItems).toHaveLength(4);
    const catalog =
      doc.paths["/v1/admin/tenants/{tenant_id}/catalog"]?.post?.requestBody.content["application/json"]?.schema;
    expect(catalog?.properties?.s3_secret_key_enc?.writeOnly).toBe(true);
    expect(catalog?.properties?.s3_access_key_id?.writeOnly).toBe(true);
  });

  test("/docs is a human page whose assets are served locally", async () => {
    const page = await svc.request("/docs");
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain("/openapi.json");
    const js = await svc.request("/docs/assets/swagger-ui-bundle.js");
    expect(js.status).toBe(200);
    expect(js.headers.get("content-type")).toContain("javascript");
    expect((await js.text()).length).toBeGreaterThan(100_000);
    expect((await svc.request("/docs/assets/..%2Fpackage.json")).status).toBe(404);
  });

  test("/healthz and /readyz answer without credentials", async () => {
    expect(await (await svc.request("/healthz")).json()).toEqual({ status: "ok" });
    const ready = await svc.request("/readyz");
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({
      status: "ready",
      profile: "embedded",
      checks: { control_plane: "ok", queue: "ok", counters: "ok" },
    });
  });

  test("every response carries a request id; a sane incoming one is echoed", async () => {
    const res = await svc.request("/healthz", { headers: { "x-request-id": "abc-123" } });
    expect(res.headers.get("x-request-id")).toBe("abc-123");
    const fresh = await svc.request("/healthz", { headers: { "x-request-id": "bad id with spaces" } });
    expect(fresh.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
  });
});
