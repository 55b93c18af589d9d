/**
 * Shared set-up of the Foundry model suites: a test service on the embedded profile wired to a
 * real lab gateway, German credit (fixtures/ml/german_credit.csv) imported as a custom table and
 * built into a ready dataset, and the Python lab worker run on the service's embedded queue.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { GERMAN_CREDIT_COLUMNS } from "../cli/foundry-demo.ts";
import { FOUNDRY_TRAIN_QUEUE } from "../domain/foundry/models/lab-job.ts";
import type { TenantRef } from "../domain/tenants/namespaces.ts";
import { startTestService, type TestService } from "./harness.ts";
import { type GatewayHandle, LAB_PYTHON, startGateway } from "./lakehouse.ts";
import { waitFor } from "./wait.ts";

const ROOT = join(import.meta.dir, "..");

export interface ModelsFixture {
  gateway: GatewayHandle;
  svc: TestService;
  tenant: TenantRef;
  headers: Record<string, string>;
  /** A ready dataset over all of German credit. */
  datasetId: string;
  post(path: string, body: unknown): Promise<Response>;
  get(path: string): Promise<Response>;
  close(): Promise<void>;
}

/** Null when the lab's Python is not installed (the suites then do not run). */
export async function startModelsFixture(env: Record<string, string> = {}): Promise<ModelsFixture | null> {
  const gateway = await startGateway();
  if (!gateway) return null;
  const svc = await startTestService({
    CAIRN_LAKEHOUSE_URL: gateway.url,
    CAIRN_LAKEHOUSE_CATALOG_URI: `sqlite:///${join(gateway.dir, "catalog.db")}`,
    CAIRN_LAKEHOUSE_WAREHOUSE: join(gateway.dir, "warehouse"),
    ...env,
  });
  const row = await svc.service.store.getTenant(svc.tenantId);
  const tenant = { tenantId: svc.tenantId, slug: row?.slug as string };
  await svc.service.deps.foundry.tables.importFile(tenant, "german_credit", "replace", {
    bytes: new Uint8Array(readFileSync(join(ROOT, "fixtures/ml/german_credit.csv"))),
    opts: { format: "csv", header: false, columns: GERMAN_CREDIT_COLUMNS, delimiter: ",", nullValues: [] },
  });
  const headers = { authorization: `Bearer ${await svc.token("analyst@models.test", "enterprise")}` };
  const post = (path: string, body: unknown) =>
    svc.request(path, {
      method: "POST",
      headers: { ...headers, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  const get = (path: string) => svc.request(path, { headers });
  const fixture = { gateway, svc, tenant, headers, datasetId: "", post, get };
  fixture.datasetId = await buildDataset(fixture, "credit", "german_credit");
  return {
    ...fixture,
    close: async () => {
      await svc.close();
      await gateway.stop();
    },
  };
}

export interface LabWorker {
  proc: ChildProcess;
  /** Everything the worker wrote to stderr so far (its JSON log lines). */
  stderr(): string;
}

/** Creates a dataset over all of `table` through the API, builds it and waits until it is ready. */
export async function buildDataset(
  fx: Pick<ModelsFixture, "post" | "get">,
  name: string,
  table: string,
): Promise<string> {
  const created = (await (await fx.post("/v1/foundry/datasets", { name, source_tables: [{ table }] })).json()) as {
    id: string;
  };
  const build = await fx.post(`/v1/foundry/datasets/${created.id}/build`, {});
  if (build.status !== 200) throw new Error(`dataset build answered ${build.status}`);
  await waitFor(
    `the ${name} dataset to build`,
    async () => {
      const { datasets } = (await (await fx.get("/v1/foundry/datasets")).json()) as {
        datasets: { id: string; status: string; error: string | null }[];
      };
      const d = datasets.find((x) => x.id === created.id);
      if (d?.status === "error") throw new Error(`build failed: ${d.error}`);
      return d?.status === "ready";
    },
    { timeoutMs: 120_000, everyMs: 100 },
  );
  return created.id;
}

/** Imports a CSV file with a header line as the tenant's custom table `table`. */
export async function importCsv(fx: ModelsFixture, table: string, path: string): Promise<void> {
  await fx.svc.service.deps.foundry.tables.importFile(fx.tenant, table, "replace", {
    bytes: new Uint8Array(readFileSync(path)),
    opts: { format: "csv", header: true, columns: null, delimiter: ",", nullValues: [] },
  });
}

/**
 * Starts `lab.worker` on the service's embedded queue in its own process group (so a test can
 * kill it together with the algorithm processes it spawned). `once`: exit when no job is left.
 */
export function spawnLabWorker(svc: TestService, opts: { once?: boolean; leaseMs?: number } = {}): LabWorker {
  const cp = svc.service.config.controlPlane;
  if (cp.kind !== "sqlite") throw new Error("the embedded profile keeps the control plane in SQLite");
  const args = ["-m", "lab.worker", "--queue", FOUNDRY_TRAIN_QUEUE, "--sqlite", cp.path, "--poll-ms", "100"];
  if (opts.once) args.push("--once");
  if (opts.leaseMs) args.push("--lease-ms", String(opts.leaseMs));
  const proc = spawn(LAB_PYTHON, args, {
    cwd: join(ROOT, "lab"),
    detached: true,
    stdio: ["ignore", "ignore", "pipe"],
    env: { ...process.env, PYTHONUNBUFFERED: "1" },
  });
  let log = "";
  proc.stderr?.on("data", (b: Buffer) => {
    log = (log + b.toString()).slice(-100_000);
  });
  return { proc, stderr: () => log };
}

/** SIGKILL to the worker's whole process group: the worker and its algorithm processes. */
export async function killLabWorker({ proc }: LabWorker): Promise<void> {
  if (proc.pid === undefined || proc.exitCode !== null || proc.signalCode !== null) return;
  const exited = new Promise((resolve) => proc.once("exit", resolve));
  try {
    process.kill(-proc.pid, "SIGKILL");
  } catch {
    proc.kill("SIGKILL");
  }
  await exited;
}

/** Waits for a worker started with `once` to exit 0; returns its stderr (killed after timeoutMs). */
export async function labWorkerDone(worker: LabWorker, timeoutMs = 240_000): Promise<string> {
  const { proc } = worker;
  let timedOut = false;
  const code =
    proc.exitCode ??
    (await new Promise<number | null>((resolve) => {
      const timer = setTimeout(() => {
        timedOut = true;
        void killLabWorker(worker);
      }, timeoutMs);
      proc.once("exit", (c) => {
        clearTimeout(timer);
        resolve(c);
      });
    }));
  if (code !== 0) {
    const why = timedOut ? `was still running after ${timeoutMs / 1000} s and was killed` : `exited ${code}`;
    throw new Error(`lab worker ${why}; its log: ${worker.stderr().slice(-2000) || "(empty)"}`);
  }
  return worker.stderr();
}
