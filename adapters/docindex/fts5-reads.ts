/**
 * What the keyword leg reads of FTS5 besides its MATCH results: the bm25() top of a rowid range
 * or of given rowids, a term's chunk count over a range, the averages record bm25() divides by
 * (row count, total tokens), the docsize varints, and the token FTS5's tokenizer makes of a
 * query term. The keyword index (keyword-index.ts, keyword-file.ts) is built from and checked
 * against these, so its scores are FTS5's.
 */
import { Database } from "bun:sqlite";
import { matchOf } from "./fts-query.ts";

/** A chunk's FTS5 bm25() row: `score` is FTS5's (lower is better). */
export interface Bm25Row {
  seq: number;
  score: number;
}

/** Chunk seqs (the FTS5 rowids) a read is limited to, both ends included. */
export interface SeqRange {
  lo: number;
  hi: number;
}

// FTS5 seeks its doclists to the rowid bounds and computes bm25() only inside them, while its
// IDF still counts the whole index. No join: hydration joins `documents` anyway.
const TOP_SQL = `
  SELECT rowid AS seq, bm25(chunks_fts) AS score FROM chunks_fts
   WHERE chunks_fts MATCH :match AND rowid BETWEEN :lo AND :hi
   ORDER BY score LIMIT :limit`;

const AMONG_SQL = `
  SELECT rowid AS seq, bm25(chunks_fts) AS score FROM chunks_fts
   WHERE chunks_fts MATCH :match AND rowid IN (SELECT value FROM json_each(:seqs))
   ORDER BY score LIMIT :limit`;

const COUNT_FROM_SQL = "SELECT count(*) AS n FROM chunks_fts WHERE chunks_fts MATCH :match AND rowid >= :lo";

type Params = Record<string, string | number>;

/** FTS5's best `limit` chunks in `range` for the OR of `terms` (query terms), best first. */
export function ftsTop(db: Database, terms: string[], limit: number, range: SeqRange): Bm25Row[] {
  return db.query<Bm25Row, Params>(TOP_SQL).all({ match: matchOf(terms) as string, limit, ...range });
}

/** FTS5's best `limit` among the chunks `seqs`, best first. */
export function ftsAmong(db: Database, terms: string[], limit: number, seqs: number[]): Bm25Row[] {
  if (seqs.length === 0) return [];
  return db
    .query<Bm25Row, Params>(AMONG_SQL)
    .all({ match: matchOf(terms) as string, limit, seqs: JSON.stringify(seqs) });
}

/** Chunks with rowid ≥ `lo` holding `term` (a query term). */
export function ftsCountFrom(db: Database, term: string, lo: number): number {
  return db.query<{ n: number }, Params>(COUNT_FROM_SQL).get({ match: matchOf([term]) as string, lo })?.n ?? 0;
}

/** SQLite's varint (FTS5 uses it in its records): the value and the offset after it. */
function varint(b: Uint8Array, at: number): [number, number] {
  let v = 0;
  for (let i = 0; i < 8; i++) {
    const byte = b[at + i] as number;
    v = v * 128 + (byte & 0x7f);
    if ((byte & 0x80) === 0) return [v, at + i + 1];
  }
  return [v * 256 + (b[at + 8] as number), at + 9];
}

/** Every varint of a record, summed (a docsize row: tokens per column; one column here). */
export function varintSum(b: Uint8Array): number {
  let sum = 0;
  let at = 0;
  while (at < b.length) {
    const [v, next] = varint(b, at);
    sum += v;
    at = next;
  }
  return sum;
}

/** FTS5's row count and total tokens (its averages record), as bm25() reads them. */
export function averages(db: Database): { rows: number; tokens: number } {
  const r = db.query<{ block: Uint8Array }, []>("SELECT block FROM chunks_fts_data WHERE id = 1").get();
  if (!r || r.block.length === 0) return { rows: 0, tokens: 0 };
  const [rows, at] = varint(r.block, 0);
  return { rows, tokens: varintSum(r.block.subarray(at)) };
}

/** Query terms → FTS5 tokens, by an FTS5 table with the index's tokenizer (one per thread). */
class Tokens {
  private db: Database | null = null;
  private readonly known = new Map<string, string | null>();
  private static readonly MAX_KNOWN = 65_536;

  /** The token of each term, or null when some term is not exactly one token. */
  of(terms: string[]): string[] | null {
    const unknown = terms.filter((t) => !this.known.has(t));
    if (unknown.length > 0) this.learn(unknown);
    const out: string[] = [];
    for (const t of terms) {
      const tok = this.known.get(t);
      if (tok == null) return null;
      out.push(tok);
    }
    return out;
  }

  private learn(terms: string[]): void {
    if (this.known.size + terms.length > Tokens.MAX_KNOWN) this.known.clear();
    const db = this.open();
    const found = db.transaction(() => {
      const put = db.query("INSERT INTO t (rowid, x) VALUES (?, ?)");
      for (const [i, t] of terms.entries()) put.run(i + 1, t);
      const rows = db.query<{ doc: number; term: string }, []>("SELECT doc, term FROM v").all();
      db.exec("DELETE FROM t");
      return rows;
    })();
    const byDoc = new Map<number, string[]>();
    for (const r of found) byDoc.set(r.doc, [...(byDoc.get(r.doc) ?? []), r.term]);
    terms.forEach((t, i) => {
      const toks = byDoc.get(i + 1);
      this.known.set(t, toks?.length === 1 ? (toks[0] as string) : null);
    });
  }

  private open(): Database {
    if (!this.db) {
      const db = new Database(":memory:");
      db.exec(`CREATE VIRTUAL TABLE t USING fts5(x, tokenize = 'porter unicode61');
               CREATE VIRTUAL TABLE v USING fts5vocab(t, instance);`);
      this.db = db;
    }
    return this.db;
  }
}

const tokens = new Tokens();

/**
 * The FTS5 token of each query term (porter unicode61, as schema.ts declares `chunks_fts`), or
 * null when some term is not exactly one token (FTS5 would search it as a phrase).
 */
export function ftsTokens(terms: string[]): string[] | null {
  return tokens.of(terms);
}
