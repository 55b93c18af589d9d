/** Liveness and readiness probes (no authentication). */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { AppEnv } from "../../context.ts";
import type { AppDeps } from "../../deps.ts";
import { json } from "../../schemas.ts";

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
    await Promise.all(Object.entries(deps.readiness.probes).map(([name, target]) => probe(name, () => target.ping())));
    const ok = Object.values(checks).every((v) => v === "ok");
    return c.json({ status: ok ? "ready" : "not_ready", profile: deps.readiness.profile, checks }, ok ? 200 : 503);
  });
}

/** GET /v1/admin/lakehouse/health: no authentication; usable as a readiness probe (spec 4.2). */
export function registerLakehouseHealth(app: OpenAPIHono<AppEnv>, deps: AppDeps): void {
  app.openapi(
    createRoute({
      method: "get",
      path: "/v1/admin/lakehouse/health",
      tags: ["Lakehouse"],
      summary: "Pings the lakehouse gateway; 200 with status 'unavailable' when it is down",
      security: [],
      responses: {
        200: json(
          z.union([
            z.object({ status: z.literal("ok"), catalog: z.string(), engine: z.string(), warehouse: z.string() }),
            z.object({ status: z.literal("unavailable"), error: z.string() }),
          ]),
          "Lakehouse health",
        ),
      },
    }),
    async (c) => c.json(await deps.lakehouse.health(), 200),
  );
}
