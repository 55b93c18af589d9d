/**
 * A crash (the process killed mid-step, after the step's work and before its checkpoint)
 * resumes on restart and still leaves exactly one of everything.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SqliteDocumentIndex } from "../../adapters/docindex/index.ts";
import { LadybugGraph } from "../../adapters/graph/index.ts";
import { GatewayLakehouse } from "../../adapters/lakehouse/index.ts";
import { DuckDbTimeSeries } from "../../adapters/rtdb/index.ts";
import { freePort, waitForUrl } from "../../bench/load.ts";
import { type GatewayHandle, startGateway } from "../lakehouse.ts";

const root = join(import.meta.dir, "..", "..");
let dataDir: string;
let gateway: GatewayHandle | undefined;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "cairn-crash-"));
  gateway = await startGateway();
}, 90_000);
afterAll(async () => {
  await gateway?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

function env(extra: Record<string, string>): Record<string, string> {
  return {
    ...(process.env as Record<string, string>),
    CAIRN_DATA_DIR: dataDir,
    CAIRN_LOG_LEVEL: "warn",
    CAIRN_TEST_FAULTS: "1",
    CAIRN_JOB_LEASE_MS: "400",
    HOST: "127.0.0.1",
    ...(gateway ? { CAIRN_LAKEHOUSE_URL: gateway.url } : {}),
    ...extra,
  };
}

async function boot(plan: string | undefined) {
  const port = await freePort();
  const proc = Bun.spawn([process.execPath, "main.ts"], {
    cwd: root,
    env: env({ PORT: String(port), ...(plan ? { CAIRN_TEST_FAULT_PLAN: plan } : {}) }),
    stdout: "ignore",
    stderr: "inherit",
  });
  await waitForUrl(`http://127.0.0.1:${port}/healthz`);
  return { proc, base: `http://127.0.0.1:${port}` };
}

test("a process killed mid-step resumes on restart and finishes active", async () => {
  const adminKey = Bun.spawnSync([process.execPath, "cli/index.ts", "admin-key"], { cwd: root, env: env({}) })
    .stdout.toString()
    .trim();
  const headers = { "x-api-key": adminKey, "content-type": "application/json" };

  // Run 1 dies after step 3's work (index created, checkpoint not written).
  const first = await boot("step_3:crash_after");
  const created = await fetch(`${first.base}/v1/admin/tenants`, {
    method: "POST",
    headers,
    body: JSON.stringify({ slug: "crashy", display_name: "Crashy", tier: "pilot", region: "us" }),
  });
  expect(created.status).toBe(202);
  const { tenant_id } = (await created.json()) as { tenant_id: string };
  expect(await first.proc.exited).toBe(137);

  // Run 2 picks the job up again after its lease and dies after step 8's work.
  const second = await boot("step_8:crash_after");
  expect(await second.proc.exited).toBe(137);

  // Run 3 finishes.
  const third = await boot(undefined);
  let status: { provisioning_state: string; completed_steps: string[] } = {
    provisioning_state: "",
    completed_steps: [],
  };
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    status = (await (await fetch(`${third.base}/v1/admin/tenants/crashy/status`, { headers })).json()) as typeof status;
    if (status.provisioning_state !== "provisioning") break;
    await Bun.sleep(50);
  }
  third.proc.kill("SIGTERM");
  expect(await third.proc.exited).toBe(0);
  expect(status.provisioning_state).toBe("active");
  expect(status.completed_steps).toEqual(Array.from({ length: 9 }, (_, i) => `step_${i + 1}`));

  // Exactly one of everything, read straight from the engines' files.
  const ref = { tenantId: tenant_id, slug: "crashy" };
  const ports = [
    new SqliteDocumentIndex({ dataDir }),
    new DuckDbTimeSeries({ dataDir }),
    new LadybugGraph({ dataDir }),
    ...(gateway ? [new GatewayLakehouse({ url: gateway.url })] : []),
  ];
  for (const p of ports) {
    expect((await p.listNamespaces()).filter((n) => n === p.namespaceOf(ref))).toHaveLength(1);
    await p.close();
  }
  const { SqliteClient } = await import("../../adapters/sql/index.ts");
  const sql = new SqliteClient(join(dataDir, "control-plane.sqlite"));
  const keys = await sql.all(
    "SELECT k.id FROM api_keys k JOIN users u ON u.id = k.user_id WHERE u.tenant_id = ? AND k.label = 'initial'",
    [tenant_id],
  );
  expect(keys).toHaveLength(1);
  await sql.close();
}, 120_000);
