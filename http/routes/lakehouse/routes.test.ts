import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import pino from "pino";
import { ensureUser } from "../../../cli/demo-seed.ts";
import { catalogSecretContext } from "../../../domain/lakehouse/catalog.ts";
import type { Tenant } from "../../../domain/ports.ts";
import { lakehouseNamespace } from "../../../domain/tenants/namespaces.ts";
import { startTestService, type TestService } from "../../../test/harness.ts";
import { signUserToken } from "../../auth/jwt.ts";

const SECRET = `s3-secret-${crypto.randomUUID()}`;
const ACCESS_KEY = `AKIA${crypto.randomUUID().slice(0, 8).toUpperCase()}`;
const logLines: string[] = [];
const bodies: string[] = [];

let svc: TestService;
let owner: string;
let viewer: string;
let other: { tenant: Tenant; owner: string };
let bare: { tenant: Tenant; owner: string };

/** A tenant with an owner token, in the same service (the harness seeds only one tenant). */
async function tenantWithOwner(slug: string): Promise<{ tenant: Tenant; owner: string }> {
  const { store, secrets, config } = svc.service;
  const tenant = await store.createTenant({
    slug,
    display_name: slug,
    tier: "enterprise",
    region: "local",
    provisioning_state: "active",
    is_active: true,
  });
  const u = await ensureUser(store, tenant.tenant_id, `owner@${slug}.test`, "enterprise", undefined, ["owner"]);
  const token = await signUserToken(
    { secret: secrets.jwtSecret, issuer: config.jwt.issuer, audience: config.jwt.audience, ttlSeconds: 600 },
    { userId: u.id, email: u.email, tenantId: tenant.tenant_id },
  );
  return { tenant, owner: token };
}

beforeAll(async () => {
  // No redaction configured: the routes themselves must keep credentials out of the logs.
  const logger = pino({ level: "trace" }, { write: (line: string) => void logLines.push(line) });
  svc = await startTestService({}, { logger });
  await svc.user("owner@lake.test", "enterprise", ["owner"]);
  owner = await svc.token("owner@lake.test", "enterprise");
  await svc.user("viewer@lake.test", "enterprise", ["viewer"]);
  viewer = await svc.token("viewer@lake.test", "enterprise");
  other = await tenantWithOwner(`other-${crypto.randomUUID().slice(0, 6)}`);
  bare = await tenantWithOwner(`bare-${crypto.randomUUID().slice(0, 6)}`);
});
afterAll(() => svc.close());

async function call(path: string, token: string | null, method = "GET", body?: unknown) {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (token) headers.authorization = `Bearer ${token}`;
  const res = await svc.request(path, {
    method,
    headers,
    ...(body === undefined ? {} : { body: typeof body === "string" ? body : JSON.stringify(body) }),
  });
  const text = await res.text();
  bodies.push(text);
  return { status: res.status, json: text ? (JSON.parse(text) as Record<string, unknown>) : null, text };
}

interface Issue {
  loc: string[];
  msg: string;
  type: string;
}
const details = (res: { json: Record<string, unknown> | null }): Issue[] => (res.json?.detail ?? []) as Issue[];

const catalogBody = (over: Record<string, unknown> = {}) => ({
  catalog_uri: "https://catalog.example.com/api/catalog",
  warehouse: "s3://lakehouse/warehouse",
  storage_prefix: "tenants/test",
  s3_endpoint: "https://s3.example.com",
  s3_access_key_id: ACCESS_KEY,
  s3_secret_key_enc: SECRET,
  metadata: { team: "data" },
  ...over,
});

const RECORD_KEYS = [
  "catalog_name",
  "catalog_type",
  "catalog_uri",
  "id",
  "is_active",
  "provisioned_at",
  "storage_prefix",
  "tenant_id",
  "tenant_slug",
  "warehouse",
];

describe("lakehouse catalogs", () => {
  test("POST provisions with defaults: 201 with exactly the catalog record, secret stored as ciphertext", async () => {
    const res = await call(`/v1/admin/tenants/${svc.tenantId}/catalog`, owner, "POST", catalogBody());
    expect(res.status).toBe(201);
    const rec = res.json as Record<string, unknown>;
    expect(Object.keys(rec).sort()).toEqual(RECORD_KEYS);
    expect(rec).toMatchObject({
      tenant_id: svc.tenantId,
      catalog_name: "svc-lakehouse",
      catalog_type: "rest",
      warehouse: "s3://lakehouse/warehouse",
      storage_prefix: "tenants/test",
      is_active: true,
    });
    expect(new Date(rec.provisioned_at as string).toISOString()).toBe(rec.provisioned_at as string);
    const row = await svc.service.store.sql.get<{ s3_secret_key_enc: string; key_id: string }>(
      "SELECT s3_secret_key_enc, key_id FROM catalogs WHERE id = ?",
      [rec.id as string],
    );
    expect(row?.s3_secret_key_enc).toMatch(/^v1\.[A-Za-z0-9_-]+\./);
    expect(row?.s3_secret_key_enc).not.toContain(SECRET);
    expect(row?.key_id).toBe(svc.service.secretBox.activeKeyId);
    const ctx = catalogSecretContext(svc.tenantId, "svc-lakehouse");
    expect(svc.service.secretBox.decrypt(row?.s3_secret_key_enc ?? "", ctx)).toBe(SECRET);
  });

  test("repeated POST updates in place: same id, new warehouse, rotated secret", async () => {
    const before = (await call(`/v1/admin/tenants/${svc.tenantId}/catalog`, owner)).json as Record<string, unknown>;
    const sql = svc.service.store.sql;
    const oldCt = await sql.get<{ c: string }>("SELECT s3_secret_key_enc AS c FROM catalogs WHERE id = ?", [
      before.id as string,
    ]);
    const res = await call(
      `/v1/admin/tenants/${svc.tenantId}/catalog`,
      owner,
      "POST",
      catalogBody({ warehouse: "s3://lakehouse/moved", s3_secret_key_enc: `${SECRET}-v2` }),
    );
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({ id: before.id, warehouse: "s3://lakehouse/moved", is_active: true });
    expect(res.json?.provisioned_at).toBe(before.provisioned_at);
    const newCt = await sql.get<{ c: string }>("SELECT s3_secret_key_enc AS c FROM catalogs WHERE id = ?", [
      before.id as string,
    ]);
    expect(newCt?.c).not.toBe(oldCt?.c);
    const ctx = catalogSecretContext(svc.tenantId, "svc-lakehouse");
    expect(svc.service.secretBox.decrypt(newCt?.c ?? "", ctx)).toBe(`${SECRET}-v2`);
  });

  test("GET the active catalog; list is the caller's tenant, newest first", async () => {
    const active = await call(`/v1/admin/tenants/${svc.tenantId}/catalog`, viewer);
    expect(active.status).toBe(200);
    expect(Object.keys(active.json ?? {}).sort()).toEqual(
      ["catalog_name", "id", "is_active", "provisioned_at", "tenant_id", "tenant_slug"].sort(),
    );
    await Bun.sleep(2);
    const second = await call(
      `/v1/admin/tenants/${svc.tenantId}/catalog`,
      owner,
      "POST",
      catalogBody({ catalog_name: "archive", catalog_type: "glue" }),
    );
    expect(second.status).toBe(201);
    expect((await call(`/v1/admin/tenants/${svc.tenantId}/catalog`, owner)).json?.catalog_name).toBe("archive");
    await call(`/v1/admin/tenants/${other.tenant.tenant_id}/catalog`, other.owner, "POST", catalogBody());
    const list = await call("/v1/admin/lakehouse/catalogs", viewer);
    expect(list.status).toBe(200);
    const items = list.json as unknown as Record<string, unknown>[];
    expect(items.map((i) => [i.catalog_name, i.is_active])).toEqual([
      ["archive", true],
      ["svc-lakehouse", false],
    ]);
    expect(Object.keys(items[0] ?? {}).sort()).toEqual(
      ["catalog_name", "catalog_type", "id", "is_active", "provisioned_at", "tenant_id", "tenant_slug"].sort(),
    );
    // Switch back so the sync-target tests below use the default catalog.
    await call(`/v1/admin/tenants/${svc.tenantId}/catalog`, owner, "POST", catalogBody());
  });

  test("404 without an active catalog or for an unknown tenant", async () => {
    const none = await call(`/v1/admin/tenants/${bare.tenant.tenant_id}/catalog`, bare.owner);
    expect(none.status).toBe(404);
    expect(typeof none.json?.detail).toBe("string");
    const unknown = await call(`/v1/admin/tenants/${crypto.randomUUID()}/catalog`, owner, "POST", catalogBody());
    expect(unknown.status).toBe(404);
  });

  test("only owners of that tenant write; only its members read; JWT only", async () => {
    const path = `/v1/admin/tenants/${svc.tenantId}/catalog`;
    expect((await call(path, viewer, "POST", catalogBody())).status).toBe(403);
    expect((await call(path, other.owner, "POST", catalogBody())).status).toBe(403);
    expect((await call(path, other.owner)).status).toBe(403);
    expect((await call(path, null)).status).toBe(401);
    const key = await svc.apiKey("keyuser@lake.test", "enterprise");
    const viaKey = await svc.request(path, { headers: { "x-api-key": key } });
    expect(viaKey.status).toBe(401);
    expect((await call("/v1/admin/lakehouse/catalogs", null)).status).toBe(401);
  });

  test("invalid bodies give 422 naming the field, without echoing credentials", async () => {
    const path = `/v1/admin/tenants/${svc.tenantId}/catalog`;
    const missing = await call(path, owner, "POST", { warehouse: "s3://b/w", storage_prefix: "p" });
    expect(missing.status).toBe(422);
    expect(details(missing)[0]).toMatchObject({
      loc: ["body", "catalog_uri"],
      type: "missing",
    });
    const notS3 = await call(path, owner, "POST", catalogBody({ warehouse: "/local/dir" }));
    expect(notS3.status).toBe(422);
    expect(details(notS3)[0]?.loc).toEqual(["body", "warehouse"]);
    const badType = await call(path, owner, "POST", catalogBody({ catalog_type: "nessie" }));
    expect(details(badType)[0]?.type).toBe("enum");
    const traversal = await call(path, owner, "POST", catalogBody({ storage_prefix: "../other-tenant" }));
    expect(traversal.status).toBe(422);
    // An extra key echoes the whole body in the section 7 item; the secret must be blanked.
    const extra = await call(path, owner, "POST", catalogBody({ unexpected: 1 }));
    expect(extra.status).toBe(422);
    expect(extra.text).toContain("[redacted]");
    const tooLong = await call(path, owner, "POST", catalogBody({ s3_secret_key_enc: `${SECRET}${"x".repeat(5000)}` }));
    expect(tooLong.status).toBe(422);
  });

  test("an array body is refused without echoing the credentials inside it (issue 13)", async () => {
    const path = `/v1/admin/tenants/${svc.tenantId}/catalog`;
    const res = await call(path, owner, "POST", [catalogBody(), catalogBody()]);
    expect(res.status).toBe(422);
    expect(details(res)[0]).toMatchObject({ loc: ["body"], type: "dict_type" });
    expect(res.text).not.toContain(SECRET);
    expect(res.text).not.toContain(ACCESS_KEY);
  });

  test("catalog_uri or s3_endpoint with user:password@ is refused (422) and nothing is stored", async () => {
    const path = `/v1/admin/tenants/${bare.tenant.tenant_id}/catalog`;
    const password = `pw-${crypto.randomUUID()}`;
    for (const field of ["catalog_uri", "s3_endpoint"]) {
      const res = await call(
        path,
        bare.owner,
        "POST",
        catalogBody({ [field]: `https://admin:${password}@catalog.example.com/api` }),
      );
      expect(res.status).toBe(422);
      const issue = details(res).find((i) => i.loc.join(".") === `body.${field}`);
      expect(issue?.msg).toContain("must not carry credentials");
      expect(issue?.msg).toEndWith("never returned");
      expect(res.text).not.toContain(password);
    }
    expect((await call(path, bare.owner)).status).toBe(404);
  });
});

describe("sync targets", () => {
  let slug = "";
  const ns = () => lakehouseNamespace(slug);
  const targetBody = (over: Record<string, unknown> = {}) => ({
    tenant_id: svc.tenantId,
    source_schema: "ci",
    source_table: "filings",
    iceberg_namespace: ns(),
    iceberg_table: "filings",
    primary_key_cols: ["id"],
    cursor_col: "updated_at",
    ...over,
  });

  beforeAll(async () => {
    const t = await svc.service.store.getTenant(svc.tenantId);
    slug = t?.slug ?? "";
    await svc.service.store.sql.exec(
      "CREATE TABLE ci.filings (id INTEGER PRIMARY KEY, cik TEXT NOT NULL, amount DECIMAL(12,2), flag BLOB, updated_at TEXT)",
    );
  });

  test("POST creates (201, full record); list and GET show it", async () => {
    const res = await call("/v1/admin/lakehouse/sync-targets", owner, "POST", targetBody({ metadata: { a: 1 } }));
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({
      tenant_id: svc.tenantId,
      tenant_slug: slug,
      catalog_name: "svc-lakehouse",
      source_schema: "ci",
      source_table: "filings",
      iceberg_namespace: ns(),
      sync_mode: "incremental",
      primary_key_cols: ["id"],
      cursor_col: "updated_at",
      sync_connector_id: null,
      metadata: { a: 1 },
      last_status: null,
    });
    const list = await call(`/v1/admin/lakehouse/sync-targets?tenant_id=${svc.tenantId}`, viewer);
    expect(list.status).toBe(200);
    const items = list.json as unknown as Record<string, unknown>[];
    expect(items).toHaveLength(1);
    expect(Object.keys(items[0] ?? {}).sort()).toEqual(
      [
        "catalog_name",
        "created_at",
        "cursor_col",
        "iceberg_namespace",
        "iceberg_table",
        "id",
        "source_schema",
        "source_table",
        "sync_mode",
        "tenant_slug",
      ].sort(),
    );
    expect((await call("/v1/admin/lakehouse/sync-targets", viewer)).json).toEqual(list.json);
    const one = await call(`/v1/admin/lakehouse/sync-targets/${res.json?.id}`, viewer);
    expect(one.json).toEqual(res.json);
    expect((await call(`/v1/admin/lakehouse/sync-targets/${res.json?.id}`, other.owner)).status).toBe(404);
    const dup = await call("/v1/admin/lakehouse/sync-targets", owner, "POST", targetBody({ source_table: "filings" }));
    expect(dup.status).toBe(409);
  });

  test("full_refresh needs no cursor; incremental needs cursor_col and primary keys", async () => {
    const full = await call(
      "/v1/admin/lakehouse/sync-targets",
      owner,
      "POST",
      targetBody({ iceberg_table: "filings_full", sync_mode: "full_refresh", cursor_col: null, primary_key_cols: [] }),
    );
    expect(full.status).toBe(201);
    const inc = await call(
      "/v1/admin/lakehouse/sync-targets",
      owner,
      "POST",
      targetBody({ iceberg_table: "x1", cursor_col: null, primary_key_cols: [] }),
    );
    expect(inc.status).toBe(422);
    expect(details(inc).map((d) => d.loc.join("."))).toEqual(["body.cursor_col", "body.primary_key_cols"]);
  });

  test("the source must exist with those columns; names follow the patterns", async () => {
    const post = (over: Record<string, unknown>) =>
      call("/v1/admin/lakehouse/sync-targets", owner, "POST", targetBody(over));
    const first = async (over: Record<string, unknown>) => {
      const r = await post(over);
      expect(r.status).toBe(422);
      return details(r)[0];
    };
    expect((await first({ source_table: "nope", iceberg_table: "y" }))?.msg).toContain("ci.nope does not exist");
    expect((await first({ source_schema: "public", iceberg_table: "y" }))?.loc).toEqual(["body", "source_schema"]);
    expect((await first({ cursor_col: "missing", iceberg_table: "y" }))?.loc).toEqual(["body", "cursor_col"]);
    expect((await first({ cursor_col: "flag", iceberg_table: "y" }))?.msg).toContain("cannot be a cursor");
    expect((await first({ primary_key_cols: ["id", "zz"], iceberg_table: "y" }))?.msg).toContain("zz");
    expect((await first({ iceberg_table: "Bad-Name" }))?.loc).toEqual(["body", "iceberg_table"]);
    expect((await first({ source_table: "x; DROP TABLE t" }))?.loc).toEqual(["body", "source_table"]);
  });

  test("a tenant never targets another tenant's namespace; owners only; catalog first", async () => {
    const foreign = lakehouseNamespace(other.tenant.slug);
    const res = await call(
      "/v1/admin/lakehouse/sync-targets",
      owner,
      "POST",
      targetBody({ iceberg_namespace: foreign }),
    );
    expect(res.status).toBe(403);
    expect(String(res.json?.detail)).toContain(ns());
    expect(
      (await call("/v1/admin/lakehouse/sync-targets", viewer, "POST", targetBody({ iceberg_table: "v" }))).status,
    ).toBe(403);
    const theirs = await call("/v1/admin/lakehouse/sync-targets", other.owner, "POST", targetBody());
    expect(theirs.status).toBe(403);
    expect((await call(`/v1/admin/lakehouse/sync-targets?tenant_id=${svc.tenantId}`, other.owner)).status).toBe(403);
    const bareNs = lakehouseNamespace(bare.tenant.slug);
    const noCatalog = await call(
      "/v1/admin/lakehouse/sync-targets",
      bare.owner,
      "POST",
      targetBody({ tenant_id: bare.tenant.tenant_id, iceberg_namespace: bareNs, source_table: "filings" }),
    );
    expect(noCatalog.status).toBe(409);
  });

  test("run needs a configured lakehouse (503 here); unknown target 404", async () => {
    const list = (await call("/v1/admin/lakehouse/sync-targets", owner)).json as unknown as { id: string }[];
    const run = await call(`/v1/admin/lakehouse/sync-targets/${list[0]?.id}/run`, owner, "POST");
    expect(run.status).toBe(503);
    expect((await call(`/v1/admin/lakehouse/sync-targets/${list[0]?.id}/run`, viewer, "POST")).status).toBe(403);
    expect((await call(`/v1/admin/lakehouse/sync-targets/${crypto.randomUUID()}/run`, owner, "POST")).status).toBe(404);
  });
});

describe("credentials never leave", () => {
  test("no response body and no log line carries the storage secret or access key", () => {
    expect(bodies.length).toBeGreaterThan(20);
    expect(logLines.length).toBeGreaterThan(20);
    for (const text of [...bodies, ...logLines]) {
      expect(text).not.toContain(SECRET);
      expect(text).not.toContain(ACCESS_KEY);
    }
  });
});
