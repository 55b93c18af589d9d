/**
 * Error mapping and deadlines of the gateway client against a tiny fake gateway. What the
 * gateway does with the calls is tested against the real one (pipelines/lakehouse/sync).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Server } from "bun";
import { AppError } from "../../domain/errors.ts";
import { GatewayLakehouse } from "./gateway-client.ts";

const TOKEN = "lab-token-0123456789";
let server: Server<undefined>;
let url: string;
const seen: { path: string; token: string | null; body: string }[] = [];

beforeAll(() => {
  server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      const path = new URL(req.url).pathname;
      seen.push({ path, token: req.headers.get("x-lab-token"), body: await req.text() });
      if (req.headers.get("x-lab-token") !== TOKEN) return Response.json({ detail: "bad token" }, { status: 401 });
      switch (path) {
        case "/health":
          return Response.json({ status: "ok", catalog: "sql", engine: "duckdb", warehouse: "/w" });
        case "/namespaces/svc_tenant_acme":
          return Response.json({ detail: "no such namespace" }, { status: 404 });
        case "/tables/ns/t/snapshot":
          return Response.json({ detail: "no such table" }, { status: 404 });
        case "/tables/ns/bad/write":
          return Response.json({ detail: "column x: cannot cast 'abc' to long" }, { status: 400 });
        case "/tables/ns/busy/write":
          return Response.json({ detail: "commit conflict" }, { status: 409 });
        case "/tables/ns/boom/write":
          return Response.json({ detail: "Traceback..." }, { status: 500 });
        case "/tables/ns/html/schema":
          return new Response("<html>proxy error</html>", { status: 502 });
        case "/tables/ns/slow/schema":
          await Bun.sleep(500);
          return Response.json({ columns: [] });
        default:
          return Response.json({ detail: "not found" }, { status: 404 });
      }
    },
  });
  url = `http://127.0.0.1:${server.port}`;
});
afterAll(() => server.stop(true));

async function failure(p: Promise<unknown>): Promise<AppError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    return err as AppError;
  }
  throw new Error("expected the call to fail");
}

describe("GatewayLakehouse against a fake gateway", () => {
  const client = () => new GatewayLakehouse({ url: `${url}/`, token: TOKEN, timeoutMs: 200 });
  const write = { mode: "append" as const, columns: [{ name: "x", type: "long" }], rows: [[1]] };

  test("health is ok, sends the lab token, and never throws", async () => {
    expect(await client().health()).toEqual({ status: "ok", catalog: "sql", engine: "duckdb", warehouse: "/w" });
    expect(seen.at(-1)?.token).toBe(TOKEN);
    const noToken = await new GatewayLakehouse({ url }).health();
    expect(noToken.status).toBe("unavailable");
    expect(noToken).toMatchObject({ error: expect.stringContaining("CAIRN_LAB_TOKEN") });
    // Nothing listens on port 9 (discard) of loopback in the test environment.
    const down = await new GatewayLakehouse({ url: "http://127.0.0.1:9", healthTimeoutMs: 500 }).health();
    expect(down).toMatchObject({ status: "unavailable", error: expect.stringContaining("unreachable") });
  });

  test("gateway statuses map to AppError codes with the gateway's detail", async () => {
    expect((await failure(client().write("ns", "bad", write))).code).toBe("bad_request");
    const bad = await failure(client().write("ns", "bad", write));
    expect(bad.message).toBe(
      "Lakehouse gateway POST /tables/ns/bad/write failed (400): column x: cannot cast 'abc' to long",
    );
    expect((await failure(client().write("ns", "busy", write))).code).toBe("conflict");
    const boom = await failure(client().write("ns", "boom", write));
    expect(boom.code).toBe("unavailable");
    expect(boom.status).toBe(503);
    const html = await failure(client().tableSchema("ns", "html"));
    expect(html.message).toContain("non-JSON body");
    const unauth = await failure(new GatewayLakehouse({ url, token: "wrong-token-0123456789" }).listNamespaces());
    expect(unauth.code).toBe("internal");
    expect(unauth.message).not.toContain("wrong-token");
  });

  test("404 means absent where the port says so", async () => {
    expect(await client().snapshotProperties("ns", "t")).toBeNull();
    expect(await client().namespaceExists({ tenantId: "x", slug: "acme" })).toBe(false);
    expect((await failure(client().tableSchema("ns", "nope"))).code).toBe("not_found");
  });

  test("a slow gateway fails at the deadline with a clear message", async () => {
    const err = await failure(client().tableSchema("ns", "slow"));
    expect(err.code).toBe("unavailable");
    expect(err.message).toBe("Lakehouse gateway did not answer GET /tables/ns/slow/schema within 200 ms");
  });

  test("names are checked before any request is sent", async () => {
    const before = seen.length;
    const err = await failure(client().write("ns", "../etc", write));
    expect(err.code).toBe("bad_request");
    expect(await failure(client().listTables("Bad-NS"))).toMatchObject({ code: "bad_request" });
    expect(seen.length).toBe(before);
  });
});
