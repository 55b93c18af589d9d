/**
 * The keyword index beside FTS5 (keyword-index.ts): every caller's keyword leg through it gives
 * FTS5's own bm25() scores, the same doubles, and the same chunks; changes after its build are
 * honoured (deleted chunks never come back, added ones are found), also after a reload from
 * disk; a reused seq or a trimmed log stops it until it is rebuilt; a damaged file is not used,
 * also when only a scrub finds the damage; a holder maps a generation another thread committed
 * (also while its own build runs);
 * and through the adapter, a tenant's searches are the same before, during and after its build.
 * The contract suite (test/contracts/docindex.test.ts, `minChunks: 0`) runs over it too.
 */
import { Database } from "bun:sqlite";
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as sqliteVec from "sqlite-vec";
import type { LegHit } from "../../domain/documents/fusion.ts";
import type { AccessContext, DocumentAcl, DocumentMeta } from "../../domain/documents/types.ts";
import { prng } from "../../test/prng.ts";
import { scrubsSettled } from "./generation-check.ts";
import { keywordFiles, keywordSidecarPath } from "./keyword-file.ts";
import { KeywordIndex } from "./keyword-index.ts";
import { keywordLeg } from "./keyword-leg.ts";
import { KeywordRegistry, rebuildAt } from "./keyword-registry.ts";
import { legMeta, rewriteLater, rot, scope, settle, stampFor } from "./leg-test-support.ts";
import type { LegScope } from "./permitted.ts";
import { schemaSql } from "./schema.ts";
import { SqliteDocumentIndex } from "./sqlite.ts";
import { removeDocument, writeDocument } from "./sqlite-search.ts";

const DIM = 4;
const root = mkdtempSync(join(tmpdir(), "cairn-kw-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const OPEN: DocumentAcl = { visibility: "tenant_wide", allowed_identity_ids: [], allowed_roles: [], barrier_id: null };
const ACLS: DocumentAcl[] = [
  OPEN,
  OPEN,
  { visibility: "deal_private", allowed_identity_ids: ["u1"], allowed_roles: [], barrier_id: null },
  { visibility: "team_only", allowed_identity_ids: [], allowed_roles: ["analyst"], barrier_id: null },
  { ...OPEN, barrier_id: "b1" },
];

// Inflected forms on purpose: the index holds FTS5's porter tokens, the queries carry words.
const VOCAB = (
  "revenue revenues margin margins cash flow flows debt growth growing apple lease leases leasing tax taxes " +
  "income operating net total year fiscal quarter quarterly segment segments product services europe china " +
  "americas dividend dividends share shares repurchase buyback capital expenditure depreciation goodwill " +
  "impairment inventory receivables payables liquidity credit facility notes bonds interest rate hedging " +
  "currency exchange guidance outlook acquisition merger integration synergy restructuring severance pension"
).split(" ");
const ONLY_A = "zirconium";
const ONLY_C = "yttrium";

/** A word by a Zipf-like law, so term frequencies range from most chunks to a few. */
function zipf(r: ReturnType<typeof prng>): string {
  const i = Math.floor(VOCAB.length * r.next() ** 2.5);
  return VOCAB[Math.min(i, VOCAB.length - 1)] as string;
}

function chunks(r: ReturnType<typeof prng>, docId: string, n: number, extra = "") {
  return Array.from({ length: n }, (_, j) => ({
    chunk_index: j,
    id: `${docId}:${j}`,
    text: `${Array.from({ length: 10 + r.int(40) }, () => zipf(r)).join(" ")}${j % 3 === 0 ? ` ${extra}` : ""}`,
    embedding: new Float32Array([1, 0, 0, 0]),
  }));
}

function fileIndex(name: string): { db: Database; file: string } {
  const file = join(root, `${name}.sqlite`);
  const db = new Database(file, { strict: true });
  db.exec("PRAGMA journal_mode = WAL;");
  sqliteVec.load(db);
  db.exec(schemaSql(DIM));
  db.exec(
    "INSERT INTO _namespace (key, value) VALUES ('index_name', 'kw-test'), ('created_at', '2026-11-26T00:00:00Z')",
  );
  return { db, file };
}

/** 60 documents of 20 chunks under five ACLs. */
function corpus(name: string, seed = 11): { db: Database; file: string } {
  const ix = fileIndex(name);
  const r = prng(seed);
  for (let d = 0; d < 60; d++) writeDocument(ix.db, legMeta(d, ACLS[d % ACLS.length]!), chunks(r, `d${d}`, 20), DIM);
  return ix;
}

const SCOPES: LegScope[] = [
  scope(),
  scope({ identity: "u1" }),
  scope({ roles: '["analyst"]', barriers: '["b1"]' }),
  scope({ identity: "u1", roles: '["analyst"]', barriers: '["b1"]' }),
  scope({ identity: "u1", roles: '["analyst"]', barriers: '["b1"]', doc_type: "other", limit: 7 }),
  scope({ identity: "u1", entity_id: "e1", limit: 3 }),
  scope({ identity: "u1", roles: '["analyst"]', barriers: '["b1"]', doc_id: "d7" }), // past the candidate cap
  scope({ doc_id: "d4" }), // a document the caller may not see: nothing
];

function queries(seed: number): string[] {
  const r = prng(seed);
  const qs = Array.from({ length: 30 }, () => Array.from({ length: 1 + r.int(6) }, () => zipf(r)).join(" "));
  return [...qs, "What was the revenue growth of Apple?", "leases and taxes", `${ONLY_A} cash`, `${ONLY_C} debt`];
}

/**
 * The keyword leg's answer made comparable across tie orders: FTS5 orders equal scores as it
 * likes, so the scores must be equal in order and the chunks equal except among those tied
 * with the last one kept (which of them make the cut is arbitrary in either path).
 */
function comparable(hits: LegHit[]): { scores: number[]; above: string[] } {
  const last = hits.at(-1)?.score;
  return {
    scores: hits.map((h) => h.score),
    above: hits
      .filter((h) => h.score !== last)
      .map((h) => `${h.score}:${h.id}`)
      .sort(),
  };
}

/** The index as a search thread sees it: loaded from disk in a read snapshot, checked usable. */
function within<T>(db: Database, f: () => T): T {
  return db.transaction(f).deferred();
}

function sameAsFts5(db: Database, kw: KeywordIndex, qs: string[]): number {
  let compared = 0;
  within(db, () => {
    expect(kw.usable(db)).toBe(true);
    for (const s of SCOPES)
      for (const q of qs) {
        const want = keywordLeg(db, s, q);
        const got = keywordLeg(db, s, q, undefined, kw);
        expect({ q, s, ...comparable(got) }).toEqual({ q, s, ...comparable(want) });
        compared += want.length;
      }
  });
  return compared;
}

describe("keyword index", () => {
  test("every caller's keyword leg gets FTS5's bm25() scores (the same doubles) and chunks", () => {
    const { db, file } = corpus("same");
    const kw = within(db, () => KeywordIndex.build(db, file)) as KeywordIndex;
    expect(kw.rows).toBe(1200);
    expect(sameAsFts5(db, kw, queries(3))).toBeGreaterThan(2000);
    // Loaded from its file (mapped), as another thread or a restarted process gets it.
    const loaded = within(db, () => KeywordIndex.load(db, file)) as KeywordIndex;
    expect(loaded).not.toBeNull();
    expect(sameAsFts5(db, loaded, queries(4))).toBeGreaterThan(2000);
    db.close();
  });

  test("after its build: deleted chunks never come back, added ones are found, also after a reload", () => {
    const { db, file } = corpus("drift");
    const r = prng(5);
    writeDocument(db, legMeta(100, OPEN), chunks(r, "A", 20, ONLY_A), DIM);
    writeDocument(db, legMeta(101, OPEN), chunks(r, "B", 20), DIM); // A is not at the top of the rowids
    const kw = within(db, () => KeywordIndex.build(db, file)) as KeywordIndex;
    const hitsOf = (k: KeywordIndex, q: string) =>
      within(db, () => (k.usable(db) ? keywordLeg(db, scope(), q, undefined, k) : null));
    expect(hitsOf(kw, ONLY_A)?.length).toBe(7); // chunks 0, 3, … 18 carry the word
    const seqsOfA = new Set(
      db
        .query<{ seq: number }, []>("SELECT seq FROM chunks WHERE doc_id = 'd100'")
        .all()
        .map((x) => String(x.seq)),
    );
    removeDocument(db, "d100");
    writeDocument(db, legMeta(102, OPEN), chunks(r, "C", 20, ONLY_C), DIM);
    for (const k of [kw, within(db, () => KeywordIndex.load(db, file)) as KeywordIndex]) {
      expect(hitsOf(k, ONLY_A)).toEqual([]);
      expect(hitsOf(k, `${ONLY_A} cash`)?.filter((h) => seqsOfA.has(h.id))).toEqual([]);
      expect(hitsOf(k, ONLY_C)?.length).toBe(7);
      // A filter on a document written after the build: FTS5 scores its chunks, alone.
      const inC = scope({ doc_id: "d102" });
      const got = within(db, () => (k.usable(db) ? keywordLeg(db, inC, `${ONLY_C} cash`, undefined, k) : null));
      expect(got).toEqual(within(db, () => keywordLeg(db, inC, `${ONLY_C} cash`)));
      expect(got?.length).toBeGreaterThanOrEqual(7);
      expect(sameAsFts5(db, k, queries(6))).toBeGreaterThan(2000);
    }
    db.close();
  });

  test("a reused seq or a log trimmed past it stops the index; the registry rebuilds it", () => {
    const { db, file } = corpus("reuse");
    const r = prng(9);
    writeDocument(db, legMeta(100, OPEN), chunks(r, "A", 20, ONLY_A), DIM); // the highest rowids
    const kw = within(db, () => KeywordIndex.build(db, file)) as KeywordIndex;
    removeDocument(db, "d100");
    writeDocument(db, legMeta(102, OPEN), chunks(r, "C", 20, ONLY_C), DIM); // takes A's rowids
    expect(within(db, () => kw.usable(db))).toBe(false);
    const reg = new KeywordRegistry();
    const opts = { minChunks: 0, syncBuildMax: 1_000_000 };
    const rebuilt = within(db, () => reg.get(db, file, opts)) as KeywordIndex;
    expect(rebuilt).not.toBeNull();
    expect(within(db, () => keywordLeg(db, scope(), ONLY_C, undefined, rebuilt)).length).toBe(7);
    expect(within(db, () => keywordLeg(db, scope(), ONLY_A, undefined, rebuilt))).toEqual([]);
    // The log trimmed past the watermark: what changed is unknown, so not usable.
    writeDocument(db, legMeta(103, OPEN), chunks(r, "D", 5), DIM);
    const head = db.query<{ n: number }, []>("SELECT max(id) AS n FROM ann_log").get()?.n ?? 0;
    db.query("INSERT INTO _namespace (key, value) VALUES ('ann_log_trimmed', ?)").run(String(head));
    expect(within(db, () => rebuilt.usable(db))).toBe(false);
    const again = within(db, () => reg.get(db, file, opts)) as KeywordIndex;
    expect(again.watermark).toBe(head);
    expect(sameAsFts5(db, again, queries(8))).toBeGreaterThan(2000);
    db.close();
  });

  test("a damaged, truncated or foreign file is not used", () => {
    const { db, file } = corpus("damage");
    within(db, () => KeywordIndex.build(db, file));
    const bin = keywordFiles(file).find((f) => f.endsWith(".bin")) as string;
    const good = readFileSync(bin);
    const flipped = Buffer.from(good);
    const at = Math.floor(flipped.length / 2);
    flipped[at] = (flipped[at] as number) ^ 0x40;
    rewriteLater(bin, flipped);
    expect(within(db, () => KeywordIndex.load(db, file))).toBeNull();
    rewriteLater(bin, good);
    truncateSync(bin, good.length - 8);
    expect(within(db, () => KeywordIndex.load(db, file))).toBeNull();
    rewriteLater(bin, good);
    expect(within(db, () => KeywordIndex.load(db, file))).not.toBeNull();
    // Another file's sidecar (a dropped and recreated namespace) is not this file's.
    const side = JSON.parse(readFileSync(keywordSidecarPath(file), "utf8"));
    writeFileSync(keywordSidecarPath(file), JSON.stringify({ ...side, namespace: "other@2020" }));
    expect(within(db, () => KeywordIndex.load(db, file))).toBeNull();
    db.close();
  });

  test("a generation is stamped by its writer (generation-check.test.ts), and its stamp goes with it", () => {
    const { db, file } = corpus("stamp");
    within(db, () => KeywordIndex.build(db, file));
    const bin = keywordFiles(file).find((f) => f.endsWith(".bin")) as string;
    const side = JSON.parse(readFileSync(keywordSidecarPath(file), "utf8"));
    expect(readFileSync(`${bin}.ok`, "utf8").startsWith(`${side.digest}:${side.bytes}:`)).toBe(true);
    expect(within(db, () => KeywordIndex.load(db, file))).not.toBeNull();
    // The next generation removes the old file and its stamp.
    within(db, () => KeywordIndex.build(db, file));
    expect(existsSync(bin) || existsSync(`${bin}.ok`)).toBe(false);
    expect(keywordFiles(file).filter((f) => f.endsWith(".bin")).length).toBe(1);
    db.close();
  });

  test("a registry holding a generation maps the next one another thread or process committed", () => {
    const { db, file } = corpus("superseded");
    const opts = { minChunks: 0, syncBuildMax: 1_000_000 };
    const a = new KeywordRegistry();
    const b = new KeywordRegistry(); // another search thread
    const first = within(db, () => b.get(db, file, opts)) as KeywordIndex;
    writeDocument(db, legMeta(104, OPEN), chunks(prng(5), "E", 20, ONLY_A), DIM);
    // A builds the next generation (as its builder thread would once the log grew).
    const next = within(db, () => KeywordIndex.build(db, file)) as KeywordIndex;
    expect(next.watermark).toBeGreaterThan(first.watermark);
    expect(within(db, () => a.get(db, file, opts))?.watermark).toBe(next.watermark);
    // B still held the first: it maps the committed one on its next search, nothing pending.
    const seen = within(db, () => b.get(db, file, opts)) as KeywordIndex;
    expect(seen).not.toBe(first);
    expect(seen.watermark).toBe(next.watermark);
    expect(seen.pendingOf(db)).toBe(0);
    db.close();
  });

  test("a holder whose own build is running still maps the generation another thread committed", async () => {
    const { db, file } = corpus("busy");
    const opts = { minChunks: 0, syncBuildMax: 1_000_000 };
    const b = new KeywordRegistry();
    const first = within(db, () => b.get(db, file, opts)) as KeywordIndex;
    // More logged changes than rebuildAt: B's next search starts its own build on a builder thread.
    writeDocument(db, legMeta(105, OPEN), chunks(prng(6), "F", rebuildAt(first.rows) + 1, ONLY_A), DIM);
    expect(within(db, () => b.get(db, file, opts))).toBe(first);
    expect(b.isBuilding(file)).toBe(true);
    // Another thread commits a generation first. All of this runs in one turn of the event loop,
    // so B's build cannot report in between; its thread may have saved its own generation by now,
    // and either is newer than the one B holds.
    const other = within(db, () => KeywordIndex.build(db, file)) as KeywordIndex;
    const seen = within(db, () => b.get(db, file, opts)) as KeywordIndex;
    expect(b.isBuilding(file)).toBe(true);
    expect(seen).not.toBe(first);
    expect(seen.watermark).toBeGreaterThanOrEqual(other.watermark);
    expect(seen.pendingOf(db)).toBe(0);
    expect(sameAsFts5(db, seen, queries(13))).toBeGreaterThan(2000);
    for (let i = 0; i < 500 && b.isBuilding(file); i++) await Bun.sleep(10);
    b.close();
    db.close();
  });

  test("a generation a scrub finds rotten is dropped by its holder and rebuilt (generation-check.ts)", async () => {
    const { db, file } = corpus("rotten");
    within(db, () => KeywordIndex.build(db, file));
    const bin = keywordFiles(file).find((f) => f.endsWith(".bin")) as string;
    // As a later run finds it: stamped long ago, and a byte of its terms rotted since, size and time kept.
    settle(bin);
    const st = statSync(bin);
    const side = JSON.parse(readFileSync(keywordSidecarPath(file), "utf8"));
    writeFileSync(`${bin}.ok`, stampFor(bin, side.digest, 1_000));
    rot(bin, st.size - 3);
    const reg = new KeywordRegistry();
    const opts = { minChunks: 0, syncBuildMax: 1_000_000 };
    const trusted = within(db, () => reg.get(db, file, opts)) as KeywordIndex;
    expect(trusted).not.toBeNull();
    await scrubsSettled();
    expect(existsSync(keywordSidecarPath(file))).toBe(false);
    const rebuilt = within(db, () => reg.get(db, file, opts)) as KeywordIndex;
    expect(rebuilt).not.toBe(trusted);
    expect(keywordFiles(file).some((f) => f === bin)).toBe(false);
    expect(sameAsFts5(db, rebuilt, queries(12))).toBeGreaterThan(2000);
    db.close();
  });

  test("a term FTS5 would read as a phrase leaves the query to FTS5", () => {
    const { db, file } = corpus("phrase");
    const kw = within(db, () => KeywordIndex.build(db, file)) as KeywordIndex;
    within(db, () => {
      expect(kw.usable(db)).toBe(true);
      expect(kw.top(db, ["cash flow"], 10, { lo: 0, hi: 1e12 })).toBeNull();
      expect(kw.top(db, ["cash", "flows"], 10, { lo: 0, hi: 1e12 })?.length).toBe(10);
    });
    db.close();
  });
});

describe("keyword index through the adapter", () => {
  const meta = (docId: string): DocumentMeta => ({ ...legMeta(0, OPEN), doc_id: docId, filename: `${docId}.txt` });
  const tenant = { tenantId: crypto.randomUUID(), slug: "kw" };
  const access: AccessContext = { tenantId: tenant.tenantId, identityId: "u1", roles: [], barriers: [] };
  const bm25 = async (idx: SqliteDocumentIndex, query: string) =>
    comparable(
      (await idx.search(tenant as never, { query, access, filters: {}, k: 10, mode: "bm25" })).map((h) => ({
        id: h.chunk_id,
        score: h.score,
      })),
    );

  test("searches are the same before, during and after the background build; deletes hold across a restart", async () => {
    const dir = join(root, "adapter");
    const make = (syncBuildMax: number) =>
      new SqliteDocumentIndex({
        dataDir: dir,
        embeddingDim: DIM,
        searchThreads: 1,
        ann: { minChunks: 0, syncBuildMax },
      });
    const plain = new SqliteDocumentIndex({
      dataDir: dir,
      embeddingDim: DIM,
      searchThreads: 0,
      ann: { minChunks: Number.MAX_SAFE_INTEGER },
    });
    let idx = make(0); // every build in the background
    await idx.ensureNamespace(tenant);
    const file = idx.pathOf(tenant);
    const r = prng(21);
    for (let d = 0; d < 20; d++)
      await idx.putDocument(tenant, meta(`d${d}`), chunks(r, `d${d}`, 20, d === 4 ? ONLY_A : ""));
    const qs = queries(12).slice(0, 12);
    const want = await Promise.all(qs.map((q) => bm25(plain, q)));
    expect(await Promise.all(qs.map((q) => bm25(idx, q)))).toEqual(want); // FTS5 while it builds
    for (let i = 0; i < 200 && !keywordFiles(file).some((f) => f.endsWith(".bin")); i++) await Bun.sleep(25);
    expect(keywordFiles(file).some((f) => f.endsWith(".bin"))).toBe(true);
    expect(await Promise.all(qs.map((q) => bm25(idx, q)))).toEqual(want); // the index now
    expect((await bm25(idx, ONLY_A)).scores.length).toBe(7);
    await idx.deleteDocument(tenant, "d4");
    expect((await bm25(idx, ONLY_A)).scores).toEqual([]);
    await idx.close();
    idx = make(0);
    expect((await bm25(idx, ONLY_A)).scores).toEqual([]);
    expect(await Promise.all(qs.map((q) => bm25(idx, q)))).toEqual(await Promise.all(qs.map((q) => bm25(plain, q))));
    await idx.close();
    await plain.close();
  });
});
