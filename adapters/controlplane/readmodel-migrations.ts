/**
 * The relational read models ci.*, dm.*, pm.*, md.* (domain/foundry/readmodels/catalogue.ts)
 * as tables in their schemas: attached database files on SQLite (lh:002's comment), real
 * schemas on Postgres. Generated from the catalogue, so the two never disagree. Ids "rm:".
 * No foreign key to tenants: SQLite cannot reference a table of another database file.
 */
import {
  READ_MODEL_SCHEMAS,
  READ_MODEL_TABLES,
  type ReadModelTable,
  type ReadModelType,
} from "../../domain/foundry/readmodels/catalogue.ts";
import type { Migration, SqlDialect } from "../../domain/ports.ts";

// Dates and instants are ISO text in both dialects: one rendering, lexical order is time
// order, and the lakehouse sync sees the same (string) type on either.
const TYPES: Record<SqlDialect, Record<ReadModelType, string>> = {
  sqlite: {
    text: "TEXT",
    integer: "INTEGER",
    bigint: "INTEGER",
    double: "REAL",
    boolean: "BOOLEAN",
    date: "TEXT",
    timestamp: "TEXT",
  },
  postgres: {
    text: "TEXT",
    integer: "INTEGER",
    bigint: "BIGINT",
    double: "DOUBLE PRECISION",
    boolean: "BOOLEAN",
    date: "TEXT",
    timestamp: "TEXT",
  },
};

function tableDdl(t: ReadModelTable, d: SqlDialect): string {
  const cols = t.columns.map((c) => `  ${c.name} ${TYPES[d][c.type]}${c.nullable ? "" : " NOT NULL"}`);
  if (t.key.length > 0) cols.push(`  PRIMARY KEY (${t.key.join(", ")})`);
  const out = [`CREATE TABLE ${t.schema}.${t.table} (\n${cols.join(",\n")}\n);`];
  t.indexes.forEach((ix, i) => {
    const name = `${t.table}_ix${i}`;
    out.push(
      d === "sqlite"
        ? `CREATE INDEX ${t.schema}.${name} ON ${t.table}(${ix.join(", ")});`
        : `CREATE INDEX ${name} ON ${t.schema}.${t.table}(${ix.join(", ")});`,
    );
  });
  return out.join("\n");
}

const refreshLog = `
CREATE TABLE readmodel_refreshes (
  table_name TEXT NOT NULL,
  tenant_id TEXT NOT NULL,
  row_count INTEGER NOT NULL,
  refreshed_at TEXT NOT NULL,
  PRIMARY KEY (table_name, tenant_id)
);`;

const ddl = (d: SqlDialect) =>
  [
    // lh:002 creates the schemas on Postgres; repeated here so this list stands on its own.
    ...(d === "postgres" ? READ_MODEL_SCHEMAS.map((s) => `CREATE SCHEMA IF NOT EXISTS ${s};`) : []),
    ...READ_MODEL_TABLES.map((t) => tableDdl(t, d)),
    // One name per portfolio in a tenant (the store checks first; this holds under races).
    d === "sqlite"
      ? "CREATE UNIQUE INDEX pm.portfolios_name ON portfolios(tenant_id, name);"
      : "CREATE UNIQUE INDEX portfolios_name ON pm.portfolios(tenant_id, name);",
    refreshLog,
  ].join("\n");

export const READMODEL_MIGRATIONS: Migration[] = [
  { id: "rm:001_read_models", sqlite: ddl("sqlite"), postgres: ddl("postgres") },
];
