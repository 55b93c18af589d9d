/** --tenant and --role of `token` / `apikey`: the right tenant and role, and no silent fallback. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openControlPlane } from "../composition/cli.ts";
import { loadConfig } from "../config.ts";
import type { ControlPlaneStore } from "../domain/ports.ts";
import { cliUser } from "./credentials.ts";
import { DEMO_TENANT_SLUG } from "./demo-seed.ts";

let dir: string;
let store: ControlPlaneStore;
let otherId: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "cairn-cli-"));
  store = await openControlPlane(loadConfig({ CAIRN_DATA_DIR: dir, CAIRN_LOG_LEVEL: "silent", NODE_ENV: "test" }));
  const other = await store.createTenant({
    slug: "other-fund",
    display_name: "Other Fund",
    tier: "enterprise",
    region: "local",
    provisioning_state: "active",
    is_active: true,
  });
  otherId = other.tenant_id;
  await store.ensureTenantRoles(otherId, [
    { role: "viewer", description: "r" },
    { role: "analyst", description: "custom" },
  ]);
});
afterAll(async () => {
  await store?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("cli credentials --tenant / --role", () => {
  test("without --tenant the user lands in the demo tenant", async () => {
    const u = await cliUser(store, { email: "a@demo.test" });
    expect(u.tenant_id).toBe((await store.getTenantBySlug(DEMO_TENANT_SLUG))?.tenant_id as string);
  });

  test("--tenant and --role mint the user in that tenant with that role", async () => {
    const u = await cliUser(store, { email: "b@other.test", tenant: "other-fund", role: "analyst" });
    expect(u.tenant_id).toBe(otherId);
    expect(u.roles).toEqual(["analyst"]);
    // Asking again with another role updates it.
    const again = await cliUser(store, { email: "b@other.test", tenant: "other-fund", role: "viewer" });
    expect(again.id).toBe(u.id);
    expect(again.roles).toEqual(["viewer"]);
  });

  test("an unknown slug, an unknown role or another tenant's e-mail is an error", async () => {
    await expect(cliUser(store, { email: "c@x.test", tenant: "no-such-fund" })).rejects.toThrow(
      "unknown tenant 'no-such-fund'",
    );
    await expect(cliUser(store, { email: "c@x.test", tenant: "other-fund", role: "owner" })).rejects.toThrow(
      "unknown role 'owner'",
    );
    await expect(cliUser(store, { email: "a@demo.test", tenant: "other-fund" })).rejects.toThrow("another tenant");
    expect(await store.getUserByEmail("c@x.test")).toBeNull();
  });

  test("the CLI exits non-zero with the message on an unknown slug", async () => {
    const proc = Bun.spawn(
      [process.execPath, "run", join(import.meta.dir, "index.ts"), "token", "--email", "d@x.test", "--tenant", "nope"],
      { env: { ...process.env, CAIRN_DATA_DIR: dir, CAIRN_LOG_LEVEL: "silent" }, stdout: "pipe", stderr: "pipe" },
    );
    const [code, out, err] = await Promise.all([
      proc.exited,
      new Response(proc.stdout).text(),
      new Response(proc.stderr).text(),
    ]);
    expect(code).not.toBe(0);
    expect(out).toBe("");
    expect(err).toContain("unknown tenant 'nope'");
  }, 30_000);
});
