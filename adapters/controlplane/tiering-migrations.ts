/**
 * Control-plane schema for real-time table tiering (pipelines/rtdb/tiering/pipeline.ts): one row per
 * tiered part of a partition, its state and the claim of the run working on it. Ids are
 * namespaced "tier:"; main.ts passes the list to store.migrate with the others.
 */
import type { Migration } from "../../domain/ports.ts";

const table = (bigint: string) => `
  CREATE TABLE rtdb_tiering (
    tenant_id TEXT NOT NULL,
    table_key TEXT NOT NULL,
    table_name TEXT NOT NULL,
    partition_name TEXT NOT NULL,
    part INTEGER NOT NULL,
    state TEXT NOT NULL,
    range_from TEXT NOT NULL,
    range_to TEXT NOT NULL,
    row_count ${bigint} NOT NULL,
    bytes ${bigint} NOT NULL DEFAULT 0,
    object_key TEXT NOT NULL,
    claim_owner TEXT,
    claim_until TEXT,
    last_error TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (tenant_id, table_key, partition_name, part)
  );
`;

export const TIERING_MIGRATIONS: Migration[] = [
  { id: "tier:001_rtdb_tiering", sqlite: table("INTEGER"), postgres: table("BIGINT") },
];
