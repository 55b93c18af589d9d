/**
 * The re-index job end to end on the real embedded queue and a real SQLite control plane;
 * the document index and embedder are small in-memory implementations of our own ports
 * (the documents area provides the engines).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SqlControlPlaneStore } from "../../adapters/controlplane/index.ts";
import { EDITOR_MIGRATIONS, SqlEditorDocumentStore } from "../../adapters/editor/index.ts";
import { EmbeddedJobQueue, JOB_QUEUE_MIGRATIONS } from "../../adapters/queue/index.ts";
import { SqliteClient } from "../../adapters/sql/index.ts";
import { waitFor } from "../../test/wait.ts";
import type { DocumentIndexPort, Embedder } from "../documents/ports.ts";
import type { DocumentMeta, IndexedChunk, SearchHit, TextBlock } from "../documents/types.ts";
import { userIdentity } from "../identity.ts";
import type { JobEvent, JobWorker, User } from "../ports.ts";
import { EDITOR_REINDEX_QUEUE, makeEditorReindexHandler, startEditorReindexWorker } from "./reindex.ts";
import { parseDocAst } from "./schema.ts";
import { EditorService } from "./service.ts";

class MemoryIndex implements DocumentIndexPort {
  readonly docs = new Map<string, { meta: DocumentMeta; chunks: IndexedChunk[] }>();
  ready_ = true;
  async ready(): Promise<boolean> {
    return this.ready_;
  }
  async putDocument(_t: unknown, doc: DocumentMeta, chunks: IndexedChunk[]): Promise<void> {
    this.docs.set(doc.doc_id, { meta: doc, chunks });
  }
  async deleteDocument(_t: unknown, docId: string): Promise<boolean> {
    return this.docs.delete(docId);
  }
  async getDocument(_t: unknown, docId: string) {
    const d = this.docs.get(docId);
    return d ? { ...d.meta, chunks: d.chunks.length } : null;
  }
  async search(): Promise<SearchHit[]> {
    return [];
  }
}

const embedder: Embedder = {
  dim: 4,
  model: "test-hash",
  async embed(texts) {
    return texts.map((t) => new Float32Array([t.length, 1, 0, 0]));
  },
  async close() {},
};
const chunker = (blocks: TextBlock[]) => blocks.map((b, i) => ({ chunk_index: i, text: b.text }));

const ast = (...texts: string[]) => {
  const r = parseDocAst({
    type: "doc",
    content: texts.map((text) => ({ type: "paragraph", content: [{ type: "text", text }] })),
  });
  if (!r.ok) throw new Error("bad test doc");
  return r.node;
};

describe("editor re-index job", () => {
  let dir: string;
  let sql: SqliteClient;
  let queue: EmbeddedJobQueue;
  let worker: JobWorker;
  let service: EditorService;
  let store: SqlEditorDocumentStore;
  let owner: User;
  let tenantId: string;
  const index = new MemoryIndex();
  const completed = new Set<string>();

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "cairn-edidx-"));
    sql = new SqliteClient(join(dir, "cp.sqlite"));
    const cp = new SqlControlPlaneStore(sql);
    await cp.migrate([...JOB_QUEUE_MIGRATIONS, ...EDITOR_MIGRATIONS]);
    const tenant = await cp.createTenant({
      slug: "idx",
      display_name: "idx",
      tier: "enterprise",
      region: "local",
      provisioning_state: "active",
      is_active: true,
    });
    tenantId = tenant.tenant_id;
    owner = await cp.createUser({
      tenant_id: tenantId,
      email: "o@idx.test",
      name: "o",
      tier: "pro",
      roles: ["editor"],
    });
    await cp.createUser({ tenant_id: tenantId, email: "m@idx.test", name: "m", tier: "pro", roles: ["editor"] });
    queue = new EmbeddedJobQueue(sql, { leaseMs: 30_000 });
    queue.onEvent(EDITOR_REINDEX_QUEUE, (e: JobEvent) => {
      if (e.type === "completed") completed.add(e.jobId);
    });
    store = new SqlEditorDocumentStore(sql);
    service = new EditorService({
      store,
      queue,
      verifyToken: async () => {
        throw new Error("unused");
      },
      requireActiveTenant: async () => {},
      findUser: (id) => cp.getUser(id),
    });
    worker = startEditorReindexWorker(queue, { store, getTenant: (id) => cp.getTenant(id) }, index, embedder, chunker);
  });
  afterAll(async () => {
    await worker.close();
    await queue.close();
    await sql.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const jobDone = (docId: string, gen: number) =>
    waitFor(`re-index of ${docId} g${gen}`, () => completed.has(`editor-reindex-${docId}-g${gen}`), {
      timeoutMs: 20_000,
      everyMs: 20,
    });

  test("a new document is indexed with its text and private access rules; edits and sharing re-index", async () => {
    const me = userIdentity(owner, "api_key_and_jwt");
    const doc = await service.create(me, { title: "Deal memo", doc_ast: ast("Revenue grew", "Margins fell") });
    await jobDone(doc.doc_id, 1);
    const first = index.docs.get(doc.doc_id);
    expect(first?.chunks.map((c) => [c.id, c.text])).toEqual([
      [`${doc.doc_id}:0`, "Deal memo"],
      [`${doc.doc_id}:1`, "Revenue grew"],
      [`${doc.doc_id}:2`, "Margins fell"],
    ]);
    expect(first?.meta).toMatchObject({
      filename: "Deal memo",
      format: "editor",
      doc_type: "other",
      uploaded_by: String(owner.id),
      acl: {
        visibility: "deal_private",
        allowed_identity_ids: [String(owner.id)],
        allowed_roles: [],
        barrier_id: null,
      },
    });

    await service.patch(me, doc.doc_id, { doc_ast: ast("Revenue grew 12%") });
    await jobDone(doc.doc_id, 2);
    expect(index.docs.get(doc.doc_id)?.chunks.map((c) => c.text)).toEqual(["Deal memo", "Revenue grew 12%"]);

    await service.setGeneralAccess(me, doc.doc_id, "viewer");
    await jobDone(doc.doc_id, 3);
    expect(index.docs.get(doc.doc_id)?.meta.acl.visibility).toBe("tenant_wide");
    expect(await store.indexState(doc.doc_id)).toEqual({ generation: 3, indexed: 3 });
  });

  test("a job already covered by a newer indexing does nothing; an unprovisioned index is skipped", async () => {
    const me = userIdentity(owner, "api_key_and_jwt");
    const doc = await service.create(me, { title: "Skip", doc_ast: ast("x") });
    await jobDone(doc.doc_id, 1);
    const handler = makeEditorReindexHandler({
      store,
      getTenant: async () => ({ tenant_id: tenantId, slug: "idx" }),
      index,
      embedder,
      chunker,
    });
    const ctx = (generation: number) => ({
      id: "t",
      name: "reindex",
      data: { doc_id: doc.doc_id, tenant_id: tenantId, generation },
      attempt: 1,
      progress: async () => {},
    });
    expect(await handler(ctx(1))).toEqual({ skipped: "already indexed", generation: 1 });
    await store.bumpIndexGeneration(doc.doc_id);
    index.ready_ = false;
    try {
      expect(await handler(ctx(2))).toEqual({ skipped: "document index not provisioned" });
    } finally {
      index.ready_ = true;
    }
    expect(await handler(ctx(2))).toEqual({ indexed: 2, generation: 2, version: 1 });
  });
});
