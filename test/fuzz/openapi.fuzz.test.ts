/**
 * Issue 13: every operation in the served OpenAPI document, driven over a real socket with
 * generated and hostile inputs (wrong types, missing and extra fields, huge and deep values, NUL and odd unicode,
 * malformed JSON, wrong content types, traversal in path params, duplicated query params),
 * with and without valid credentials of the kind each route asks for. No answer may be a 5xx
 * (a 503 only with Retry-After), every error is a problem document, none is larger than
 * PROBLEM_MAX_BYTES. The seed is printed; CAIRN_FUZZ_SEED=<n> replays a run.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { PROBLEM_MAX_BYTES } from "../../http/problem.ts";
import { startTestService, type TestService } from "../harness.ts";
import { fuzzSeed, type Prng, prng } from "../prng.ts";
import { type Served, serve } from "../serve.ts";
import {
  HOSTILE_QUERY,
  HOSTILE_RAW_BODIES,
  HOSTILE_SEGMENTS,
  hostileValue,
  nested,
  type OpenApiDoc,
  type Operation,
  operations,
  resolve,
  sample,
} from "./openapi-gen.ts";

interface Case {
  label: string;
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
}

interface Outcome {
  c: Case;
  status: number;
  text: string;
  headers: Headers;
}

let svc: TestService;
/** The service on a real socket: requests go through Bun's HTTP parser like a client's. */
let served: Served;
let doc: OpenApiDoc;
const creds = { jwt: "", apiKey: "", admin: "", collab: "" };
const seed = fuzzSeed("openapi");
/** Case lists per operation (each ~20-30 requests, fresh draws from the operation's PRNG). */
const ROUNDS = 2;

beforeAll(async () => {
  svc = await startTestService();
  served = serve(svc.service);
  creds.jwt = await svc.token("fuzz@cairn.test", "enterprise");
  creds.apiKey = await svc.apiKey("fuzz-key@cairn.test", "enterprise");
  creds.admin = svc.service.secrets.adminApiKey;
  creds.collab = svc.service.secrets.collabSecret;
  doc = (await (await svc.request("/openapi.json")).json()) as OpenApiDoc;
});
afterAll(async () => {
  await served.stop();
  await svc.close();
});

/** Credentials for one of the operation's security alternatives (or none). */
function authFor(op: Operation, rng: Prng): { headers: Record<string, string>; query: string } {
  const headers: Record<string, string> = {};
  let query = "";
  const alt = op.security.length ? rng.pick(op.security) : {};
  const schemes = Object.keys(alt);
  // An object naming two schemes (API key and JWT) is satisfied by either: send one or both.
  const chosen = schemes.length > 1 ? rng.pick([[schemes[0]], [schemes[1]], schemes]) : schemes;
  for (const s of chosen) {
    if (s === "bearerAuth") headers.authorization = `Bearer ${creds.jwt}`;
    else if (s === "apiKeyHeader") headers["x-api-key"] = creds.apiKey;
    else if (s === "adminKey") headers["x-api-key"] = creds.admin;
    else if (s === "collabSecret") headers["x-collab-secret"] = creds.collab;
    else if (s === "apiKeyQuery") query = `apikey=${encodeURIComponent(creds.apiKey)}`;
  }
  return { headers, query };
}

const BAD_AUTH: Record<string, string>[] = [
  {},
  { authorization: `Bearer ${"a".repeat(4000)}` },
  { authorization: "Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiIxIn0." },
  { authorization: "Basic YWRtaW46YWRtaW4=" },
  { "x-api-key": "cairn_live_0000000000000000" },
  { "x-collab-secret": "guess" },
];

const KNOWN_PARAMS = (): Record<string, string> => ({ tenant_id: svc.tenantId, cik: "0000320193" });

function pathWith(op: Operation, rng: Prng, hostile: string | null): string {
  let path = op.path;
  const params = op.parameters.filter((p) => p.in === "path");
  const target = hostile === null ? null : rng.pick(params).name;
  for (const p of params) {
    const known = KNOWN_PARAMS()[p.name];
    const value =
      p.name === target
        ? (hostile as string)
        : encodeURIComponent(known && rng.bool(0.5) ? known : String(sample(doc, p.schema, rng)));
    path = path.replace(`{${p.name}}`, value);
  }
  return path;
}

function queryWith(op: Operation, rng: Prng, mode: "valid" | "hostile" | "duplicate" | "unknown"): string {
  const parts: string[] = [];
  for (const p of op.parameters.filter((x) => x.in === "query")) {
    if (!p.required && rng.bool(0.5) && mode === "valid") continue;
    const value = encodeURIComponent(String(sample(doc, p.schema, rng)));
    if (mode === "hostile" && rng.bool(0.6)) parts.push(`${p.name}=${rng.pick(HOSTILE_QUERY)}`);
    else parts.push(`${p.name}=${value}`);
    if (mode === "duplicate") parts.push(`${p.name}=${rng.pick(HOSTILE_QUERY)}`);
  }
  if (mode === "unknown") parts.push(`zz_unknown=${rng.pick(HOSTILE_QUERY)}`, "=", "&&", "a[b]=1");
  return parts.join("&");
}

/** Body mutations of the valid-ish body: the JSON text, or a raw string sent as JSON. */
function bodyCases(op: Operation, rng: Prng): { label: string; body: string; type?: string }[] {
  const schema = resolve(doc, op.jsonBody ?? undefined);
  const valid = () => sample(doc, schema, rng) as Record<string, unknown>;
  const keys = Object.keys(schema.properties ?? {});
  const obj = (v: unknown) => (v !== null && typeof v === "object" && !Array.isArray(v) ? v : {}) as object;
  const cases = [
    { label: "valid-ish body", body: JSON.stringify(valid()) },
    { label: "valid-ish body again", body: JSON.stringify(valid()) },
    {
      label: "required field missing",
      body: JSON.stringify(
        Object.fromEntries(Object.entries(obj(valid())).filter(([k]) => k !== rng.pick(schema.required ?? ["_"]))),
      ),
    },
    { label: "extra field", body: JSON.stringify({ ...obj(valid()), zz_extra: hostileValue(rng), password: "pw" }) },
    { label: "root of the wrong type", body: JSON.stringify(rng.pick([[valid(), valid()], null, "x", 42, true])) },
    { label: "raw hostile body", body: rng.pick(HOSTILE_RAW_BODIES) },
    { label: "nested 100 deep", body: `{"a":${nested(100)}}` },
    { label: "nested 60 deep", body: `{"a":${nested(60)}}` },
    { label: "text/plain body", body: JSON.stringify(valid()), type: "text/plain" },
    { label: "form body", body: "a=1&b=2", type: "application/x-www-form-urlencoded" },
    { label: "json with charset", body: JSON.stringify(valid()), type: "application/json; charset=utf-16" },
  ];
  for (let i = 0; i < 4 && keys.length > 0; i++) {
    const k = rng.pick(keys);
    cases.push({ label: `field ${k} hostile`, body: JSON.stringify({ ...obj(valid()), [k]: hostileValue(rng) }) });
  }
  return cases;
}

function casesFor(op: Operation, rng: Prng): Case[] {
  const cases: Case[] = [];
  const add = (label: string, opts: { path?: string; query?: string; headers?: Record<string, string> }) => {
    const auth = authFor(op, rng);
    const q = [opts.query ?? queryWith(op, rng, "valid"), auth.query].filter(Boolean).join("&");
    cases.push({
      label,
      method: op.method,
      url: `${opts.path ?? pathWith(op, rng, null)}${q ? `?${q}` : ""}`,
      headers: { ...auth.headers, ...opts.headers },
    });
  };
  for (let i = 0; i < 3; i++) add("valid-ish request", {});
  for (const bad of BAD_AUTH.slice(0, 3)) {
    cases.push({ label: "bad credentials", method: op.method, url: pathWith(op, rng, null), headers: { ...bad } });
  }
  cases.push({
    label: "random bad credentials",
    method: op.method,
    url: pathWith(op, rng, null),
    headers: { ...rng.pick(BAD_AUTH) },
  });
  if (op.parameters.some((p) => p.in === "path")) {
    for (let i = 0; i < 4; i++) add("hostile path param", { path: pathWith(op, rng, rng.pick(HOSTILE_SEGMENTS)) });
  }
  if (op.parameters.some((p) => p.in === "query")) {
    for (const mode of ["hostile", "hostile", "duplicate", "unknown"] as const)
      add(`query ${mode}`, { query: queryWith(op, rng, mode) });
  } else add("unexpected query", { query: queryWith(op, rng, "unknown") });
  const before = cases.length;
  if (op.jsonBody) {
    for (const b of bodyCases(op, rng)) {
      add(b.label, { headers: { "content-type": b.type ?? "application/json" } });
      (cases.at(-1) as Case).body = b.body;
    }
  } else if (op.method !== "GET" && op.method !== "HEAD") {
    add("unexpected JSON body", { headers: { "content-type": "application/json" } });
    (cases.at(-1) as Case).body = JSON.stringify({ a: hostileValue(rng) });
    add("unexpected deep body", { headers: { "content-type": "application/json" } });
    (cases.at(-1) as Case).body = nested(5000);
  }
  // Body cases run with valid credentials only, so they reach the validator and the handler.
  for (const c of cases.slice(before)) c.headers = { ...c.headers, ...authFor(op, rng).headers };
  return cases;
}

async function send(c: Case): Promise<Outcome> {
  const res = await fetch(`${served.url}${c.url}`, { method: c.method, headers: c.headers, body: c.body });
  return { c, status: res.status, text: await res.text(), headers: res.headers };
}

/** Why an outcome breaks the contract, or null. */
function violation(o: Outcome): string | null {
  if (o.status >= 500 && !(o.status === 503 && o.headers.get("retry-after"))) return `status ${o.status}`;
  if (o.status < 400) return null;
  const bytes = Buffer.byteLength(o.text);
  if (bytes > PROBLEM_MAX_BYTES) return `error body of ${bytes} bytes`;
  if (!(o.headers.get("content-type") ?? "").includes("json")) return "error body is not JSON";
  let body: { detail?: unknown };
  try {
    body = JSON.parse(o.text) as { detail?: unknown };
  } catch {
    return "error body does not parse";
  }
  if (typeof body.detail === "string") return null;
  const items = Array.isArray(body.detail) ? (body.detail as Record<string, unknown>[]) : null;
  const ok = items?.every((i) => Array.isArray(i.loc) && typeof i.msg === "string" && typeof i.type === "string");
  return ok && items && items.length > 0 ? null : "not a problem document";
}

describe("OpenAPI fuzz: every operation, generated and hostile inputs", () => {
  test("no 5xx, every error a bounded problem document", async () => {
    const ops = operations(doc);
    expect(ops.length).toBeGreaterThan(40);
    const outcomes: Outcome[] = [];
    for (const [i, op] of ops.entries()) {
      const rng = prng((seed + i * 7919) >>> 0);
      for (let round = 0; round < ROUNDS; round++) {
        for (const c of casesFor(op, rng)) outcomes.push(await send(c));
      }
    }
    const failures = outcomes
      .map((o) => ({ o, why: violation(o) }))
      .filter((f) => f.why !== null)
      .map((f) => `${f.why}: ${f.o.c.method} ${f.o.c.url.slice(0, 160)} [${f.o.c.label}] -> ${f.o.text.slice(0, 200)}`);
    expect(failures).toEqual([]);
    // The cases reached past authentication and validation, not only the guards.
    const statuses = outcomes.map((o) => o.status);
    expect(outcomes.length).toBeGreaterThan(ops.length * 15 * ROUNDS);
    expect(statuses.filter((s) => s === 401).length).toBeLessThan(outcomes.length / 3);
    expect(statuses.filter((s) => s >= 200 && s < 300).length).toBeGreaterThan(ops.length);
    expect(statuses.filter((s) => s === 413).length).toBe(0);
    expect(statuses.filter((s) => s === 422).length).toBeGreaterThan(ops.length);
  }, 120_000);
});
