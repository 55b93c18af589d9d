/**
 * The embedded document index: one SQLite file per tenant (`client-docs-{tenant_id}.sqlite`)
 * with FTS5 for the keyword leg and sqlite-vec for the vector leg of hybrid search.
 * A file per tenant makes isolation physical (no query can reach another tenant's
 * rows) and makes a purge a file delete.
 *
 * bun:sqlite is synchronous. Namespace work and writes (one IMMEDIATE transaction per
 * document) run inline; searches, whose vector leg grows with the tenant's chunk count
 * (exact below `ann.minChunks`, HNSW above: ann-index.ts, dense-leg.ts), run on search threads (search-pool.ts) that open the file read-only — WAL lets
 * them read while this thread writes. `searchThreads: 0` runs them inline instead.
 *
 * sqlite-vec is loaded with `sqliteVec.load(db)` on each handle. On Linux Bun's bundled
 * SQLite allows extension loading as is; on macOS the system SQLite refuses extensions and
 * `Database.setCustomSQLite(<path to a full libsqlite3>)` must run before the first
 * Database is opened (process-wide, so it belongs in the composition root).
 */
import { Database } from "bun:sqlite";
import { existsSync, mkdirSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import * as sqliteVec from "sqlite-vec";
import type { DocumentIndexPort } from "../../domain/documents/ports.ts";
import type { DocumentMeta, IndexedChunk, SearchHit, SearchRequest } from "../../domain/documents/types.ts";
import { AppError } from "../../domain/errors.ts";
import { documentIndexName, type NamespacePort, type TenantRef } from "../../domain/tenants/namespaces.ts";
import { removeAnnFiles, trimAnnLog } from "./ann-index.ts";
import { type AnnOptions, AnnRegistry, DEFAULT_ANN } from "./ann-registry.ts";
import { HandleCache } from "./handles.ts";
import { readKeywordSidecar, removeKeywordFiles } from "./keyword-file.ts";
import { KeywordRegistry } from "./keyword-registry.ts";
import { REQUIRED_TABLES, SCHEMA_VERSION, schemaSql, upgradeSql } from "./schema.ts";
import { SearchPool, type SearchPoolStats } from "./search-pool.ts";
import { type CompiledSearch, compileSearch } from "./search-request.ts";
import { readDocument, removeDocument, searchSnapshot, writeDocument } from "./sqlite-search.ts";

export interface SqliteDocumentIndexOptions {
  /** Root data directory; tenant files live in `<dataDir>/docindex/`. */
  dataDir: string;
  /** Most tenant files held open at once (LRU; the least recently used is closed). */
  maxOpenFiles?: number;
  /** Embedding width of the vector table; a file made with another width is refused. */
  embeddingDim?: number;
  /** Search threads (default 1); 0 runs searches on the calling thread. */
  searchThreads?: number;
  /** Searches waiting or running at once before new ones get 503 (default 256). */
  maxQueuedSearches?: number;
  /** When the vector leg uses the HNSW index (ann-registry.ts; default DEFAULT_ANN). */
  ann?: Partial<AnnOptions>;
  /**
   * A file's searches run in two parts on two idle threads once its keyword leg took this many
   * ms (search-pool.ts; default SPLIT_KEYWORD_MS; Infinity never splits).
   */
  splitKeywordMs?: number;
}

const FILE_SUFFIX = ".sqlite";
const NAME_PATTERN = /^client-docs-[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;

export class SqliteDocumentIndex implements NamespacePort, DocumentIndexPort {
  readonly engine = "document_index" as const;
  readonly dir: string;
  private readonly embeddingDim: number;
  private readonly handles: HandleCache;
  private readonly pool: SearchPool | null;
  private readonly ann: AnnOptions;
  /** The HNSW indexes of inline searches (`searchThreads: 0`); threads hold their own. */
  private readonly anns = new AnnRegistry();
  /** The keyword indexes of inline searches, likewise. */
  private readonly keywords = new KeywordRegistry();
  private closed = false;

  constructor(opts: SqliteDocumentIndexOptions) {
    this.dir = join(opts.dataDir, "docindex");
    this.embeddingDim = opts.embeddingDim ?? 768;
    if (!Number.isInteger(this.embeddingDim) || this.embeddingDim < 1 || this.embeddingDim > 8192) {
      throw new Error(`SqliteDocumentIndex: embeddingDim must be an integer in 1..8192, got ${opts.embeddingDim}`);
    }
    this.handles = new HandleCache(opts.maxOpenFiles ?? 64);
    this.ann = { ...DEFAULT_ANN, ...opts.ann };
    const threads = opts.searchThreads ?? 1;
    this.pool =
      threads > 0
        ? new SearchPool({
            size: threads,
            maxInFlight: opts.maxQueuedSearches ?? 256,
            dim: this.embeddingDim,
            ann: this.ann,
            ...(opts.splitKeywordMs !== undefined ? { splitKeywordMs: opts.splitKeywordMs } : {}),
          })
        : null;
  }

  namespaceOf(t: TenantRef): string {
    const name = documentIndexName(t.tenantId);
    // The name becomes a file name: refuse anything that could step outside the directory.
    if (!NAME_PATTERN.test(name))
      throw new AppError("bad_request", `invalid tenant id for a document index: ${t.tenantId}`);
    return name;
  }

  /** The tenant's index file (whether or not it exists). */
  pathOf(t: TenantRef): string {
    return join(this.dir, `${this.namespaceOf(t)}${FILE_SUFFIX}`);
  }

  async ensureNamespace(t: TenantRef): Promise<string> {
    const name = this.namespaceOf(t);
    const db = this.handle(name, true);
    // IMMEDIATE takes the write lock up front, so another process creating the same file
    // waits (busy_timeout) instead of failing half-way; IF NOT EXISTS makes a rerun a no-op.
    db.transaction(() => {
      db.exec(schemaSql(this.embeddingDim));
      const put = db.query("INSERT INTO _namespace (key, value) VALUES (?, ?) ON CONFLICT (key) DO NOTHING");
      put.run("index_name", name);
      put.run("schema_version", String(SCHEMA_VERSION));
      put.run("embedding_dim", String(this.embeddingDim));
      put.run("created_at", new Date().toISOString());
      const v = db.query<{ value: string }, []>("SELECT value FROM _namespace WHERE key = 'schema_version'").get();
      const sql = upgradeSql(Number(v?.value ?? SCHEMA_VERSION));
      if (sql) db.exec(sql);
    }).immediate();
    const problem = this.verify(db);
    if (problem) throw new AppError("internal", `document index ${name}: ${problem}`);
    return name;
  }

  async namespaceExists(t: TenantRef): Promise<boolean> {
    const name = this.namespaceOf(t);
    if (!existsSync(this.fileOf(name))) {
      this.handles.close(name); // a handle to a file deleted behind our back is stale
      return false;
    }
    return this.verify(this.handle(name, false)) === null;
  }

  async dropNamespace(t: TenantRef): Promise<void> {
    const name = this.namespaceOf(t);
    // Close first: an open handle would keep the inode alive and recreate -wal/-shm files.
    this.handles.close(name);
    const file = this.fileOf(name);
    this.pool?.forget(file);
    this.anns.forget(file);
    this.keywords.forget(file);
    for (const f of [file, `${file}-wal`, `${file}-shm`, `${file}-journal`]) rmSync(f, { force: true });
    removeAnnFiles(file);
    removeKeywordFiles(file);
  }

  async smokeTest(t: TenantRef): Promise<void> {
    const name = this.namespaceOf(t);
    if (!existsSync(this.fileOf(name))) throw new AppError("not_found", `document index ${name} does not exist`);
    const db = this.handle(name, false);
    const marker = crypto.randomUUID().replaceAll("-", "");
    const token = `cairnprobe${marker}`;
    // A random direction: no real chunk can tie with it, so KNN with k=1 must return the probe.
    const vector = new Float32Array(this.embeddingDim).map(() => Math.random() - 0.5);
    const seq = db
      .transaction(() => {
        const row = db
          .query<{ seq: number }, [string, string, string, string]>(
            `INSERT INTO chunks (id, doc_id, chunk_index, text, metadata, visibility, created_at)
           VALUES (?, ?, 0, ?, '{"probe":true}', 'private', ?) RETURNING seq`,
          )
          .get(`__probe__${marker}`, `__probe__${marker}`, `smoke ${token}`, new Date().toISOString());
        if (!row) throw new AppError("internal", `document index ${name}: probe insert returned no row`);
        db.query("INSERT INTO chunks_vec (seq, embedding) VALUES (?, ?)").run(row.seq, vector);
        return row.seq;
      })
      .immediate();
    try {
      const fts = db
        .query<{ seq: number }, [string]>("SELECT rowid AS seq FROM chunks_fts WHERE chunks_fts MATCH ?")
        .all(token);
      if (fts.length !== 1 || fts[0]?.seq !== seq) {
        throw new AppError("internal", `document index ${name}: FTS did not find the probe chunk`);
      }
      const knn = db
        .query<{ seq: number; distance: number }, [Float32Array]>(
          "SELECT seq, distance FROM chunks_vec WHERE embedding MATCH ? AND k = 1",
        )
        .get(vector);
      if (knn?.seq !== seq || knn.distance > 1e-4) {
        throw new AppError("internal", `document index ${name}: KNN did not return the probe chunk`);
      }
    } finally {
      db.query("DELETE FROM chunks WHERE seq = ?").run(seq);
    }
    const left = this.probeLeftovers(db, seq, token);
    if (left > 0) throw new AppError("internal", `document index ${name}: probe left ${left} rows behind`);
  }

  async listNamespaces(): Promise<string[]> {
    if (!existsSync(this.dir)) return [];
    return readdirSync(this.dir)
      .filter((f) => f.endsWith(FILE_SUFFIX))
      .map((f) => f.slice(0, -FILE_SUFFIX.length))
      .filter((n) => NAME_PATTERN.test(n))
      .sort();
  }

  /** Rows across the tenant's document, chunk, FTS and vector tables (0 for a fresh or absent index). */
  async countRecords(t: TenantRef): Promise<number> {
    const name = this.namespaceOf(t);
    if (!existsSync(this.fileOf(name))) return 0;
    const db = this.handle(name, false);
    const row = db
      .query<{ n: number }, []>(
        `SELECT (SELECT count(*) FROM chunks) + (SELECT count(*) FROM chunks_vec)
              + (SELECT count(*) FROM chunks_fts_docsize) + (SELECT count(*) FROM documents) AS n`,
      )
      .get();
    return row?.n ?? 0;
  }

  async ping(): Promise<void> {
    this.assertOpen();
    mkdirSync(this.dir, { recursive: true });
    // Proves the extension loads here, which is what a fresh tenant would need first.
    const db = new Database(":memory:");
    try {
      loadVec(db);
      db.query("SELECT vec_version()").get();
    } finally {
      db.close();
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.pool?.close();
    this.anns.flush();
    this.keywords.close();
    this.handles.closeAll();
  }

  // -- DocumentIndexPort ---------------------------------------------------------------

  async ready(t: TenantRef): Promise<boolean> {
    return this.namespaceExists(t);
  }

  async putDocument(t: TenantRef, doc: DocumentMeta, chunks: IndexedChunk[]): Promise<void> {
    const db = this.usable(t);
    writeDocument(db, doc, chunks, this.embeddingDim);
    this.trimLog(db, this.pathOf(t));
  }

  async deleteDocument(t: TenantRef, docId: string): Promise<boolean> {
    const db = this.usable(t);
    const removed = removeDocument(db, docId);
    this.trimLog(db, this.pathOf(t));
    return removed;
  }

  /** Trims the change log below what both saved side indexes have (ann-index.ts `trimAnnLog`). */
  private trimLog(db: Database, file: string): void {
    trimAnnLog(db, file, this.embeddingDim, this.ann.minChunks, readKeywordSidecar(db, file)?.watermark);
  }

  async getDocument(t: TenantRef, docId: string): Promise<(DocumentMeta & { chunks: number }) | null> {
    return readDocument(this.usable(t), docId);
  }

  async search(t: TenantRef, req: SearchRequest): Promise<SearchHit[]> {
    const compiled = this.compile(t, req);
    const db = this.usable(t);
    const file = this.pathOf(t);
    if (!this.pool)
      return searchSnapshot(db, compiled, {
        ann: (snap, chunks) => this.anns.get(snap, file, this.embeddingDim, this.ann, chunks),
        keyword: (snap, chunks) => this.keywords.get(snap, file, this.ann, chunks),
      });
    return this.pool.search(file, compiled);
  }

  /** How the search threads ran searches so far (whole, split in parts, split then rerun). */
  searchStats(): SearchPoolStats | null {
    return this.pool?.stats() ?? null;
  }

  /** Validates a search and compiles its access context (the only source of the ACL). */
  private compile(t: TenantRef, req: SearchRequest): CompiledSearch {
    return compileSearch(t, req, this.embeddingDim);
  }

  /** The open handle of a provisioned index, or 503. */
  private usable(t: TenantRef): Database {
    const name = this.namespaceOf(t);
    if (!existsSync(this.fileOf(name))) {
      this.handles.close(name);
      throw new AppError("unavailable", `The document index ${name} is not provisioned`);
    }
    return this.handle(name, false);
  }

  private fileOf(name: string): string {
    return join(this.dir, `${name}${FILE_SUFFIX}`);
  }

  private handle(name: string, create: boolean): Database {
    this.assertOpen();
    return this.handles.get(name, () => {
      if (create) mkdirSync(this.dir, { recursive: true });
      const db = new Database(this.fileOf(name), { create, readwrite: true, strict: true });
      try {
        db.exec("PRAGMA journal_mode = WAL;");
        db.exec("PRAGMA synchronous = NORMAL;");
        db.exec("PRAGMA busy_timeout = 5000;");
        loadVec(db);
        upgradeInPlace(db);
      } catch (err) {
        db.close();
        throw err;
      }
      return db;
    });
  }

  /** Null when the file holds the full schema at our width, else the reason it does not. */
  private verify(db: Database): string | null {
    const present = new Set(
      db
        .query<{ name: string }, []>("SELECT name FROM sqlite_master WHERE type = 'table'")
        .all()
        .map((r) => r.name),
    );
    const missing = REQUIRED_TABLES.filter((t) => !present.has(t));
    if (missing.length > 0) return `missing tables: ${missing.join(", ")}`;
    const meta = new Map(
      db
        .query<{ key: string; value: string }, []>("SELECT key, value FROM _namespace")
        .all()
        .map((r) => [r.key, r.value]),
    );
    if (meta.get("embedding_dim") !== String(this.embeddingDim)) {
      return `embedding width is ${meta.get("embedding_dim")}, this service uses ${this.embeddingDim}`;
    }
    if (meta.get("schema_version") !== String(SCHEMA_VERSION)) {
      return `schema version is ${meta.get("schema_version")}, this service uses ${SCHEMA_VERSION}`;
    }
    return null;
  }

  private probeLeftovers(db: Database, seq: number, token: string): number {
    const row = db
      .query<{ n: number }, [number, string, number]>(
        `SELECT (SELECT count(*) FROM chunks WHERE seq = ?)
              + (SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH ?)
              + (SELECT count(*) FROM chunks_vec WHERE seq = ?) AS n`,
      )
      .get(seq, token, seq);
    return row?.n ?? 0;
  }

  private assertOpen(): void {
    if (this.closed) throw new AppError("unavailable", "document index adapter is closed");
  }
}

function loadVec(db: Database): void {
  try {
    sqliteVec.load(db);
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    throw new AppError(
      "unavailable",
      `sqlite-vec could not be loaded (${why}); on macOS call Database.setCustomSQLite() with a SQLite that allows extensions`,
    );
  }
}

/** Brings an existing file written by an older schema version up to date (no-op otherwise). */
function upgradeInPlace(db: Database): void {
  const hasMeta = db.query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '_namespace'").get();
  if (!hasMeta) return;
  const read = () =>
    Number(db.query<{ value: string }, []>("SELECT value FROM _namespace WHERE key = 'schema_version'").get()?.value);
  const version = read();
  if (!Number.isInteger(version) || version >= SCHEMA_VERSION) return;
  const dim = Number(
    db.query<{ value: string }, []>("SELECT value FROM _namespace WHERE key = 'embedding_dim'").get()?.value,
  );
  if (!Number.isInteger(dim) || dim < 1) return;
  db.transaction(() => {
    if (read() >= SCHEMA_VERSION) return; // another process upgraded it meanwhile
    db.exec(schemaSql(dim));
    db.exec(upgradeSql(version));
  }).immediate();
}
