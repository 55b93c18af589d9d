/**
 * The conditional update the Foundry run stores share (model runs, tuning experiments,
 * deployments): set the patch's columns and `updated_at` on the tenant's row, only while its
 * status is one of `whenStatus` when given, so two readers of one finished job never both
 * write it. Each patchable column has an encoder; a field without one is a programming error.
 */
import type { SqlClient, SqlParam } from "../../domain/ports.ts";

export type Encoders<P> = { [K in keyof P]-?: (v: unknown) => SqlParam };

export const text = (v: unknown) => (v ?? null) as string | null;
export const jsonText = (v: unknown) => (v == null ? null : JSON.stringify(v));
export const value = (v: unknown) => (v ?? null) as SqlParam;

/** True when a row changed (false: no such row of the tenant, or its status had moved on). */
export async function updateWhile<P extends object>(
  sql: SqlClient,
  table: string,
  encoders: Encoders<P>,
  tenantId: string,
  id: string,
  patch: P,
  whenStatus?: readonly string[],
): Promise<boolean> {
  const sets: string[] = ["updated_at = ?"];
  const params: SqlParam[] = [new Date().toISOString()];
  for (const [key, v] of Object.entries(patch) as [keyof P & string, unknown][]) {
    const enc = encoders[key];
    if (!enc) throw new Error(`${table}: no column for patch field ${key}`);
    sets.push(`${key} = ?`);
    params.push(enc(v));
  }
  params.push(tenantId, id);
  let where = "tenant_id = ? AND id = ?";
  if (whenStatus?.length) {
    where += ` AND status IN (${whenStatus.map(() => "?").join(", ")})`;
    params.push(...whenStatus);
  }
  const { changes } = await sql.run(`UPDATE ${table} SET ${sets.join(", ")} WHERE ${where}`, params);
  return changes > 0;
}
