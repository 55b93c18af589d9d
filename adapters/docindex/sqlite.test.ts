import { Database } from "bun:sqlite";
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as sqliteVec from "sqlite-vec";
import { HandleCache } from "./handles.ts";
import { SqliteDocumentIndex } from "./sqlite.ts";

describe("SqliteDocumentIndex", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "cairn-docidx-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  test("one file per tenant at <dataDir>/docindex/client-docs-<tenant_id>.sqlite", async () => {
    const idx = new SqliteDocumentIndex({ dataDir: dir });
    const t = { tenantId: crypto.randomUUID(), slug: "acme" };
    expect(await idx.ensureNamespace(t)).toBe(`client-docs-${t.tenantId}`);
    expect(idx.pathOf(t)).toBe(join(dir, "docindex", `client-docs-${t.tenantId}.sqlite`));
    expect(existsSync(idx.pathOf(t))).toBe(true);
    await idx.dropNamespace(t);
    expect(existsSync(idx.pathOf(t))).toBe(false);
    expect(existsSync(`${idx.pathOf(t)}-wal`)).toBe(false);
    await idx.close();
  });

  // The schema the search area relies on: triggers keep FTS and vectors in step with chunks,
  // the vector width is fixed, and an ACL subquery pre-filters the KNN leg.
  test("schema: triggers sync FTS and vec, width is enforced, KNN pre-filter works", async () => {
    const idx = new SqliteDocumentIndex({ dataDir: dir });
    const t = { tenantId: crypto.randomUUID(), slug: "schema" };
    await idx.ensureNamespace(t);
    await idx.close();
    const db = new Database(idx.pathOf(t), { strict: true });
    sqliteVec.load(db);
    const add = (id: string, text: string, vis: string, v: Float32Array) => {
      const r = db
        .query<{ seq: number }, [string, string, string, string, string]>(
          "INSERT INTO chunks (id, doc_id, chunk_index, text, visibility, created_at) VALUES (?, ?, 0, ?, ?, ?) RETURNING seq",
        )
        .get(id, id, text, vis, new Date().toISOString());
      db.query("INSERT INTO chunks_vec (seq, embedding) VALUES (?, ?)").run(r?.seq ?? -1, v);
      return r?.seq;
    };
    const near = new Float32Array(768).fill(0.1);
    // The private chunk is the nearer one, so only a real pre-filter returns the public one alone.
    const pub = add(
      "c1",
      "quarterly revenue grew",
      "public",
      near.map((x, i) => (i === 0 ? 0.9 : x)),
    );
    add("c2", "revenue fell sharply", "private", near);
    expect(db.query("SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH 'revenue'").all()).toHaveLength(2);
    const knn = db
      .query<{ seq: number }, [Float32Array]>(
        `SELECT seq FROM chunks_vec WHERE embedding MATCH ? AND k = 2
           AND seq IN (SELECT seq FROM chunks WHERE visibility = 'public')`,
      )
      .all(near);
    expect(knn.map((r) => r.seq)).toEqual([pub ?? -1]);
    expect(() =>
      db.query("INSERT INTO chunks_vec (seq, embedding) VALUES (99, ?)").run(new Float32Array(384)),
    ).toThrow();
    db.query("DELETE FROM chunks").run();
    expect(db.query("SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH 'revenue'").all()).toHaveLength(0);
    expect(db.query<{ n: number }, []>("SELECT count(*) AS n FROM chunks_vec").get()?.n).toBe(0);
    db.close();
  });

  test("a file built for another embedding width is refused with the reason", async () => {
    const t = { tenantId: crypto.randomUUID(), slug: "width" };
    const small = new SqliteDocumentIndex({ dataDir: dir, embeddingDim: 384 });
    await small.ensureNamespace(t);
    await small.close();
    const idx = new SqliteDocumentIndex({ dataDir: dir });
    expect(await idx.namespaceExists(t)).toBe(false);
    await expect(idx.ensureNamespace(t)).rejects.toThrow(/embedding width is 384/);
    await idx.close();
  });
});

describe("SqliteDocumentIndex schema upgrade", () => {
  test("a version 1 file (no documents table) is upgraded in place on open, its chunks kept", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cairn-docidx-v1-"));
    try {
      const t = { tenantId: crypto.randomUUID(), slug: "v1" };
      const idx = new SqliteDocumentIndex({ dataDir: dir, searchThreads: 0 });
      await idx.ensureNamespace(t);
      await idx.close();
      // Turn the file back into version 1 with one chunk written the version 1 way.
      const db = new Database(idx.pathOf(t), { strict: true });
      sqliteVec.load(db);
      db.exec("DROP TABLE documents; UPDATE _namespace SET value = '1' WHERE key = 'schema_version';");
      const row = db
        .query<{ seq: number }, [string]>(
          `INSERT INTO chunks (id, doc_id, chunk_index, text, metadata, visibility, allowed_roles, doc_type, created_at)
           VALUES ('d1:0', 'd1', 0, 'legacy heron memo', ?, 'team_only', '["legal"]', 'nda', '2025-01-01T00:00:00Z')
           RETURNING seq`,
        )
        .get(JSON.stringify({ filename: "memo.txt", format: "txt", uploaded_by: "3" }));
      db.query("INSERT INTO chunks_vec (seq, embedding) VALUES (?, ?)").run(
        row?.seq ?? -1,
        new Float32Array(768).fill(0.1),
      );
      db.close();

      const again = new SqliteDocumentIndex({ dataDir: dir, searchThreads: 0 });
      expect(await again.namespaceExists(t)).toBe(true);
      expect(await again.getDocument(t, "d1")).toMatchObject({
        filename: "memo.txt",
        doc_type: "nda",
        uploaded_by: "3",
        chunks: 1,
        acl: { visibility: "team_only", allowed_roles: ["legal"], allowed_identity_ids: [], barrier_id: null },
      });
      const search = (roles: string[]) =>
        again.search(t, {
          query: "heron",
          access: { tenantId: t.tenantId, identityId: "1", roles, barriers: [] },
          filters: {},
          k: 3,
          mode: "bm25",
        });
      expect((await search(["legal"])).map((h) => h.chunk_id)).toEqual(["d1:0"]);
      expect(await search(["analyst"])).toEqual([]);
      await again.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("SqliteDocumentIndex search threads", () => {
  const doc = (id: string) => ({
    doc_id: id,
    filename: "a.txt",
    format: "txt",
    doc_type: "other" as const,
    entity_id: null,
    uploaded_by: "1",
    uploaded_at: "2026-01-01T00:00:00Z",
    acl: { visibility: "tenant_wide" as const, allowed_identity_ids: [], allowed_roles: [], barrier_id: null },
  });
  const one = (id: string, text: string) => [
    { chunk_index: 0, text, id: `${id}:0`, embedding: new Float32Array(768).fill(0.1) },
  ];

  test("a dropped and recreated index is never read through a thread's stale handle", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cairn-docidx-pool-"));
    const idx = new SqliteDocumentIndex({ dataDir: dir, searchThreads: 1 });
    try {
      const t = { tenantId: crypto.randomUUID(), slug: "pool" };
      const q = {
        query: "osprey",
        access: { tenantId: t.tenantId, identityId: "1", roles: [], barriers: [] },
        filters: {},
        k: 5,
        mode: "bm25" as const,
      };
      await idx.ensureNamespace(t);
      await idx.putDocument(t, doc("old"), one("old", "osprey old"));
      expect((await idx.search(t, q)).map((h) => h.doc_id)).toEqual(["old"]);
      await idx.dropNamespace(t);
      await expect(idx.search(t, q)).rejects.toMatchObject({ code: "unavailable" });
      await idx.ensureNamespace(t);
      expect(await idx.search(t, q)).toEqual([]);
      await idx.putDocument(t, doc("new"), one("new", "osprey new"));
      expect((await idx.search(t, q)).map((h) => h.doc_id)).toEqual(["new"]);
    } finally {
      await idx.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("the number of searches in flight is bounded: past it a search is refused with 503", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cairn-docidx-pool-"));
    const idx = new SqliteDocumentIndex({ dataDir: dir, searchThreads: 1, maxQueuedSearches: 2 });
    try {
      const t = { tenantId: crypto.randomUUID(), slug: "bound" };
      await idx.ensureNamespace(t);
      const q = {
        query: "x",
        access: { tenantId: t.tenantId, identityId: "1", roles: [], barriers: [] },
        filters: {},
        k: 1,
        mode: "bm25" as const,
      };
      const results = await Promise.allSettled([idx.search(t, q), idx.search(t, q), idx.search(t, q)]);
      expect(results.map((r) => r.status)).toEqual(["fulfilled", "fulfilled", "rejected"]);
      expect((results[2] as PromiseRejectedResult).reason).toMatchObject({ code: "unavailable" });
      // Once they finish, searches are accepted again.
      expect(await idx.search(t, q)).toEqual([]);
    } finally {
      await idx.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("HandleCache", () => {
  test("closes the least recently used handle past its capacity", () => {
    const cache = new HandleCache(2);
    const a = cache.get("a", () => new Database(":memory:"));
    cache.get("b", () => new Database(":memory:"));
    cache.get("a", () => new Database(":memory:")); // touch a: b is now the oldest
    const b2 = cache.get("c", () => new Database(":memory:"));
    expect(cache.size).toBe(2);
    expect(cache.has("b")).toBe(false);
    expect(cache.has("a")).toBe(true);
    expect(a.query("SELECT 1 AS x").get()).toEqual({ x: 1 });
    cache.closeAll();
    expect(cache.size).toBe(0);
    expect(() => b2.query("SELECT 1").get()).toThrow();
  });
});
