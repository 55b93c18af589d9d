/** Liveness and readiness probes (no authentication). */
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../context.ts";
import type { AppDeps } from "../../deps.ts";

export function registerOpsRoutes(app: OpenAPIHono<AppEnv>, deps: AppDeps): void {
  app.get("/healthz", (c) => c.json({ status: "ok" }));

  app.get("/readyz", async (c) => {
    if (deps.draining?.()) return c.json({ status: "draining" }, 503);
    const checks: Record<string, string> = {};
    const probe = async (name: string, fn: () => Promise<void>) => {
      try {
        await Promise.race([fn(), Bun.sleep(2_000).then(() => Promise.reject(new Error("timeout")))]);
        checks[name] = "ok";
      } catch (err) {
        checks[name] = `error: ${err instanceof Error ? err.message : String(err)}`;
      }
    };
    await Promise.all([
      probe("control_plane", () => deps.store.ping()),
      probe("queue", () => deps.queue.ping()),
      probe("counters", () => deps.counters.ping()),
    ]);
    const ok = Object.values(checks).every((v) => v === "ok");
    return c.json({ status: ok ? "ready" : "not_ready", profile: deps.config.profile, checks }, ok ? 200 : 503);
  });
}
