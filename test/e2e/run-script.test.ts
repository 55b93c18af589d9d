/**
 * The run command (scripts/run.sh) for real, in a temp data directory on a free port
 * (issue 13): whichever way it ends (SIGKILL, SIGTERM, Ctrl-C, or the service crashing),
 * none of the processes it started outlives it, the lakehouse gateway included; and a
 * restart prints the same demo API key, which keeps working.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort, waitForUrl } from "../../bench/load.ts";
import { LAB_PYTHON } from "../lakehouse.ts";

const root = join(import.meta.dir, "..", "..");

interface Proc {
  pid: number;
  ppid: number;
  zombie: boolean;
}

function processes(): Map<number, Proc> {
  const out = new Map<number, Proc>();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      // "pid (comm) state ppid ...": comm may hold spaces and parentheses.
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      const [state, ppid] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      out.set(Number(name), { pid: Number(name), ppid: Number(ppid), zombie: state === "Z" || state === "X" });
    } catch {
      // exited while we looked
    }
  }
  return out;
}

/** Every live process below `pid`. */
function descendants(pid: number): number[] {
  const all = [...processes().values()];
  const found: number[] = [];
  const queue = [pid];
  while (queue.length > 0) {
    const parent = queue.shift();
    for (const p of all) {
      if (p.ppid === parent && !p.zombie) {
        found.push(p.pid);
        queue.push(p.pid);
      }
    }
  }
  return found;
}

function cmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ");
  } catch {
    return "";
  }
}

const alive = (pids: number[]) => {
  const now = processes();
  return pids.filter((p) => now.has(p) && !now.get(p)?.zombie);
};

/** The command lines of those of `pids` still alive after the timeout (none, normally). */
async function allGone(pids: number[], timeoutMs = 40_000): Promise<string[]> {
  const until = Date.now() + timeoutMs;
  let left = alive(pids);
  while (left.length > 0 && Date.now() < until) {
    await Bun.sleep(100);
    left = alive(pids);
  }
  return left.map((p) => cmdline(p) || String(p));
}

const venv = existsSync(LAB_PYTHON);
if (!venv) {
  if (process.env.CI)
    throw new Error(`${LAB_PYTHON} is missing: the lab venv must exist under CI (scripts/setup.sh --lab)`);
  process.stderr.write("[skip] run command: lab/.venv is missing (run scripts/setup.sh --lab queue,lakehouse)\n");
}

describe.if(venv)("scripts/run.sh", () => {
  let dataDir: string;
  let port: number;
  const started: number[] = [];

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), "cairn-run-"));
    port = await freePort();
  });
  afterAll(() => {
    // A failed assertion must not leave the stack running.
    for (const p of alive(started)) process.kill(p, "SIGKILL");
    rmSync(dataDir, { recursive: true, force: true });
  });

  async function start() {
    const proc = Bun.spawn(["bash", "scripts/run.sh"], {
      cwd: root,
      env: {
        ...(process.env as Record<string, string>),
        CAIRN_DATA_DIR: dataDir,
        PORT: String(port),
        CAIRN_RUN_SKIP_DEMO_DATA: "1",
        CAIRN_LOG_LEVEL: "warn",
      },
      stdout: "pipe",
      stderr: "pipe",
    });
    let out = "";
    let err = "";
    const decoder = new TextDecoder();
    const keepStderr = (c: Uint8Array) => {
      err += decoder.decode(c);
    };
    void proc.stderr.pipeTo(new WritableStream({ write: keepStderr })).catch(() => {});
    const reader = proc.stdout.getReader();
    while (!/API key: +(\S+)/.test(out)) {
      const chunk = await reader.read();
      if (chunk.done) throw new Error(`run.sh ended before printing the key (exit ${await proc.exited}):\n${err}`);
      out += decoder.decode(chunk.value);
    }
    reader.releaseLock();
    void proc.stdout.pipeTo(new WritableStream()).catch(() => {});
    const key = /API key: +(\S+)/.exec(out)?.[1] ?? "";
    await waitForUrl(`http://127.0.0.1:${port}/healthz`, 90_000);
    const pids = descendants(proc.pid);
    started.push(proc.pid, ...pids);
    const gateway = pids.find((p) => cmdline(p).includes("lab.lakehouse.gateway"));
    const service = pids.find((p) => cmdline(p).includes("main.ts"));
    expect(gateway).toBeDefined();
    expect(service).toBeDefined();
    // Children started after the service became healthy count too.
    const everyone = () => [...new Set([...pids, ...descendants(proc.pid)])];
    return { proc, key, pids, everyone, gateway: gateway ?? 0, service: service ?? 0 };
  }

  const news = (key: string) =>
    fetch(`http://127.0.0.1:${port}/v1/news`, { headers: { "x-api-key": key } }).then((r) => r.status);

  let firstKey = "";

  test("SIGKILL of the script takes every child down, the gateway included", async () => {
    const run = await start();
    firstKey = run.key;
    expect(await news(run.key)).toBe(200);
    expect(await news(`${run.key.slice(0, -2)}xx`)).toBe(401);
    expect(statSync(join(dataDir, "demo-api-key")).mode & 0o777).toBe(0o600);
    const pids = run.everyone();
    run.proc.kill("SIGKILL");
    await run.proc.exited;
    expect(await allGone(pids)).toEqual([]);
  }, 180_000);

  test("a restart prints the same demo key, which still works; SIGTERM stops everything", async () => {
    const run = await start();
    expect(run.key).toBe(firstKey);
    expect(await news(run.key)).toBe(200);
    const pids = run.everyone();
    run.proc.kill("SIGTERM");
    expect(await run.proc.exited).toBe(143);
    expect(await allGone(pids)).toEqual([]);
  }, 180_000);

  test("Ctrl-C (SIGINT) stops everything", async () => {
    const run = await start();
    expect(run.key).toBe(firstKey);
    const pids = run.everyone();
    run.proc.kill("SIGINT");
    expect(await run.proc.exited).toBe(130);
    expect(await allGone(pids)).toEqual([]);
  }, 180_000);

  test("the service crashing ends the run and takes the gateway down", async () => {
    const run = await start();
    const pids = run.everyone();
    process.kill(run.service, "SIGKILL");
    expect(await run.proc.exited).toBe(137);
    expect(await allGone([run.gateway])).toEqual([]);
    expect(await allGone(pids)).toEqual([]);
  }, 180_000);
});
