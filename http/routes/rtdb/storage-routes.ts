/** GET /v1/rtdb/storage (spec 2.9, 4.8): the tenant's hot storage per table, and what is tiered. */
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { TieringSummary } from "../../../domain/rtdb/index.ts";
import { type Guards, SECURITY } from "../../auth/guards.ts";
import type { AppEnv } from "../../context.ts";
import type { AppDeps } from "../../deps.ts";
import { AUTH_ERRORS, json } from "../../schemas.ts";
import { StorageUsage } from "./schema.ts";
import { UNPROVISIONED } from "./tables-routes.ts";
import { tenantOf } from "./tenant.ts";

const GIB = 1024 ** 3;
export const TIERING_NOTE =
  "Partitions older than 7 days are exported automatically to the lakehouse as columnar files on object storage. " +
  "Rows: [table, rows, estimated bytes, partitions] of the hot data, tiered partitions excluded.";

/** The rule, the row layout, then what is tiered for this tenant and where (docs/tiering.md). */
export function tieringNote(s: TieringSummary | null): string {
  if (!s) return TIERING_NOTE;
  const n = (x: number) => x.toLocaleString("en-US");
  const plural = (x: number, word: string) => `${n(x)} ${word}${x === 1 ? "" : "s"}`;
  return s.partitions === 0
    ? `${TIERING_NOTE} Nothing is tiered yet; tiered partitions go to ${s.location} as Parquet.`
    : `${TIERING_NOTE} Tiered: ${plural(s.partitions, "partition")} of ${plural(s.tables, "table")}, ` +
        `${plural(s.rows, "row")} in ${plural(s.bytes, "byte")} of Parquet at ${s.location}.`;
}

export function registerRtdbStorageRoute(app: OpenAPIHono<AppEnv>, deps: AppDeps, guards: Guards): void {
  app.openapi(
    createRoute({
      method: "get",
      path: "/v1/rtdb/storage",
      tags: ["Real-time tables"],
      summary: "Storage used by the tenant's tables",
      security: SECURITY.jwt,
      middleware: guards.jwt,
      responses: { 200: json(StorageUsage, "Storage usage"), ...UNPROVISIONED, ...AUTH_ERRORS },
    }),
    async (c) => {
      const { usage, tiered } = await deps.rtdb.storage(tenantOf(c));
      const used = usage.tables.reduce((sum, t) => sum + t.bytes, 0);
      return c.json(
        {
          allocated_gb: toGb(usage.allocatedBytes),
          used_bytes: used,
          used_gb: toGb(used),
          tables: usage.tables.map((t) => [t.name, t.rows, t.bytes, t.partitions] as [string, number, number, number]),
          tiering_note: tieringNote(tiered),
        },
        200,
      );
    },
  );
}

/** GiB, rounded to 6 decimals (about 1 KiB). */
function toGb(bytes: number): number {
  return Math.round((bytes / GIB) * 1e6) / 1e6;
}
