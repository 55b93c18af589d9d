/**
 * A real HTTP + WebSocket server for a Service on a free port (STYLE habit 12: real
 * sockets, `Bun.serve({port: 0})`), for tests that need actual clients.
 */
import type { Server } from "bun";
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
