/** Bodies of the real-time table endpoints (spec 2.9, 4.8). */
import { z } from "@hono/zod-openapi";

export const CreateTableBody = z
  .object({
    sql: z
      .string()
      .min(1)
      .max(64 * 1024)
      .openapi({
        example:
          "CREATE TABLE trades (symbol SYMBOL INDEX, price DOUBLE, amount LONG, ts TIMESTAMP) TIMESTAMP(ts) PARTITION BY DAY WAL",
      }),
  })
  .openapi("CreateRealtimeTable");

export const CreateTableResult = z
  .object({ ok: z.boolean(), result: z.object({ ddl: z.string() }) })
  .openapi("RealtimeTableCreated");

const ColumnName = z.object({ name: z.string() });

export const TableList = z
  .object({
    tables: z.array(z.array(z.union([z.string(), z.number(), z.boolean()]))),
    columns: z.array(ColumnName),
  })
  .openapi("RealtimeTables");

export const TableSchema = z
  .object({
    table: z.string(),
    columns: z.array(z.array(z.union([z.string(), z.number(), z.boolean()]))),
    schema: z.array(ColumnName),
  })
  .openapi("RealtimeTableSchema");

export const StorageUsage = z
  .object({
    allocated_gb: z.number(),
    used_bytes: z.number(),
    used_gb: z.number(),
    tables: z.array(z.tuple([z.string(), z.number(), z.number(), z.number()])),
    tiering_note: z.string(),
  })
  .openapi("RealtimeStorage");

export const TableParam = z.object({ table: z.string().min(1).max(127) });
