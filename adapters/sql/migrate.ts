/**
 * Applies migrations in order, each in its own transaction, recording applied ids in
 * schema_migrations. Safe to run from several processes: a lock row serialises them
 * on Postgres (advisory lock) and BEGIN IMMEDIATE does the same on SQLite.
 */
import type { Migration, SqlClient } from "../../domain/ports.ts";

const LOCK_KEY = 7_403_311; // arbitrary, stable advisory-lock key for Cairn migrations

export async function migrate(sql: SqlClient, migrations: Migration[]): Promise<string[]> {
  await sql.exec("CREATE TABLE IF NOT EXISTS schema_migrations (id TEXT PRIMARY KEY, applied_at TEXT NOT NULL)");
  return sql.transaction(async (tx) => {
    if (tx.dialect === "postgres") await tx.run(`SELECT pg_advisory_xact_lock(${LOCK_KEY})`);
    const done = new Set((await tx.all<{ id: string }>("SELECT id FROM schema_migrations")).map((r) => r.id));
    const applied: string[] = [];
    for (const m of migrations) {
      if (done.has(m.id)) continue;
      await tx.exec(tx.dialect === "sqlite" ? m.sqlite : m.postgres);
      await tx.run("INSERT INTO schema_migrations (id, applied_at) VALUES (?, ?)", [m.id, new Date().toISOString()]);
      applied.push(m.id);
    }
    return applied;
  });
}
