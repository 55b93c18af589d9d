/**
 * The read models ci.*, dm.*, pm.*, md.* (domain/foundry/readmodels/) in the control plane:
 * the SQL store, the domain service, and the refresh worker reading the existing stores.
 *
 * Sources beyond FoundryWiring (the financials store, the document index) arrive as the
 * optional fields of ReadModelWiring; a source that is absent leaves its tables as they are
 * (the refresh reports them skipped).
 */
import { Database } from "bun:sqlite";
import { existsSync } from "node:fs";
import { SqlReadModelStore } from "../adapters/controlplane/readmodel-store.ts";
import { SqliteDocumentIndex } from "../adapters/docindex/sqlite.ts";
import { AppError } from "../domain/errors.ts";
import type { FinancialsStore } from "../domain/financials/ports.ts";
import {
  type ChunkRecord,
  type DocumentRecord,
  type DocumentsSource,
  type EditorDocumentRecord,
  type EditorDocumentsSource,
  type FinancialsSource,
  READ_MODEL_REFRESH_QUEUE,
  type ReadModelSources,
  type RealtimeSource,
} from "../domain/foundry/readmodels/ports.ts";
import { FoundryReadModels } from "../domain/foundry/readmodels/service.ts";
import type { JobWorker, SqlClient } from "../domain/ports.ts";
import type { RealtimeTablesPort, RealtimeTieringView } from "../domain/rtdb/ports.ts";
import type { RtdbService } from "../domain/rtdb/service.ts";
import type { TenantRef } from "../domain/tenants/namespaces.ts";
import { makeRefreshHandler, type RefreshDeps } from "../pipelines/foundry/readmodels/refresh.ts";
import type { FoundryWiring } from "./foundry-wiring.ts";

/** Reads return every stored row of one company (the per-company row counts are small). */
const ALL = { limit: 1_000_000 };

export interface ReadModelWiring {
  /** The public financial data (ci.*). */
  financials?: FinancialsStore | null;
  /** The document index (dm.documents, dm.chunks); only the embedded SQLite index can be listed today. */
  documentIndex?: unknown;
}

export function openFoundryReadModels(d: FoundryWiring & ReadModelWiring): {
  readModels: FoundryReadModels;
  workers: JobWorker[];
  refresh: RefreshDeps;
} {
  const store = new SqlReadModelStore(d.store.sql);
  const refresh: RefreshDeps = {
    sources: readModelSources({
      sql: d.store.sql,
      financials: d.financials ?? null,
      documentIndex: d.documentIndex ?? null,
      realtime: d.realtime ? realtimeFromTiering(d.realtime) : null,
    }),
    writer: store,
    cikOfTicker: () => cikOfTicker(d.store.sql),
  };
  const readModels = new FoundryReadModels({ store, queue: d.queue });
  const worker = d.queue.work(READ_MODEL_REFRESH_QUEUE, makeRefreshHandler(refresh), { concurrency: 1 });
  return { readModels, workers: [worker], refresh };
}

/** The refresh job's sources over the existing stores (tests build them for a running service). */
export function readModelSources(d: {
  sql: SqlClient;
  financials: FinancialsStore | null;
  documentIndex: unknown;
  realtime: RealtimeSource | null;
}): ReadModelSources {
  return {
    financials: d.financials ? financialsSource(d.financials) : null,
    documents: d.documentIndex instanceof SqliteDocumentIndex ? sqliteDocuments(d.documentIndex) : null,
    editor: editorDocuments(d.sql),
    realtime: d.realtime,
  };
}

function financialsSource(store: FinancialsStore): FinancialsSource {
  return {
    listCiks: () => store.listCiks(),
    company: async (cik) => {
      const c = await store.company(cik);
      if (!c) return null;
      const { facts: _facts, ...profile } = c;
      return profile;
    },
    income: (cik) => store.income(cik, ALL),
    ratios: (cik) => store.ratios(cik, ALL),
    revenueSegments: (cik) => store.revenueSegments(cik, ALL),
  };
}

/**
 * The embedded document index has no listing on its port yet: its tenant file is read here,
 * read-only, metadata columns only (never the chunk text).
 */
function sqliteDocuments(index: SqliteDocumentIndex): DocumentsSource {
  const open = <T>(t: TenantRef, fn: (db: Database) => T): T => {
    const db = new Database(index.pathOf(t), { readonly: true, strict: true });
    try {
      db.exec("PRAGMA busy_timeout = 5000;");
      return fn(db);
    } finally {
      db.close();
    }
  };
  return {
    ready: async (t) => existsSync(index.pathOf(t)),
    documents: async (t) =>
      open(t, (db) =>
        db
          .query<DocumentRecord, []>(
            `SELECT doc_id, filename, format, doc_type, entity_id, uploaded_by, uploaded_at, visibility, barrier_id
               FROM documents ORDER BY doc_id`,
          )
          .all(),
      ),
    chunks: async (t) =>
      open(t, (db) =>
        db
          .query<ChunkRecord, []>(
            `SELECT id AS chunk_id, doc_id, chunk_index, CAST(json_extract(metadata, '$.page') AS INTEGER) AS page,
                    length(text) AS char_count, doc_type, entity_id, created_at
               FROM chunks ORDER BY doc_id, chunk_index`,
          )
          .all(),
      ),
  };
}

function editorDocuments(sql: SqlClient): EditorDocumentsSource {
  return {
    documents: async (tenantId) =>
      (
        await sql.all<EditorDocumentRecord>(
          `SELECT doc_id, title, owner_id, general_access, version, created_at, updated_at
             FROM editor_documents WHERE tenant_id = ? ORDER BY doc_id`,
          [tenantId],
        )
      ).map((r) => ({ ...r, owner_id: Number(r.owner_id), version: Number(r.version) })),
  };
}

/** The tenant's real-time tables through the engine port and the tiering view (hot and tiered rows). */
export function realtimeFromTiering(r: { tables: RealtimeTablesPort; view: RealtimeTieringView }): RealtimeSource {
  return {
    has: async (t, table) => (await r.tables.ready(t)) && (await r.tables.get(t, table)) !== null,
    read: (t, table, range, limit) => r.view.read(t, table, range, limit),
  };
}

/** The same through the rtdb service (what a running Service exposes as deps.rtdb). */
export function realtimeFromRtdb(rtdb: Pick<RtdbService, "tableSpec" | "read">): RealtimeSource {
  return {
    has: async (t, table) => {
      try {
        await rtdb.tableSpec(t, table);
        return true;
      } catch (err) {
        if (err instanceof AppError && (err.code === "not_found" || err.code === "unavailable")) return false;
        throw err;
      }
    },
    read: (t, table, range, limit) => rtdb.read(t, table, range, limit),
  };
}

async function cikOfTicker(sql: SqlClient): Promise<ReadonlyMap<string, string>> {
  const rows = await sql.all<{ ticker: string; cik: string }>(
    "SELECT ticker, cik FROM ci.companies WHERE ticker IS NOT NULL ORDER BY cik DESC",
  );
  return new Map(rows.map((r) => [r.ticker, r.cik]));
}
