/**
 * The two servers bench/collab.ts compares, each alone in its own process: Cairn's rooms on Bun
 * (bench/collab-server.ts) and @hocuspocus/server on Node (bench/collab-hocuspocus.mjs), with the
 * same settings; and what the bench reads of them from outside (CPU time, memory).
 */
import { join } from "node:path";
import { freePort } from "./load.ts";

const root = join(import.meta.dir, "..");

export type Kind = "cairn" | "hocuspocus";

export interface ServerProc {
  kind: Kind;
  url: string;
  memUrl: string;
  pid: number;
  stop(): Promise<void>;
}

export async function startServer(kind: Kind): Promise<ServerProc> {
  const port = await freePort();
  const memPort = await freePort();
  const cmd =
    kind === "cairn"
      ? [
          process.execPath,
          ...(process.env.BENCH_CAIRN_FLAGS?.split(" ").filter(Boolean) ?? []),
          "bench/collab-server.ts",
          String(port),
        ]
      : ["node", "--expose-gc", "bench/collab-hocuspocus.mjs", String(port), String(memPort)];
  const proc = Bun.spawn(cmd, { cwd: root, stdout: "pipe", stderr: "inherit", env: { ...process.env } });
  const reader = proc.stdout.getReader();
  let out = "";
  while (!out.includes("ready")) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`${kind} server exited before it was ready`);
    out += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  const memUrl = kind === "cairn" ? `http://127.0.0.1:${port}/mem` : `http://127.0.0.1:${memPort}/mem`;
  return {
    kind,
    url: kind === "cairn" ? `ws://127.0.0.1:${port}/v1/editor/collab` : `ws://127.0.0.1:${port}`,
    memUrl,
    pid: proc.pid,
    stop: async () => {
      proc.kill("SIGTERM");
      await proc.exited;
    },
  };
}

/** utime + stime of a process, in seconds (Linux /proc). */
export async function cpuSeconds(pid: number): Promise<number> {
  const stat = await Bun.file(`/proc/${pid}/stat`).text();
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

export async function memory(s: ServerProc): Promise<{ rss: number; heapUsed: number; rooms: number; conns: number }> {
  return (await (await fetch(s.memUrl)).json()) as { rss: number; heapUsed: number; rooms: number; conns: number };
}
