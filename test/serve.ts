/**
 * A real HTTP + WebSocket server for a Service on a free port (STYLE habit 12: real
 * sockets, `Bun.serve({port: 0})`), for tests that need actual clients.
 */
import { join } from "node:path";
import type { Server, Subprocess } from "bun";
import { freePort, waitForUrl } from "../bench/load.ts";
import type { Service } from "../main.ts";
import type { SocketData } from "../sockets/index.ts";

export interface Served {
  server: Server<SocketData>;
  /** http://127.0.0.1:<port> */
  url: string;
  /** ws://127.0.0.1:<port> */
  wsUrl: string;
  stop(): Promise<void>;
}

export function serve(service: Service): Served {
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch: service.fetch,
    websocket: service.websocket,
  });
  const url = `http://127.0.0.1:${server.port}`;
  return { server, url, wsUrl: url.replace(/^http/, "ws"), stop: () => server.stop(true) };
}

export interface ServiceProcess {
  proc: Subprocess<"ignore", "ignore", "inherit">;
  /** http://127.0.0.1:<port> */
  url: string;
  /** ws://127.0.0.1:<port> */
  wsUrl: string;
}

/**
 * The real process, `bun main.ts`, on a free loopback port with the given environment on top
 * of this one, once /healthz answers: for tests of what only a process has (SIGTERM, restarts).
 */
export async function spawnService(env: Record<string, string>): Promise<ServiceProcess> {
  const port = await freePort();
  const proc = Bun.spawn([process.execPath, "main.ts"], {
    cwd: join(import.meta.dir, ".."),
    env: {
      ...(process.env as Record<string, string>),
      CAIRN_LOG_LEVEL: "warn",
      HOST: "127.0.0.1",
      PORT: String(port),
      ...env,
    },
    stdin: "ignore",
    stdout: "ignore",
    stderr: "inherit",
  });
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitForUrl(`${url}/healthz`);
  } catch (err) {
    proc.kill("SIGKILL");
    await proc.exited;
    throw err;
  }
  return { proc, url, wsUrl: url.replace(/^http/, "ws") };
}
