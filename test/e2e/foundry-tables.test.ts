/**
 * Foundry custom tables end to end: the service (embedded profile) over the real lakehouse
 * gateway. Upload the real German credit CSV, a Parquet file and JSON rows; list them with
 * columns, types, row counts and source; bad rows, names and sizes are refused; a user of a
 * second, provisioned tenant sees none of the first tenant's tables.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ensureUser } from "../../cli/demo-seed.ts";
import { signUserToken } from "../../http/auth/jwt.ts";
import { startTestService, type TestService } from "../harness.ts";
import { type GatewayHandle, LAB_PYTHON, startGateway } from "../lakehouse.ts";
import { waitFor } from "../wait.ts";

const LIMIT = 300_000;
const GERMAN = readFileSync(join(import.meta.dir, "..", "..", "fixtures", "ml", "german_credit.csv"));
const GERMAN_COLUMNS =
  "checking_status,duration,credit_history,purpose,credit_amount,savings,employment,installment_rate," +
  "personal_status,other_debtors,residence_since,property,age,other_installment_plans,housing," +
  "existing_credits,job,num_dependents,telephone,foreign_worker,class";

let gateway: GatewayHandle | undefined;
let svc: TestService;
let auth: Record<string, string>;
let tmp: string;

beforeAll(async () => {
  gateway = await startGateway();
  svc = await startTestService({
    CAIRN_FOUNDRY_UPLOAD_MAX_BYTES: String(LIMIT),
    ...(gateway ? { CAIRN_LAKEHOUSE_URL: gateway.url } : {}),
  });
  auth = { authorization: `Bearer ${await svc.token("analyst@foundry.test", "enterprise")}` };
  tmp = mkdtempSync(join(tmpdir(), "cairn-foundry-"));
}, 120_000);
afterAll(async () => {
  await svc?.close();
  await gateway?.stop();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

type Table = { name: string; columns: { name: string; type: string }[]; row_count: number | null; source: string };

function form(fields: Record<string, string>, file?: { name: string; bytes: Uint8Array | string }): FormData {
  const fd = new FormData();
  for (const [k, v] of Object.entries(fields)) fd.append(k, v);
  if (file) fd.append("file", new Blob([file.bytes as BlobPart]), file.name);
  return fd;
}

const upload = (body: FormData, headers = auth) => svc.request("/v1/foundry/tables", { method: "POST", headers, body });
const postJson = (body: unknown, headers = auth) =>
  svc.request("/v1/foundry/tables", {
    method: "POST",
    headers: { ...headers, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
const list = async (headers = auth) => {
  const res = await svc.request("/v1/foundry/tables", { headers });
  expect(res.status).toBe(200);
  return ((await res.json()) as { tables: Table[] }).tables;
};

describe("foundry custom tables", () => {
  test("the real German credit CSV (headerless, named columns) imports and lists", async () => {
    if (!gateway) return;
    const res = await upload(
      form({ name: "german_credit", header: "false", columns: GERMAN_COLUMNS }, { name: "german.csv", bytes: GERMAN }),
    );
    expect(res.status).toBe(200);
    const body = (await res.json()) as Table & { mode: string };
    expect(body).toMatchObject({ name: "german_credit", row_count: 1000, source: "custom", mode: "create" });
    expect(body.columns.map((c) => c.name)).toEqual(GERMAN_COLUMNS.split(","));
    expect(body.columns.find((c) => c.name === "credit_amount")?.type).toBe("long");
    expect(body.columns.find((c) => c.name === "purpose")?.type).toBe("string");

    const again = await upload(form({ name: "german_credit", header: "false" }, { name: "g.csv", bytes: GERMAN }));
    expect(again.status).toBe(409);
    const replaced = await upload(
      form(
        { name: "german_credit", header: "false", columns: GERMAN_COLUMNS, mode: "replace" },
        { name: "g.csv", bytes: GERMAN },
      ),
    );
    expect(replaced.status).toBe(200);
    expect(((await replaced.json()) as Table).row_count).toBe(1000);

    const tables = await list();
    const german = tables.find((t) => t.name === "german_credit");
    expect(german).toMatchObject({ row_count: 1000, source: "custom" });
    expect(german?.columns).toHaveLength(21);
  });

  test("Parquet upload keeps its types; a file that is not Parquet is 422", async () => {
    if (!gateway) return;
    const path = join(tmp, "bars.parquet");
    const proc = Bun.spawnSync([
      LAB_PYTHON,
      "-c",
      "import sys, pyarrow as pa, pyarrow.parquet as pq; " +
        "pq.write_table(pa.table({'Ticker': ['AAPL','MSFT','NVDA'], 'Close': [189.5, 410.25, 880.0], " +
        "'Volume': pa.array([100, 200, 300], pa.int64())}), sys.argv[1])",
      path,
    ]);
    expect(proc.exitCode).toBe(0);
    const res = await upload(form({ name: "bars" }, { name: "bars.parquet", bytes: readFileSync(path) }));
    expect(res.status).toBe(200);
    const body = (await res.json()) as Table;
    expect(body.columns.map((c) => [c.name, c.type])).toEqual([
      ["ticker", "string"],
      ["close", "double"],
      ["volume", "long"],
    ]);
    expect(body.row_count).toBe(3);

    const bad = await upload(form({ name: "not_parquet" }, { name: "x.parquet", bytes: "a,b\n1,2\n" }));
    expect(bad.status).toBe(422);
    const problem = (await bad.json()) as { detail: { loc: string[]; msg: string }[] };
    expect(problem.detail[0]?.loc).toEqual(["body", "file"]);
    expect(problem.detail[0]?.msg).toContain("Parquet");
  });

  test("JSON rows import; append adds columns", async () => {
    if (!gateway) return;
    const res = await postJson({ name: "watchlist", rows: [{ Ticker: "AAPL", weight: 0.5 }, { Ticker: "MSFT" }] });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      name: "watchlist",
      row_count: 2,
      source: "custom",
      mode: "create",
      columns: [
        { name: "ticker", type: "string" },
        { name: "weight", type: "double" },
      ],
    });
    const more = await postJson({ name: "watchlist", mode: "append", rows: [{ ticker: "NVDA", note: "x" }] });
    expect(more.status).toBe(200);
    expect(((await more.json()) as Table).row_count).toBe(3);
    const listed = (await list()).find((t) => t.name === "watchlist");
    expect(listed?.columns.map((c) => c.name)).toEqual(["ticker", "weight", "note"]);
    expect(listed?.row_count).toBe(3);
  });

  test("a CSV row with the wrong field count is 422 naming the line, with an excerpt", async () => {
    if (!gateway) return;
    const lines = GERMAN.toString("utf8").split("\n");
    lines[41] = "A11,6,A34,A43"; // line 42 of the file: 4 fields instead of 21
    const res = await upload(form({ name: "broken", header: "false" }, { name: "b.csv", bytes: lines.join("\n") }));
    expect(res.status).toBe(422);
    const { detail } = (await res.json()) as { detail: { loc: string[]; msg: string; input: unknown }[] };
    expect(detail[0]?.loc).toEqual(["body", "file", "row", "42"]);
    expect(detail[0]?.msg).toContain("4 fields");
    expect(detail[0]?.input).toBe("A11,6,A34,A43");
    expect((await list()).some((t) => t.name === "broken")).toBe(false);
  });

  test("bad names and modes are 422 with the spec's validation body", async () => {
    const cases: [string, string][] = [
      ["foundry_x", "value_error"],
      ["Bad-Name", "string_pattern_mismatch"],
      ["1abc", "string_pattern_mismatch"],
      ["a".repeat(64), "string_pattern_mismatch"],
    ];
    for (const [name, type] of cases) {
      const res = await upload(form({ name }, { name: "x.csv", bytes: "a\n1\n" }));
      expect(res.status).toBe(422);
      const { detail } = (await res.json()) as { detail: { loc: string[]; type: string; input: unknown }[] };
      expect(detail[0]).toMatchObject({ loc: ["body", "name"], type, input: name });
    }
    const res = await postJson({ name: "ok_name", mode: "merge", rows: [{ a: 1 }] });
    expect(res.status).toBe(422);
    const { detail } = (await res.json()) as { detail: { loc: string[] }[] };
    expect(detail.map((d) => d.loc.join("."))).toEqual(["body.mode"]);
  });

  test("too large: 413 from the declared length, before the body is read", async () => {
    let pulled = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled += 65_536;
        controller.enqueue(new Uint8Array(65_536));
        if (pulled > 2 * LIMIT) controller.close();
      },
    });
    const res = await svc.request("/v1/foundry/tables", {
      method: "POST",
      headers: {
        ...auth,
        "content-type": "multipart/form-data; boundary=x",
        "content-length": String(LIMIT + 200_000),
      },
      body: stream,
      // @ts-expect-error Bun/undici: a streamed request body
      duplex: "half",
    });
    expect(res.status).toBe(413);
    // The stream may have been primed with a chunk or two, never read to the end.
    expect(pulled).toBeLessThan(LIMIT);

    // A chunked body with no declared length is cut off once it passes the limit.
    const big = await upload(form({ name: "big" }, { name: "big.csv", bytes: "x\n".repeat(LIMIT) }));
    expect(big.status).toBe(413);
    const json = await postJson({ name: "big_json", rows: Array.from({ length: 40_000 }, (_, i) => ({ i })) });
    expect(json.status).toBe(413);
  });

  test("a user of a second tenant sees none of the first tenant's tables", async () => {
    if (!gateway) return;
    const admin = { "x-api-key": svc.service.secrets.adminApiKey, "content-type": "application/json" };
    const created = await svc.request("/v1/admin/tenants", {
      method: "POST",
      headers: admin,
      body: JSON.stringify({ slug: "other-fund", display_name: "Other Fund", tier: "enterprise", region: "local" }),
    });
    expect(created.status).toBe(202);
    await waitFor(
      "tenant other-fund to be active",
      async () => (await svc.service.store.getTenantBySlug("other-fund"))?.is_active === true,
      { timeoutMs: 60_000, everyMs: 50 },
    );
    const other = await svc.service.store.getTenantBySlug("other-fund");
    const user = await ensureUser(svc.service.store, other?.tenant_id ?? "", "analyst@other.test", "enterprise");
    const { config, secrets } = svc.service;
    const jwt = await signUserToken(
      { secret: secrets.jwtSecret, issuer: config.jwt.issuer, audience: config.jwt.audience, ttlSeconds: 600 },
      { userId: user.id, email: user.email, tenantId: user.tenant_id },
    );
    const otherAuth = { authorization: `Bearer ${jwt}` };
    expect((await list()).length).toBeGreaterThan(0);
    expect(await list(otherAuth)).toEqual([]);
    // Its own upload of the same name is its own table.
    const res = await postJson({ name: "watchlist", rows: [{ x: 1 }] }, otherAuth);
    expect(res.status).toBe(200);
    expect((await list(otherAuth)).map((t) => [t.name, t.row_count])).toEqual([["watchlist", 1]]);
    expect((await list()).find((t) => t.name === "watchlist")?.row_count).toBe(3);
  }, 90_000);
});
