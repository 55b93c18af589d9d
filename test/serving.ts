/**
 * Starts MLServer for a test (python -m lab.serving.serve from lab/.venv-serve) on a model
 * repository folder, in its own process group, and waits until it answers /v2/health/ready.
 * Like test/lakehouse.ts startGateway: undefined (with a note) when the venv is missing outside CI.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { waitFor } from "./wait.ts";

const ROOT = join(import.meta.dir, "..");
export const SERVE_PYTHON = join(ROOT, "lab", ".venv-serve", "bin", "python");

export interface MlserverHandle {
  url: string;
  repository: string;
  /** The service's environment for this server. */
  env: Record<string, string>;
  /** Everything MLServer wrote so far (its log). */
  log(): string;
  stop(): Promise<void>;
}

export async function startMlserver(repository: string): Promise<MlserverHandle | undefined> {
  if (!existsSync(SERVE_PYTHON)) {
    if (process.env.CI) throw new Error(`${SERVE_PYTHON} is missing: the serve venv must exist under CI`);
    process.stderr.write("[skip] MLServer: lab/.venv-serve is missing (scripts/setup.sh --serve)\n");
    return undefined;
  }
  const proc: ChildProcess = spawn(SERVE_PYTHON, ["-m", "lab.serving.serve", "--repository", repository], {
    cwd: join(ROOT, "lab"),
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, PYTHONUNBUFFERED: "1" },
  });
  let out = "";
  let port: number | undefined;
  const take = (b: Buffer) => {
    out = (out + b.toString()).slice(-200_000);
    const m = /\{"port": (\d+)/.exec(out);
    if (m && port === undefined) port = Number(m[1]);
  };
  proc.stdout?.on("data", take);
  proc.stderr?.on("data", take);
  const stop = async () => {
    if (proc.pid === undefined || proc.exitCode !== null || proc.signalCode !== null) return;
    const exited = new Promise((resolve) => proc.once("exit", resolve));
    try {
      process.kill(-proc.pid, "SIGTERM");
    } catch {
      proc.kill("SIGTERM");
    }
    const timer = setTimeout(() => {
      try {
        process.kill(-(proc.pid as number), "SIGKILL");
      } catch {
        // already gone
      }
    }, 15_000);
    await exited;
    clearTimeout(timer);
  };
  try {
    await waitFor(
      "MLServer to answer ready",
      async () => {
        if (proc.exitCode !== null) throw new Error(`MLServer exited ${proc.exitCode}: ${out.slice(-2000)}`);
        if (port === undefined) return false;
        try {
          const res = await fetch(`http://127.0.0.1:${port}/v2/health/ready`, { signal: AbortSignal.timeout(2_000) });
          await res.body?.cancel();
          return res.ok;
        } catch {
          return false;
        }
      },
      { timeoutMs: 120_000, everyMs: 200 },
    );
  } catch (err) {
    await stop();
    throw err;
  }
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    repository,
    env: { CAIRN_FOUNDRY_INFERENCE_URL: url, CAIRN_FOUNDRY_INFERENCE_REPOSITORY: repository },
    log: () => out,
    stop,
  };
}
