/**
 * Query results and previews move from the lab as Arrow IPC (adapters/lakehouse/foundry-client.ts):
 * every Iceberg type reads back exactly as the gateway's JSON /sql spells it, on a real gateway.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { FoundryLabClient } from "../../adapters/lakehouse/foundry-client.ts";
import { GatewayLakehouse } from "../../adapters/lakehouse/gateway-client.ts";
import { type GatewayHandle, LAB_PYTHON, startGateway } from "../lakehouse.ts";

let gateway: GatewayHandle | undefined;
let lake: GatewayLakehouse;
let lab: FoundryLabClient;
const NS = "svc_tenant_arrow";

beforeAll(async () => {
  gateway = await startGateway();
  if (!gateway) return;
  lake = new GatewayLakehouse({ url: gateway.url });
  lab = new FoundryLabClient(lake, { url: gateway.url, buildTimeoutMs: 60_000 });
  await lake.ensureNamespace({ tenantId: "00000000-0000-0000-0000-000000000000", slug: "arrow" });
  await lake.write(NS, "typed", {
    mode: "overwrite",
    columns: [
      { name: "id", type: "long" },
      { name: "big", type: "long" },
      { name: "n", type: "int" },
      { name: "x", type: "double" },
      { name: "px", type: "decimal(12,2)" },
      { name: "d", type: "date" },
      { name: "ts", type: "timestamp" },
      { name: "tz", type: "timestamptz" },
      { name: "ok", type: "boolean" },
      { name: "s", type: "string" },
    ],
    rows: [
      [
        1,
        "9007199254740993",
        7,
        1.5,
        "20.25",
        "2024-02-29",
        "2024-01-02T03:04:05",
        "2024-01-02T03:04:05.250Z",
        true,
        "a'b",
      ],
      [2, 3, -1, -0.125, "-1.00", "1999-12-31", "2024-01-02T03:04:05.123", "2023-06-30T23:59:59Z", false, "ü"],
      [3, null, null, null, null, null, null, null, null, null],
    ],
  });
}, 90_000);

afterAll(async () => {
  await gateway?.stop();
});

describe.skipIf(!process.env.CI && !existsSync(LAB_PYTHON))("Arrow IPC between the lab and the service", () => {
  test("/foundry/sql (Arrow) reads exactly what /sql (JSON) reads, every type", async () => {
    const sql = "SELECT * FROM typed ORDER BY id";
    const json = await lake.sql(NS, sql);
    const arrow = await lab.sql(NS, sql);
    expect(arrow.columns.map((c) => c.name)).toEqual(json.columns.map((c) => c.name));
    const big = json.columns.findIndex((c) => c.name === "big");
    const without = (rows: unknown[][]) => rows.map((r) => r.filter((_, i) => i !== big));
    expect(without(arrow.rows)).toEqual(without(json.rows));
    // Past 2^53 the Arrow path keeps the exact digits; a JSON number cannot.
    expect(arrow.rows[0]?.[big]).toBe("9007199254740993");
    expect(json.rows[0]?.[big]).not.toBe(9007199254740993n.toString());
    expect(arrow.rows[1]?.[big]).toBe(3);
    expect(arrow.rows[0]?.slice(4, 8)).toEqual([
      "20.25",
      "2024-02-29",
      "2024-01-02T03:04:05",
      "2024-01-02T03:04:05.250000+00:00",
    ]);
  });

  test("previews carry the Iceberg column types in the stream", async () => {
    const p = await lab.preview(NS, "typed", 2);
    expect(p.columns.map((c) => c.type)).toEqual([
      "long",
      "long",
      "int",
      "double",
      "decimal(12,2)",
      "date",
      "timestamp",
      "timestamptz",
      "boolean",
      "string",
    ]);
    expect(p.rows).toHaveLength(2);
  });

  test("refusals keep their status: a write is 400, a missing table 404", async () => {
    await expect(lab.sql(NS, "DROP TABLE typed")).rejects.toMatchObject({ code: "bad_request" });
    await expect(lab.preview(NS, "nope", 5)).rejects.toMatchObject({ code: "not_found" });
  });
});
