/**
 * Control-plane tables of the collaborative editor (ids "editor:"): documents with both
 * representations (yjs_state bytes, doc_ast JSON text), members with their roles, and the
 * search-index generations. main.ts passes EDITOR_MIGRATIONS to migrate.
 */
import type { Migration, SqlDialect } from "../../domain/ports.ts";

const BYTES: Record<SqlDialect, string> = { sqlite: "BLOB", postgres: "BYTEA" };

// doc_id is a UUID and the room name: unique across tenants, so the collaboration server
// can address a document by it alone. Rows carry tenant_id; every REST query filters on it.
// version counts content changes (compare-and-set on store); index_generation counts
// changes the search index must see (content or access), indexed_generation the last indexed.
const ddl = (d: SqlDialect) => `
  CREATE TABLE editor_documents (
    doc_id TEXT PRIMARY KEY,
    tenant_id TEXT NOT NULL REFERENCES tenants(tenant_id),
    title TEXT NOT NULL,
    owner_id INTEGER NOT NULL,
    general_access TEXT NOT NULL DEFAULT 'none',
    yjs_state ${BYTES[d]},
    doc_ast TEXT NOT NULL,
    version INTEGER NOT NULL DEFAULT 0,
    index_generation INTEGER NOT NULL DEFAULT 0,
    indexed_generation INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL,
    created_by INTEGER NOT NULL,
    updated_at TEXT NOT NULL,
    updated_by_type TEXT NOT NULL,
    updated_by_id TEXT NOT NULL
  );
  CREATE INDEX editor_documents_tenant ON editor_documents(tenant_id, updated_at, doc_id);
  CREATE TABLE editor_members (
    doc_id TEXT NOT NULL REFERENCES editor_documents(doc_id) ON DELETE CASCADE,
    user_id INTEGER NOT NULL,
    role TEXT NOT NULL,
    granted_at TEXT NOT NULL,
    granted_by INTEGER NOT NULL,
    PRIMARY KEY (doc_id, user_id)
  );
  CREATE INDEX editor_members_user ON editor_members(user_id, doc_id);`;

export const EDITOR_MIGRATIONS: Migration[] = [
  { id: "editor:001_documents", sqlite: ddl("sqlite"), postgres: ddl("postgres") },
];
