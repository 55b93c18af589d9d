/**
 * The cluster document index: one OpenSearch index per tenant (`client-docs-{tenant_id}`)
 * holding a `document` record per document and a `chunk` record per chunk. Hybrid search
 * runs a BM25 `match` leg and a `knn` leg in one _msearch, each carrying the same ACL bool
 * filter (opensearch-query.ts), and fuses them with the shared RRF code.
 *
 * Vectors: `knn_vector` with the Lucene HNSW engine (cosine). The k-NN plugin's FAISS and
 * NMSLIB natives are not on Maven Central, so the test node has only its Java part; the
 * Lucene engine needs nothing else and applies a `knn` query's `filter` while searching
 * (exact search when the filter is selective), so the vector leg returns its best N among
 * permitted chunks.
 *
 * Replacing a document's chunks: the index has one shard and `refresh_interval: -1`; a
 * write is one _bulk (new chunks, deletes of chunks the new version lacks, the document
 * record) followed by one refresh, so searchers see the old set or the new set. Writes to
 * one tenant are serialised within an instance (a refresh by a concurrent writer on
 * another instance could expose a half-applied bulk; see docs/search.md).
 */
import { Client } from "@opensearch-project/opensearch";
import { compileAcl } from "../../domain/documents/acl.ts";
import { candidatesPerLeg, type LegHit, rankForMode } from "../../domain/documents/fusion.ts";
import type { DocumentIndexPort } from "../../domain/documents/ports.ts";
import type { DocumentMeta, IndexedChunk, SearchHit, SearchRequest } from "../../domain/documents/types.ts";
import { AppError } from "../../domain/errors.ts";
import { documentIndexName, type NamespacePort, type TenantRef } from "../../domain/tenants/namespaces.ts";
import {
  type ChunkSource,
  chunkId,
  DOC_PREFIX,
  type DocSource,
  docRecordId,
  indexBody,
  MAPPING_VERSION,
  searchFilter,
} from "./opensearch-query.ts";
import { checkChunks, compileSearch } from "./search-request.ts";

export interface OpenSearchDocumentIndexOptions {
  url: string;
  /** Embedding width of the `knn_vector` field (768 in the service). */
  embeddingDim?: number;
  /** Replicas per tenant index (0 for a single node). */
  replicas?: number;
  /** Prepended to every index name; tests use it to get a namespace of their own. */
  indexPrefix?: string;
  requestTimeoutMs?: number;
}

const NAME_PATTERN = /^client-docs-[a-z0-9][a-z0-9_-]{0,127}$/;

interface Raw {
  statusCode: number | null;
  body: unknown;
}

export class OpenSearchDocumentIndex implements NamespacePort, DocumentIndexPort {
  readonly engine = "document_index" as const;
  private readonly client: Client;
  private readonly dim: number;
  private readonly prefix: string;
  private readonly replicas: number;
  /** Per-index write chain: one write at a time per tenant on this instance. */
  private readonly writes = new Map<string, Promise<unknown>>();
  private closed = false;

  constructor(opts: OpenSearchDocumentIndexOptions) {
    this.client = new Client({ node: opts.url, requestTimeout: opts.requestTimeoutMs ?? 30_000, maxRetries: 2 });
    this.dim = opts.embeddingDim ?? 768;
    this.prefix = opts.indexPrefix ?? "";
    this.replicas = opts.replicas ?? 0;
    if (!/^[a-z0-9_-]*$/.test(this.prefix)) throw new Error(`indexPrefix must be [a-z0-9_-]*, got ${this.prefix}`);
  }

  namespaceOf(t: TenantRef): string {
    // OpenSearch index names are lower case; tenant ids are UUIDs, so nothing is lost.
    const name = documentIndexName(t.tenantId).toLowerCase();
    if (!NAME_PATTERN.test(name))
      throw new AppError("bad_request", `invalid tenant id for a document index: ${t.tenantId}`);
    return `${this.prefix}${name}`;
  }

  async ensureNamespace(t: TenantRef): Promise<string> {
    const name = this.namespaceOf(t);
    const res = await this.call("PUT", `/${name}`, indexBody(this.dim, this.replicas), [400]);
    if (res.statusCode === 400 && !errorType(res.body).includes("resource_already_exists")) {
      throw new AppError("internal", `creating ${name}: ${errorReason(res.body)}`);
    }
    const problem = await this.verify(name);
    if (problem) throw new AppError("internal", `document index ${name}: ${problem}`);
    return name;
  }

  async namespaceExists(t: TenantRef): Promise<boolean> {
    return (await this.verify(this.namespaceOf(t))) === null;
  }

  async dropNamespace(t: TenantRef): Promise<void> {
    await this.call("DELETE", `/${this.namespaceOf(t)}`, undefined, [404]);
  }

  async smokeTest(t: TenantRef): Promise<void> {
    const name = this.namespaceOf(t);
    if ((await this.call("HEAD", `/${name}`, undefined, [404])).statusCode === 404) {
      throw new AppError("not_found", `document index ${name} does not exist`);
    }
    const marker = crypto.randomUUID().replaceAll("-", "");
    const token = `cairnprobe${marker}`;
    const id = `probe:${marker}`;
    const vector = Array.from({ length: this.dim }, () => Math.random() - 0.5);
    await this.call("PUT", `/${name}/_doc/${id}`, { kind: "probe", text: `smoke ${token}`, embedding: vector }, [], {
      refresh: "true",
    });
    try {
      const probe = { term: { kind: "probe" } };
      const fts = await this.call("POST", `/${name}/_search`, {
        query: { bool: { must: [{ match: { text: token } }], filter: [probe] } },
        _source: false,
      });
      if (hitIds(fts.body).join() !== id) throw new AppError("internal", `${name}: BM25 did not find the probe`);
      const knn = await this.call("POST", `/${name}/_search`, {
        size: 1,
        query: { knn: { embedding: { vector, k: 1, filter: probe } } },
        _source: false,
      });
      if (hitIds(knn.body).join() !== id) throw new AppError("internal", `${name}: kNN did not find the probe`);
    } finally {
      await this.call("DELETE", `/${name}/_doc/${id}`, undefined, [404], { refresh: "true" });
    }
    const left = await this.call("POST", `/${name}/_count`, { query: { ids: { values: [id] } } });
    const n = (left.body as { count?: number }).count ?? -1;
    if (n !== 0) throw new AppError("internal", `${name}: probe left ${n} records behind`);
  }

  async listNamespaces(): Promise<string[]> {
    const res = await this.call("GET", `/_cat/indices/${this.prefix}client-docs-*`, undefined, [404], {
      format: "json",
      h: "index",
    });
    if (res.statusCode === 404) return [];
    return (res.body as { index: string }[])
      .map((r) => r.index)
      .filter((n) => n.startsWith(this.prefix) && NAME_PATTERN.test(n.slice(this.prefix.length)))
      .sort();
  }

  /** Chunk and document records in the tenant's index (0 when absent). */
  async countRecords(t: TenantRef): Promise<number> {
    const name = this.namespaceOf(t);
    const res = await this.call("GET", `/${name}/_count`, undefined, [404]);
    return res.statusCode === 404 ? 0 : ((res.body as { count?: number }).count ?? 0);
  }

  async ping(): Promise<void> {
    await this.call("GET", "/_cluster/health", undefined, [], { wait_for_status: "yellow", timeout: "10s" });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.client.close();
  }

  // -- DocumentIndexPort ---------------------------------------------------------------

  async ready(t: TenantRef): Promise<boolean> {
    return this.namespaceExists(t);
  }

  async putDocument(t: TenantRef, doc: DocumentMeta, chunks: IndexedChunk[]): Promise<void> {
    const name = this.namespaceOf(t);
    checkChunks(doc, chunks, this.dim);
    if (doc.doc_id.startsWith(DOC_PREFIX)) throw new AppError("bad_request", `invalid doc_id ${doc.doc_id}`);
    await this.serialised(name, async () => {
      await this.requireIndex(name);
      const old = await this.docRecord(name, doc.doc_id);
      const keep = new Set(chunks.map((c) => c.id));
      const lines: unknown[] = [];
      const base = aclFields(doc);
      for (const c of chunks) {
        const source: ChunkSource = {
          kind: "chunk",
          ...base,
          chunk_id: c.id,
          chunk_index: c.chunk_index,
          text: c.text,
          page: c.page ?? null,
          embedding: Array.from(c.embedding),
        };
        lines.push({ index: { _id: chunkId(c.id) } }, source);
      }
      for (const id of old?.chunk_ids ?? []) if (!keep.has(id)) lines.push({ delete: { _id: chunkId(id) } });
      const record: DocSource = { kind: "document", ...base, document: doc, chunk_ids: [...keep] };
      lines.push({ index: { _id: docRecordId(doc.doc_id) } }, record);
      await this.bulk(name, lines);
    });
  }

  async deleteDocument(t: TenantRef, docId: string): Promise<boolean> {
    const name = this.namespaceOf(t);
    return this.serialised(name, async () => {
      await this.requireIndex(name);
      const old = await this.docRecord(name, docId);
      if (!old) return false;
      const lines: unknown[] = old.chunk_ids.map((id) => ({ delete: { _id: chunkId(id) } }));
      lines.push({ delete: { _id: docRecordId(docId) } });
      await this.bulk(name, lines);
      return true;
    });
  }

  async getDocument(t: TenantRef, docId: string): Promise<(DocumentMeta & { chunks: number }) | null> {
    const name = this.namespaceOf(t);
    await this.requireIndex(name);
    const rec = await this.docRecord(name, docId);
    return rec ? { ...rec.document, chunks: rec.chunk_ids.length } : null;
  }

  async search(t: TenantRef, req: SearchRequest): Promise<SearchHit[]> {
    const c = compileSearch(t, req, this.dim);
    const name = this.namespaceOf(t);
    const limit = candidatesPerLeg(c.k);
    const filter = searchFilter(compileAcl(req.access), c.filters);
    const source = { excludes: ["embedding"] };
    const legs: ("bm25" | "dense")[] = [];
    const body: unknown[] = [];
    if (c.mode !== "dense" && c.query.trim() !== "") {
      legs.push("bm25");
      body.push(
        {},
        { size: limit, _source: source, query: { bool: { must: [{ match: { text: c.query } }], filter } } },
      );
    }
    if (c.mode !== "bm25" && c.embedding) {
      legs.push("dense");
      const vector = Array.from(c.embedding);
      body.push({}, { size: limit, _source: source, query: { knn: { embedding: { vector, k: limit, filter } } } });
    }
    if (legs.length === 0) {
      await this.requireIndex(name);
      return [];
    }
    const res = await this.call("POST", `/${name}/_msearch`, body, [404], {}, true);
    if (res.statusCode === 404) throw new AppError("unavailable", `The document index ${name} is not provisioned`);
    const responses = (res.body as { responses: MsearchResponse[] }).responses;
    const sources = new Map<string, ChunkSource>();
    const byLeg: Record<"bm25" | "dense", LegHit[]> = { bm25: [], dense: [] };
    legs.forEach((leg, i) => {
      const r = responses[i];
      if (r?.error && errorType(r).includes("index_not_found")) {
        throw new AppError("unavailable", `The document index ${name} is not provisioned`);
      }
      if (!r || r.error) throw new AppError("internal", `${name} ${leg} leg: ${errorReason(r)}`);
      for (const h of r.hits.hits) {
        sources.set(h._id, h._source);
        // Lucene's cosine score is (1 + cos) / 2: report the cosine itself, as SQLite does.
        byLeg[leg].push({ id: h._id, score: leg === "dense" ? 2 * h._score - 1 : h._score });
      }
    });
    const ranked = rankForMode(c.mode, byLeg.bm25, byLeg.dense, c.k, c.weights ? { weights: c.weights } : {});
    return ranked.map((f) => {
      const s = sources.get(f.id) as ChunkSource;
      return {
        chunk_id: s.chunk_id,
        doc_id: s.doc_id,
        chunk_index: s.chunk_index,
        text: s.text,
        page: s.page ?? null,
        score: f.score,
        ranks: f.ranks,
        document: s.document,
      };
    });
  }

  // -- internals -----------------------------------------------------------------------

  private async serialised<T>(name: string, fn: () => Promise<T>): Promise<T> {
    const prev = this.writes.get(name) ?? Promise.resolve();
    const run = prev.then(fn, fn);
    const tail = run.catch(() => undefined);
    this.writes.set(name, tail);
    try {
      return await run;
    } finally {
      if (this.writes.get(name) === tail) this.writes.delete(name);
    }
  }

  private async bulk(name: string, lines: unknown[]): Promise<void> {
    const res = await this.call("POST", `/${name}/_bulk`, lines, [], { refresh: "true" }, true);
    const body = res.body as { errors: boolean; items: Record<string, { status: number; error?: unknown }>[] };
    if (body.errors) {
      const failed = body.items.map((i) => Object.values(i)[0]).find((r) => r?.error && r.status !== 404);
      if (failed) throw new AppError("internal", `${name} bulk write failed: ${errorReason(failed)}`);
    }
  }

  private async docRecord(name: string, docId: string): Promise<DocSource | null> {
    const res = await this.call("GET", `/${name}/_doc/${encodeURIComponent(docRecordId(docId))}`, undefined, [404]);
    const body = res.body as { found?: boolean; _source?: DocSource };
    return res.statusCode === 404 || !body.found || !body._source ? null : body._source;
  }

  private async requireIndex(name: string): Promise<void> {
    const res = await this.call("HEAD", `/${name}`, undefined, [404]);
    if (res.statusCode === 404) throw new AppError("unavailable", `The document index ${name} is not provisioned`);
  }

  /** Null when the index exists with our mapping and vector width, else the reason. */
  private async verify(name: string): Promise<string | null> {
    const res = await this.call("GET", `/${name}/_mapping`, undefined, [404]);
    if (res.statusCode === 404) return "does not exist";
    const mapping = (res.body as Record<string, { mappings?: MappingBody }>)[name]?.mappings;
    const dim = mapping?.properties?.embedding?.dimension;
    if (dim !== this.dim) return `embedding width is ${dim}, this service uses ${this.dim}`;
    const version = mapping?._meta?.cairn_mapping_version;
    if (version !== MAPPING_VERSION) return `mapping version is ${version}, this service uses ${MAPPING_VERSION}`;
    return null;
  }

  private async call(
    method: string,
    path: string,
    body?: unknown,
    ignore: number[] = [],
    querystring: Record<string, string> = {},
    ndjson = false,
  ): Promise<Raw> {
    if (this.closed) throw new AppError("unavailable", "document index adapter is closed");
    try {
      const params = ndjson
        ? { method, path, querystring, bulkBody: body as Record<string, unknown>[] }
        : { method, path, querystring, ...(body === undefined ? {} : { body: body as Record<string, unknown> }) };
      const res = await this.client.transport.request(params, { ignore });
      return { statusCode: res.statusCode ?? null, body: res.body };
    } catch (err) {
      const status = (err as { meta?: { statusCode?: number } }).meta?.statusCode;
      const reason = errorReason((err as { meta?: { body?: unknown } }).meta?.body) || String(err);
      if (status === undefined || status >= 500) {
        throw new AppError("unavailable", `OpenSearch ${method} ${path}: ${reason}`);
      }
      throw new AppError("internal", `OpenSearch ${method} ${path} (${status}): ${reason}`);
    }
  }
}

interface MsearchResponse {
  error?: unknown;
  hits: { hits: { _id: string; _score: number; _source: ChunkSource }[] };
}

interface MappingBody {
  _meta?: { cairn_mapping_version?: number };
  properties?: { embedding?: { dimension?: number } };
}

function aclFields(doc: DocumentMeta) {
  return {
    doc_id: doc.doc_id,
    visibility: doc.acl.visibility,
    allowed_identity_ids: doc.acl.allowed_identity_ids,
    allowed_roles: doc.acl.allowed_roles,
    barrier_id: doc.acl.barrier_id,
    entity_id: doc.entity_id,
    doc_type: doc.doc_type,
    document: doc,
  };
}

function hitIds(body: unknown): string[] {
  return ((body as { hits?: { hits?: { _id: string }[] } }).hits?.hits ?? []).map((h) => h._id);
}

function errorType(body: unknown): string {
  const e = (body as { error?: { type?: string } } | undefined)?.error;
  return e?.type ?? "";
}

function errorReason(body: unknown): string {
  const e = (body as { error?: unknown } | undefined)?.error;
  if (!e) return "";
  if (typeof e === "string") return e;
  const o = e as { type?: string; reason?: string; root_cause?: { reason?: string }[] };
  return `${o.type ?? "error"}: ${o.reason ?? o.root_cause?.[0]?.reason ?? JSON.stringify(e)}`;
}
