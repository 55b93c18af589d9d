/**
 * Composition root: parse config, build the service (composition/: the adapters the profile
 * names, the actors, the workers), serve HTTP. Only it and composition/ wire adapters in.
 */
import type { Server } from "bun";
import { buildService, type Service } from "./composition/index.ts";
import { type Config, ConfigError, loadConfig } from "./config.ts";
import type { SocketData } from "./sockets/index.ts";

export {
  buildService,
  openControlPlane,
  openDocumentIndex,
  openFinancials,
  openTimeSeries,
  type Service,
  type ServiceOptions,
} from "./composition/index.ts";

/** Starts the HTTP server and wires graceful shutdown on SIGTERM/SIGINT. */
export async function startServer(config: Config): Promise<{ server: Server<SocketData>; service: Service }> {
  const service = await buildService(config);
  const { logger } = service.deps;
  const server = Bun.serve({
    port: config.port,
    hostname: config.host,
    fetch: service.fetch,
    websocket: service.websocket,
    idleTimeout: 60,
  });
  logger.info({ url: `http://localhost:${server.port}`, profile: config.profile }, "cairn listening");

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, "shutting down: draining in-flight requests and jobs");
    const timer = setTimeout(() => {
      logger.error({ timeout_ms: config.shutdownTimeoutMs }, "shutdown timed out; exiting");
      process.exit(1);
    }, config.shutdownTimeoutMs);
    // stop(false): stop accepting, let in-flight requests finish. It also waits for open
    // sockets, so the collaboration rooms save and close theirs meanwhile.
    const httpStopped = server.stop(false);
    await service.closeSockets();
    await httpStopped;
    await service.close();
    clearTimeout(timer);
    logger.info("shutdown complete");
    process.exit(0);
  };
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  process.on("SIGINT", () => void shutdown("SIGINT"));
  return { server, service };
}

if (import.meta.main) {
  let config: Config;
  try {
    config = loadConfig();
  } catch (err) {
    process.stderr.write(`${err instanceof ConfigError ? err.message : String(err)}\n`);
    process.exit(1);
  }
  await startServer(config);
}
