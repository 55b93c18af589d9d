import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { OpenSearchDocumentIndex, SqliteDocumentIndex } from "../../adapters/docindex/index.ts";
import { engineUrl } from "../engines.ts";
import { startTestService } from "../harness.ts";
import { prng } from "../prng.ts";
import { ACL_OPEN, chunks, meta, runDocumentIndexContract, unitVector } from "./docindex.contract.ts";
import { runNamespaceContract } from "./namespaces.contract.ts";

const dir = mkdtempSync(join(tmpdir(), "cairn-docidx-contract-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// One search thread: the searches cross to a worker exactly as in the service.
// The embedded index is cheap to fill, so its ACL property test runs more random corpora.
runDocumentIndexContract(
  "SQLite FTS5 + sqlite-vec",
  () => new SqliteDocumentIndex({ dataDir: dir, searchThreads: 1 }),
  { aclCorpora: 12 },
);
// Every search split in two parts on two threads when they are idle (search-pool.ts): the ACL
// property and every other clause must hold on that path too.
let splitting: SqliteDocumentIndex | undefined;
runDocumentIndexContract(
  "SQLite, searches split over two threads",
  () => {
    splitting = new SqliteDocumentIndex({ dataDir: join(dir, "split"), searchThreads: 2, splitKeywordMs: 0 });
    return splitting;
  },
  { aclCorpora: 6 },
);
test("the split contract above ran split searches", () => {
  expect(splitting?.searchStats()?.split ?? 0).toBeGreaterThan(50);
});
runDocumentIndexContract(
  "SQLite, searches inline",
  () => new SqliteDocumentIndex({ dataDir: join(dir, "inline"), searchThreads: 0 }),
);
// The same contract with the HNSW vector leg forced on (minChunks 0; small tenants build
// inline): over-fetch, the ACL check per candidate and the exact fallback must give the
// exact leg's answers, on a search thread and inline.
runDocumentIndexContract(
  "SQLite + HNSW (usearch) vector leg",
  () => new SqliteDocumentIndex({ dataDir: join(dir, "ann"), searchThreads: 1, ann: { minChunks: 0 } }),
  { aclCorpora: 6 },
);
runDocumentIndexContract(
  "SQLite + HNSW, searches inline",
  () => new SqliteDocumentIndex({ dataDir: join(dir, "ann-inline"), searchThreads: 0, ann: { minChunks: 0 } }),
);

const url = engineUrl("opensearch");
runDocumentIndexContract("OpenSearch (BM25 + Lucene kNN)", () =>
  url ? new OpenSearchDocumentIndex({ url, indexPrefix: `t${crypto.randomUUID().slice(0, 8)}-` }) : undefined,
);
if (url) {
  // The cluster index is also the provisioning NamespacePort: a prefix per test gives each
  // one a namespace of its own on the shared node.
  // The prefix follows the data directory, so "close and reopen" finds the same indexes.
  const prefixOf = (dataDir: string) =>
    `n${new Bun.CryptoHasher("sha256").update(dataDir).digest("hex").slice(0, 10)}-`;
  runNamespaceContract(
    "document index (OpenSearch)",
    (dataDir) => new OpenSearchDocumentIndex({ url, indexPrefix: prefixOf(dataDir) }),
  );
}

describe.skipIf(!url)("cluster profile wiring", () => {
  test("CAIRN_OPENSEARCH_URL puts the service's document index on OpenSearch; the barrier path reaches it", async () => {
    const svc = await startTestService({ CAIRN_OPENSEARCH_URL: url as string });
    const t = { tenantId: svc.tenantId, slug: "wired" };
    const index = svc.service.engines.documentIndex;
    try {
      expect(index).toBeInstanceOf(OpenSearchDocumentIndex);
      const os = index as OpenSearchDocumentIndex;
      await os.ensureNamespace(t);
      await os.smokeTest(t);
      const user = await svc.user("wired@docs.test", "enterprise", ["analyst"]);
      const { documents } = svc.service.deps;
      const { barriers } = documents;
      const admin = { tenantId: svc.tenantId, by: "test" };
      const wall = await barriers.create(admin, { name: "Kestrel", description: "" });
      const docId = crypto.randomUUID();
      await os.putDocument(
        t,
        meta(docId, { acl: { ...ACL_OPEN, barrier_id: wall.barrier_id } }),
        chunks(docId, ["kestrel diligence"], [unitVector(prng(3))]),
      );
      const find = async () => {
        const access = await documents.accessFor({ tenantId: svc.tenantId, userId: user.id, roles: user.roles });
        return (await documents.search(t, access, { query: "kestrel", filters: {}, k: 3, mode: "bm25" })).map(
          (h) => h.doc_id,
        );
      };
      expect(await find()).toEqual([]);
      await barriers.cross(admin, wall.barrier_id, String(user.id));
      expect(await find()).toEqual([docId]);
      await barriers.revoke(admin, wall.barrier_id, String(user.id));
      expect(await find()).toEqual([]);
    } finally {
      await (index as OpenSearchDocumentIndex).dropNamespace(t);
      await svc.close();
    }
  });
});
