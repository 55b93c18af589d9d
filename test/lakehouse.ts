/**
 * Starts the lab's lakehouse gateway (Python) for a test: a temp warehouse and SQLite
 * catalog, port chosen by the gateway and read from its first JSON line.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const ROOT = join(import.meta.dir, "..");
export const LAB_PYTHON = join(ROOT, "lab", ".venv", "bin", "python");

export interface GatewayHandle {
  url: string;
  dir: string;
  stop(): Promise<void>;
}

/** The gateway, or undefined (with a note) when the lab venv is missing outside CI. */
export async function startGateway(
  opts: {
    engine?: "duckdb" | "spark";
    token?: string /** Share another gateway's warehouse and catalog (not removed on stop). */;
    dir?: string;
  } = {},
): Promise<GatewayHandle | undefined> {
  if (!existsSync(LAB_PYTHON)) {
    if (process.env.CI)
      throw new Error(`${LAB_PYTHON} is missing: the lab venv must exist under CI (scripts/setup.sh --lab)`);
    process.stderr.write("[skip] lakehouse gateway: lab/.venv is missing (run scripts/setup.sh --lab ...)\n");
    return undefined;
  }
  const dir = opts.dir ?? mkdtempSync(join(tmpdir(), "cairn-lake-"));
  const args = [
    LAB_PYTHON,
    "-m",
    "lab.lakehouse.gateway",
    "--host",
    "127.0.0.1",
    "--port",
    "0",
    "--warehouse",
    join(dir, "warehouse"),
    "--catalog-uri",
    `sqlite:///${join(dir, "catalog.db")}`,
    "--engine",
    opts.engine ?? "duckdb",
  ];
  if (opts.token) args.push("--token", opts.token);
  const proc = Bun.spawn(args, { cwd: join(ROOT, "lab"), stdout: "pipe", stderr: "inherit" });
  const reader = proc.stdout.getReader();
  let buffered = "";
  const deadline = Date.now() + 60_000;
  let port: number | undefined;
  while (port === undefined) {
    if (Date.now() > deadline) throw new Error("lakehouse gateway did not start within 60 s");
    const { value, done } = await reader.read();
    if (done) throw new Error(`lakehouse gateway exited early (code ${await proc.exited})`);
    buffered += new TextDecoder().decode(value);
    for (const line of buffered.split("\n")) {
      try {
        const msg = JSON.parse(line) as { port?: number };
        if (typeof msg.port === "number") port = msg.port;
      } catch {
        // not a JSON line (yet)
      }
    }
  }
  reader.releaseLock();
  // Keep draining stdout so the gateway never blocks on a full pipe.
  void proc.stdout.pipeTo(new WritableStream()).catch(() => {});
  return {
    url: `http://127.0.0.1:${port}`,
    dir,
    stop: async () => {
      proc.kill("SIGTERM");
      await proc.exited;
      if (!opts.dir) rmSync(dir, { recursive: true, force: true });
    },
  };
}
