import { describe, expect, test } from "bun:test";
import { AppError } from "../errors.ts";
import { checkObjectKey } from "../object-store.ts";
import { isTierable, partitionOf, partitionRange, TIERING_AGE_MS, tieredObjectKey } from "./tiering.ts";

describe("partition names (QuestDB spelling)", () => {
  test("ranges per unit, including month and year ends and leap days", () => {
    expect(partitionRange("DAY", "2024-02-29")).toEqual({
      from: "2024-02-29T00:00:00.000Z",
      to: "2024-03-01T00:00:00.000Z",
    });
    expect(partitionRange("HOUR", "2024-12-31T23")).toEqual({
      from: "2024-12-31T23:00:00.000Z",
      to: "2025-01-01T00:00:00.000Z",
    });
    expect(partitionRange("MONTH", "2024-12")).toEqual({
      from: "2024-12-01T00:00:00.000Z",
      to: "2025-01-01T00:00:00.000Z",
    });
  });

  test("names that do not exist or do not fit the unit are bad requests", () => {
    for (const [unit, name] of [
      ["DAY", "2023-02-29"],
      ["DAY", "2024-13-01"],
      ["DAY", "2024-03"],
      ["HOUR", "2024-03-01T24"],
      ["HOUR", "2024-03-01"],
      ["MONTH", "2024-00"],
      ["MONTH", "2024-03-01"],
      ["DAY", "2024-03-01' OR 1=1"],
    ] as const) {
      const err = (() => {
        try {
          partitionRange(unit, name);
        } catch (e) {
          return e;
        }
      })();
      expect(err).toBeInstanceOf(AppError);
      expect((err as AppError).code).toBe("bad_request");
    }
  });

  test("partitionOf names the partition holding an instant", () => {
    const at = new Date("2024-03-01T07:59:59.999Z");
    expect([partitionOf("DAY", at), partitionOf("HOUR", at), partitionOf("MONTH", at)]).toEqual([
      "2024-03-01",
      "2024-03-01T07",
      "2024-03",
    ]);
  });
});

test("a partition is tierable only once its whole range ended more than 7 days ago", () => {
  const to = "2024-03-02T00:00:00.000Z";
  const exactly = new Date(Date.parse(to) + TIERING_AGE_MS);
  expect(isTierable({ to }, exactly)).toBe(false);
  expect(isTierable({ to }, new Date(exactly.getTime() + 1))).toBe(true);
  expect(isTierable({ to }, new Date(Date.parse(to)))).toBe(false);
});

test("object keys sit under the namespace; keys that could leave the root are refused", () => {
  expect(tieredObjectKey("svc_tenant_acme", "Trades", "2024-03-01T07", 2)).toBe(
    "svc_tenant_acme/rtdb/trades/2024-03-01T07/part-2.parquet",
  );
  expect(checkObjectKey("svc_tenant_acme/rtdb/trades/2024-03/part-0.parquet")).toBeString();
  for (const bad of ["", "/etc/passwd", "a/../b", "a//b", "..", "a/.hidden", "a/b c", "a\\b"]) {
    expect(() => checkObjectKey(bad)).toThrow(AppError);
  }
});
