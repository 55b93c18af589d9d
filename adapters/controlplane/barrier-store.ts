/**
 * BarrierStore over a SqlClient (bun:sqlite or Postgres; tables in barrier-migrations.ts).
 * Every statement is scoped by tenant_id. `crossedBarriers` is one indexed query and is
 * never cached, so a revocation is seen by the next search.
 */
import type { Barrier, BarrierCrossing } from "../../domain/documents/barriers.ts";
import type { BarrierStore } from "../../domain/documents/ports.ts";
import { AppError } from "../../domain/errors.ts";
import type { SqlClient } from "../../domain/ports.ts";

const BARRIER_SELECT = `
  SELECT b.barrier_id, b.tenant_id, b.name, b.description, b.created_at, b.created_by,
         (SELECT count(*) FROM barrier_crossings c WHERE c.barrier_id = b.barrier_id AND c.revoked_at IS NULL) AS crossings
    FROM barriers b`;

const CROSSING_COLS = `barrier_id, CAST(user_id AS TEXT) AS identity_id, crossed_at, crossed_by, revoked_at, revoked_by`;

type BarrierRow = Omit<Barrier, "crossings"> & { crossings: number | string | bigint };

const toBarrier = (r: BarrierRow): Barrier => ({ ...r, crossings: Number(r.crossings) });
const now = () => new Date().toISOString();

/** Identity ids are user ids as decimal strings; anything else names no user. */
function userIdOf(identityId: string): number | null {
  return /^[1-9][0-9]{0,15}$/.test(identityId) ? Number(identityId) : null;
}

export class SqlBarrierStore implements BarrierStore {
  constructor(private readonly sql: SqlClient) {}

  async create(tenantId: string, input: { name: string; description: string; createdBy: string }): Promise<Barrier> {
    const id = crypto.randomUUID();
    const r = await this.sql.run(
      `INSERT INTO barriers (barrier_id, tenant_id, name, description, created_at, created_by)
       VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (tenant_id, name) DO NOTHING`,
      [id, tenantId, input.name, input.description, now(), input.createdBy],
    );
    if (r.changes === 0) throw new AppError("conflict", `A barrier named '${input.name}' already exists`);
    return (await this.get(tenantId, id)) as Barrier;
  }

  async get(tenantId: string, barrierId: string): Promise<Barrier | null> {
    const r = await this.sql.get<BarrierRow>(`${BARRIER_SELECT} WHERE b.tenant_id = ? AND b.barrier_id = ?`, [
      tenantId,
      barrierId,
    ]);
    return r ? toBarrier(r) : null;
  }

  async list(tenantId: string): Promise<Barrier[]> {
    const rows = await this.sql.all<BarrierRow>(
      `${BARRIER_SELECT} WHERE b.tenant_id = ? ORDER BY b.created_at, b.barrier_id`,
      [tenantId],
    );
    return rows.map(toBarrier);
  }

  async cross(
    tenantId: string,
    barrierId: string,
    identityId: string,
    by: string,
  ): Promise<{ crossing: BarrierCrossing; created: boolean }> {
    return this.sql.transaction(async (tx) => {
      const userId = await this.requireTarget(tx, tenantId, barrierId, identityId);
      const r = await tx.run(
        `INSERT INTO barrier_crossings (barrier_id, tenant_id, user_id, crossed_at, crossed_by)
         VALUES (?, ?, ?, ?, ?) ON CONFLICT (barrier_id, user_id) WHERE revoked_at IS NULL DO NOTHING`,
        [barrierId, tenantId, userId, now(), by],
      );
      const crossing = await tx.get<BarrierCrossing>(
        `SELECT ${CROSSING_COLS} FROM barrier_crossings WHERE barrier_id = ? AND user_id = ? AND revoked_at IS NULL`,
        [barrierId, userId],
      );
      if (!crossing) throw new AppError("internal", "crossing vanished while being recorded");
      await this.mirror(tx, tenantId, userId);
      return { crossing, created: r.changes > 0 };
    });
  }

  async revoke(tenantId: string, barrierId: string, identityId: string, by: string): Promise<boolean> {
    const userId = userIdOf(identityId);
    if (userId === null) return false;
    return this.sql.transaction(async (tx) => {
      const r = await tx.run(
        `UPDATE barrier_crossings SET revoked_at = ?, revoked_by = ?
          WHERE tenant_id = ? AND barrier_id = ? AND user_id = ? AND revoked_at IS NULL`,
        [now(), by, tenantId, barrierId, userId],
      );
      if (r.changes > 0) await this.mirror(tx, tenantId, userId);
      return r.changes > 0;
    });
  }

  async crossings(
    tenantId: string,
    barrierId: string,
    opts: { includeRevoked?: boolean } = {},
  ): Promise<BarrierCrossing[]> {
    return this.sql.all<BarrierCrossing>(
      `SELECT ${CROSSING_COLS} FROM barrier_crossings
        WHERE tenant_id = ? AND barrier_id = ? ${opts.includeRevoked ? "" : "AND revoked_at IS NULL"}
        ORDER BY crossed_at DESC, id DESC`,
      [tenantId, barrierId],
    );
  }

  async crossedBarriers(tenantId: string, identityId: string): Promise<string[]> {
    const userId = userIdOf(identityId);
    if (userId === null) return [];
    const rows = await this.sql.all<{ barrier_id: string }>(
      `SELECT barrier_id FROM barrier_crossings
        WHERE tenant_id = ? AND user_id = ? AND revoked_at IS NULL ORDER BY barrier_id`,
      [tenantId, userId],
    );
    return rows.map((r) => r.barrier_id);
  }

  /** The user id behind `identityId`, once barrier and user are known in the tenant (404 otherwise). */
  private async requireTarget(tx: SqlClient, tenantId: string, barrierId: string, identityId: string): Promise<number> {
    const b = await tx.get("SELECT 1 AS x FROM barriers WHERE tenant_id = ? AND barrier_id = ?", [tenantId, barrierId]);
    if (!b) throw new AppError("not_found", `No barrier ${barrierId}`);
    const userId = userIdOf(identityId);
    const u =
      userId === null
        ? undefined
        : await tx.get("SELECT 1 AS x FROM users WHERE id = ? AND tenant_id = ?", [userId, tenantId]);
    if (userId === null || !u) throw new AppError("not_found", `No identity ${identityId} in this tenant`);
    return userId;
  }

  /** Rewrites `users.barriers`, the mirror of the user's active crossings. */
  private async mirror(tx: SqlClient, tenantId: string, userId: number): Promise<void> {
    const rows = await tx.all<{ barrier_id: string }>(
      "SELECT barrier_id FROM barrier_crossings WHERE tenant_id = ? AND user_id = ? AND revoked_at IS NULL ORDER BY barrier_id",
      [tenantId, userId],
    );
    await tx.run("UPDATE users SET barriers = ? WHERE id = ?", [JSON.stringify(rows.map((r) => r.barrier_id)), userId]);
  }
}
