/**
 * TieringStateStore over a SqlClient (bun:sqlite or Postgres; table in tiering-migrations.ts).
 * A claim is a lease: a run owns a part until `claim_until`, so two runs (two instances, or
 * a rerun while a killed run's lease is still live) never work on the same part at once.
 */
import type { SqlClient } from "../../domain/ports.ts";
import type { TieredPart, TieringState, TieringStateStore } from "../../domain/rtdb/index.ts";

interface Row {
  tenant_id: string;
  table_name: string;
  partition_name: string;
  part: number | string;
  state: TieringState;
  range_from: string;
  range_to: string;
  row_count: number | string;
  bytes: number | string;
  object_key: string;
  last_error: string | null;
  updated_at: string;
}

type Key = { tenantId: string; table: string; partition: string; part: number };

const WHERE_KEY = "tenant_id = ? AND table_key = ? AND partition_name = ? AND part = ?";
const keyParams = (k: Key) => [k.tenantId, k.table.toLowerCase(), k.partition, k.part];

function toPart(r: Row): TieredPart {
  return {
    tenantId: r.tenant_id,
    table: r.table_name,
    partition: r.partition_name,
    part: Number(r.part),
    state: r.state,
    from: r.range_from,
    to: r.range_to,
    rows: Number(r.row_count),
    bytes: Number(r.bytes),
    objectKey: r.object_key,
    lastError: r.last_error,
    updatedAt: r.updated_at,
  };
}

export class SqlTieringStateStore implements TieringStateStore {
  constructor(private readonly sql: SqlClient) {}

  async parts(tenantId: string, table: string): Promise<TieredPart[]> {
    const rows = await this.sql.all<Row>(
      "SELECT * FROM rtdb_tiering WHERE tenant_id = ? AND table_key = ? ORDER BY partition_name, part",
      [tenantId, table.toLowerCase()],
    );
    return rows.map(toPart);
  }

  async tenantParts(tenantId: string): Promise<TieredPart[]> {
    const rows = await this.sql.all<Row>(
      "SELECT * FROM rtdb_tiering WHERE tenant_id = ? ORDER BY table_key, partition_name, part",
      [tenantId],
    );
    return rows.map(toPart);
  }

  async claim(
    key: Key,
    init: { from: string; to: string; rows: number; objectKey: string },
    owner: string,
    until: string,
  ): Promise<TieredPart | null> {
    const at = new Date().toISOString();
    return this.sql.transaction(async (tx) => {
      const inserted = await tx.run(
        `INSERT INTO rtdb_tiering (tenant_id, table_key, table_name, partition_name, part, state, range_from, range_to,
           row_count, bytes, object_key, claim_owner, claim_until, last_error, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, 'pending', ?, ?, ?, 0, ?, ?, ?, NULL, ?, ?)
         ON CONFLICT (tenant_id, table_key, partition_name, part) DO NOTHING`,
        [
          ...keyParams(key).slice(0, 2),
          key.table,
          key.partition,
          key.part,
          init.from,
          init.to,
          init.rows,
          init.objectKey,
          owner,
          until,
          at,
          at,
        ],
      );
      if (inserted.changes === 0) {
        const taken = await tx.run(
          `UPDATE rtdb_tiering SET claim_owner = ?, claim_until = ?
            WHERE ${WHERE_KEY} AND (claim_owner IS NULL OR claim_owner = ? OR claim_until < ?)`,
          [owner, until, ...keyParams(key), owner, at],
        );
        if (taken.changes === 0) return null;
      }
      const row = await tx.get<Row>(`SELECT * FROM rtdb_tiering WHERE ${WHERE_KEY}`, keyParams(key));
      return row ? toPart(row) : null;
    });
  }

  async transition(
    key: Key,
    owner: string,
    patch: { state: TieringState; rows?: number; bytes?: number; lastError?: string | null },
  ): Promise<boolean> {
    const res = await this.sql.run(
      `UPDATE rtdb_tiering SET state = ?, row_count = COALESCE(?, row_count), bytes = COALESCE(?, bytes),
              last_error = ?, updated_at = ?
        WHERE ${WHERE_KEY} AND claim_owner = ?`,
      [
        patch.state,
        patch.rows ?? null,
        patch.bytes ?? null,
        patch.lastError ?? null,
        new Date().toISOString(),
        ...keyParams(key),
        owner,
      ],
    );
    return res.changes === 1;
  }

  async release(key: Key, owner: string, lastError: string | null): Promise<void> {
    await this.sql.run(
      `UPDATE rtdb_tiering SET claim_owner = NULL, claim_until = NULL, last_error = ?, updated_at = ?
        WHERE ${WHERE_KEY} AND claim_owner = ?`,
      [lastError, new Date().toISOString(), ...keyParams(key), owner],
    );
  }
}
