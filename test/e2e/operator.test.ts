/**
 * The operator interface of the README, run as a user would: the CLI commands, the
 * service process on PORT/CAIRN_DATA_DIR, and graceful shutdown on SIGTERM.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort, waitForUrl } from "../../bench/load.ts";

const root = join(import.meta.dir, "..", "..");
let dataDir: string;
let env: Record<string, string>;

function cli(...args: string[]): { code: number; out: string; err: string } {
  const r = Bun.spawnSync([process.execPath, "run", "--silent", "cli", ...args], { cwd: root, env });
  return { code: r.exitCode ?? -1, out: r.stdout.toString().trim(), err: r.stderr.toString() };
}

beforeAll(() => {
  dataDir = mkdtempSync(join(tmpdir(), "cairn-op-"));
  env = { ...(process.env as Record<string, string>), CAIRN_DATA_DIR: dataDir, CAIRN_LOG_LEVEL: "info" };
});
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe("operator CLI", () => {
  test("seed is idempotent; token, apikey and admin-key print working values", async () => {
    const first = cli("seed");
    expect(first.code).toBe(0);
    const again = cli("seed");
    expect(JSON.parse(again.out)).toEqual(JSON.parse(first.out));

    // The demo tenant gets its engine namespaces at seed: its users can use them at once.
    const demoToken = cli("token", "--email", "demo@cairn.local").out;
    const demoKey = cli("apikey", "--email", "demo@cairn.local", "--label", "operator-test").out;

    const token = cli("token", "--email", "op@example.com", "--tier", "pro");
    expect(token.code).toBe(0);
    expect(token.out.split(".")).toHaveLength(3);
    const key = cli("apikey", "--email", "op@example.com");
    expect(key.out).toMatch(/^cairn_[0-9a-f]{8}_[A-Za-z0-9_-]{43}$/);
    const admin = cli("admin-key");
    expect(admin.out).toMatch(/^cairn_admin_/);
    expect(cli("admin-key").out).toBe(admin.out);

    expect(cli("token").code).toBe(2);
    expect(cli("token", "--email", "x@example.com", "--tier", "gold").err).toContain("--tier");
    expect(cli("frobnicate").code).toBe(2);

    // A free account holds one key: the second is refused with a clear message.
    expect(cli("apikey", "--email", "free-op@example.com", "--tier", "free").code).toBe(0);
    const over = cli("apikey", "--email", "free-op@example.com");
    expect(over.code).toBe(2);
    expect(over.err).toContain("limit");

    // The service started on the same data dir accepts them.
    const port = await freePort();
    const proc = Bun.spawn([process.execPath, "main.ts"], {
      cwd: root,
      env: { ...env, PORT: String(port), HOST: "127.0.0.1" },
      stdout: "pipe",
      stderr: "pipe",
    });
    try {
      await waitForUrl(`http://127.0.0.1:${port}/healthz`);
      const me = await fetch(`http://127.0.0.1:${port}/v1/user/me`, {
        headers: { authorization: `Bearer ${token.out}` },
      });
      expect(me.status).toBe(200);
      expect(((await me.json()) as { email: string; tier: string }).tier).toBe("pro");
      const tables = await fetch(`http://127.0.0.1:${port}/v1/rtdb/tables`, {
        headers: { authorization: `Bearer ${demoToken}` },
      });
      expect(tables.status).toBe(200);
      const search = await fetch(`http://127.0.0.1:${port}/v1/documents/search`, {
        method: "POST",
        headers: { "x-api-key": demoKey, "content-type": "application/json" },
        body: JSON.stringify({ query: "revenue" }),
      });
      expect(search.status).toBe(200);

      // Graceful shutdown: SIGTERM drains and exits 0, logging JSON lines with request ids.
      proc.kill("SIGTERM");
      expect(await proc.exited).toBe(0);
      const lines = (await new Response(proc.stdout).text())
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      const access = lines.find((l) => l.msg === "request" && l.path === "/v1/user/me");
      expect(access?.request_id).toBeString();
      expect(access?.tenant_id).toBeString();
      expect(access?.status).toBe(200);
      expect(lines.at(-1)?.msg).toBe("shutdown complete");
    } finally {
      proc.kill("SIGKILL");
    }
  }, 60_000);
});
