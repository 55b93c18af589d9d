/**
 * The embedded graph store's namespaces: one Ladybug (Kùzu fork) database, node and
 * relationship tables prefixed per tenant. The namespace string is the label prefix,
 * `tenantPrefix(tenantId)` (`t_<32 hex>`); a tenant's graph is `<prefix>_Company`,
 * `<prefix>_HOLDS`, ... (domain/foundry/graph/model.ts). Ladybug has a strict schema, so "constraints" means the node
 * tables' primary keys, which also give MERGE its uniqueness. Neo4j's adapter (./neo4j.ts)
 * uses the same prefix on labels and relationship types, with uniqueness constraints.
 *
 * Concurrency, as measured on this engine: one Database may serve many Connections and
 * concurrent readers, but only one write transaction may be open in the whole database;
 * a second writer on another connection fails at once ("Only one write transaction at a
 * time") rather than waiting. So every write here runs on one write connection behind a
 * mutex, and reads use their own connection, which sees the last committed state.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import lbug, { type Connection, type Database, type LbugValue, type QueryResult } from "@ladybugdb/core";
import { AppError } from "../../domain/errors.ts";
import { type CheckedReadQuery, rewriteFor, rewriteReadFor } from "../../domain/foundry/graph/cypher.ts";
import {
  GRAPH_NODES,
  GRAPH_RELS,
  type GraphBatch,
  NODE_LABELS,
  REL_TYPES,
  validateBatch,
} from "../../domain/foundry/graph/model.ts";
import type { CheckedGraphFeature, GraphPort, GraphRows, GraphValue } from "../../domain/foundry/graph/ports.ts";
import { type NamespacePort, type TenantRef, tenantPrefix } from "../../domain/tenants/namespaces.ts";
import { Mutex } from "../sql/index.ts";
import { json, mergeNode, mergeRel, nodeRow, relRow, scalar } from "./statements.ts";

export interface LadybugGraphOptions {
  /** Root data directory; the database is `<dataDir>/graph/cairn.lbug`. */
  dataDir: string;
  /** Page buffer pool in bytes. Ladybug's default is 80% of RAM, too greedy for a shared process. */
  bufferPoolBytes?: number;
  /** Threads one query may use (Ladybug's default is every core). */
  threads?: number;
}

type Row = Record<string, LbugValue>;
interface Handles {
  db: Database;
  write: Connection;
  read: Connection;
}

const PREFIX_PATTERN = /^t_[0-9a-z]{1,64}$/;

/** The tenant graph's node tables (from the model); the key column is the primary key. */
const NODE_TABLES: Record<string, string> = Object.fromEntries(
  NODE_LABELS.map((l) => {
    const d = GRAPH_NODES[l];
    const cols = Object.entries(d.props).map(([p, t]) => `${p} ${t}${p === d.key ? " PRIMARY KEY" : ""}`);
    return [l, cols.join(", ")];
  }),
);
/** Relationship tables: endpoints (unprefixed node names) and properties. */
const REL_TABLES: Record<string, { from: string; to: string; props: string }> = Object.fromEntries(
  REL_TYPES.map((r) => {
    const d = GRAPH_RELS[r];
    const props = Object.entries(d.props)
      .map(([p, t]) => `, ${p} ${t}`)
      .join("");
    return [r, { from: d.from, to: d.to, props }];
  }),
);
const TABLE_SUFFIXES = [...Object.keys(NODE_TABLES), ...Object.keys(REL_TABLES)];

export class LadybugGraph implements NamespacePort, GraphPort {
  readonly engine = "graph" as const;
  readonly kind = "ladybug" as const;
  readonly path: string;
  private readonly bufferPoolBytes: number;
  private readonly threads: number;
  private readonly writeLock = new Mutex();
  private opening: Promise<Handles> | null = null;
  private closed = false;

  constructor(opts: LadybugGraphOptions) {
    this.path = join(opts.dataDir, "graph", "cairn.lbug");
    this.bufferPoolBytes = opts.bufferPoolBytes ?? 512 * 1024 * 1024;
    this.threads = opts.threads ?? 2;
    if (!Number.isInteger(this.bufferPoolBytes) || this.bufferPoolBytes < 16 * 1024 * 1024) {
      throw new Error(`LadybugGraph: bufferPoolBytes must be an integer >= 16 MiB, got ${opts.bufferPoolBytes}`);
    }
    if (!Number.isInteger(this.threads) || this.threads < 1) {
      throw new Error(`LadybugGraph: threads must be a positive integer, got ${opts.threads}`);
    }
  }

  namespaceOf(t: TenantRef): string {
    const prefix = tenantPrefix(t.tenantId);
    // The prefix is spliced into Cypher as a label: only a safe alphabet may pass.
    if (!PREFIX_PATTERN.test(prefix)) throw new AppError("bad_request", `invalid tenant id for a graph: ${t.tenantId}`);
    return prefix;
  }

  async ensureNamespace(t: TenantRef): Promise<string> {
    const ns = this.namespaceOf(t);
    await this.writing(async (conn) => {
      // One transaction: a crash or error leaves all of the tenant's tables or none.
      await inTransaction(conn, async () => {
        for (const [name, cols] of Object.entries(NODE_TABLES)) {
          await run(conn, `CREATE NODE TABLE IF NOT EXISTS \`${ns}_${name}\`(${cols})`);
        }
        for (const [name, r] of Object.entries(REL_TABLES)) {
          await run(
            conn,
            `CREATE REL TABLE IF NOT EXISTS \`${ns}_${name}\`(FROM \`${ns}_${r.from}\` TO \`${ns}_${r.to}\`${r.props})`,
          );
        }
        // A namespace made by an older schema gains the model's new properties.
        const decls: [string, Record<string, string>][] = [
          ...NODE_LABELS.map((l): [string, Record<string, string>] => [l, GRAPH_NODES[l].props]),
          ...REL_TYPES.map((r): [string, Record<string, string>] => [r, GRAPH_RELS[r].props]),
        ];
        for (const [name, props] of decls) {
          const have = new Set(
            (await run(conn, `CALL table_info('${ns}_${name}') RETURN name`)).map((row) => String(row.name)),
          );
          for (const [p, type] of Object.entries(props)) {
            if (!have.has(p)) await run(conn, `ALTER TABLE \`${ns}_${name}\` ADD ${p} ${type}`);
          }
        }
      });
    });
    if (!(await this.namespaceExists(t))) throw new AppError("internal", `graph namespace ${ns} did not verify`);
    return ns;
  }

  async namespaceExists(t: TenantRef): Promise<boolean> {
    const ns = this.namespaceOf(t);
    const names = new Set((await this.tables((await this.open()).read)).map((r) => r.name));
    return TABLE_SUFFIXES.every((s) => names.has(`${ns}_${s}`));
  }

  async dropNamespace(t: TenantRef): Promise<void> {
    const ns = this.namespaceOf(t);
    await this.writing(async (conn) => {
      // Every table under the prefix, not only today's schema: later areas may add their own.
      const mine = (await this.tables(conn)).filter((r) => r.name.startsWith(`${ns}_`));
      if (mine.length === 0) return;
      // Relationship tables reference node tables, so they must go first.
      const ordered = [...mine.filter((r) => r.type !== "NODE"), ...mine.filter((r) => r.type === "NODE")];
      await inTransaction(conn, async () => {
        for (const r of ordered) await run(conn, `DROP TABLE IF EXISTS \`${r.name}\``);
      });
    });
  }

  async smokeTest(t: TenantRef): Promise<void> {
    const ns = this.namespaceOf(t);
    if (!(await this.namespaceExists(t))) throw new AppError("not_found", `graph namespace ${ns} does not exist`);
    const label = `\`${ns}_Company\``;
    const cik = `__probe__${crypto.randomUUID()}`;
    await this.writing(async (conn) => {
      await run(conn, `MERGE (n:${label} {cik: $cik}) ON CREATE SET n.name = $name`, { cik, name: "probe" });
      try {
        const rows = await run(conn, `MATCH (n:${label}) WHERE n.cik = $cik RETURN n.name AS name`, { cik });
        if (rows.length !== 1 || rows[0]?.name !== "probe") {
          throw new AppError("internal", `graph namespace ${ns}: probe node did not read back`);
        }
      } finally {
        await run(conn, `MATCH (n:${label}) WHERE n.cik = $cik DETACH DELETE n`, { cik });
      }
      const left = await run(conn, `MATCH (n:${label}) WHERE n.cik = $cik RETURN count(n) AS n`, { cik });
      if (Number(left[0]?.n) !== 0) throw new AppError("internal", `graph namespace ${ns}: probe node was not deleted`);
    });
  }

  async listNamespaces(): Promise<string[]> {
    const prefixes = new Set<string>();
    for (const { name } of await this.tables((await this.open()).read)) {
      const m = /^(t_[0-9a-z]+)_/.exec(name);
      if (m?.[1]) prefixes.add(m[1]);
    }
    return [...prefixes].sort();
  }

  /** Nodes plus relationships in the tenant's tables (0 for a fresh or absent namespace). */
  async countRecords(t: TenantRef): Promise<number> {
    const ns = this.namespaceOf(t);
    const conn = (await this.open()).read;
    let n = 0;
    for (const r of (await this.tables(conn)).filter((x) => x.name.startsWith(`${ns}_`))) {
      const cypher =
        r.type === "NODE"
          ? `MATCH (x:\`${r.name}\`) RETURN count(x) AS n`
          : `MATCH ()-[x:\`${r.name}\`]->() RETURN count(x) AS n`;
      n += Number((await run(conn, cypher))[0]?.n ?? 0);
    }
    return n;
  }

  async featureValues(t: TenantRef, feature: CheckedGraphFeature, keys: string[]): Promise<Map<string, GraphValue>> {
    const ns = this.namespaceOf(t);
    const out = new Map<string, GraphValue>();
    if (keys.length === 0) return out;
    const query = rewriteFor(ns, feature);
    if (!(await this.namespaceExists(t))) {
      for (const k of keys) out.set(k, null);
      return out;
    }
    const conn = (await this.open()).read;
    // Ladybug has no correlated subqueries: one prepared statement, run per key.
    const stmt = await conn.prepare(query.perKey);
    if (!stmt.isSuccess()) throw new AppError("bad_request", `graph feature: ${stmt.getErrorMessage()}`);
    // A key without its entity is null (an aggregate over no rows would still give a row).
    const exists = await conn.prepare(
      `MATCH (e:\`${query.entityLabel}\`) WHERE e.${query.keyProperty} IN $keys RETURN e.${query.keyProperty} AS k`,
    );
    if (!exists.isSuccess()) throw new AppError("internal", `graph: ${exists.getErrorMessage()}`);
    const unique = [...new Set(keys)];
    const present = new Set((await collect(await conn.execute(exists, { keys: unique }))).map((r) => String(r.k)));
    for (const key of unique) {
      if (!present.has(key)) {
        out.set(key, null);
        continue;
      }
      const rows = await collect(await conn.execute(stmt, { key }));
      out.set(key, rows.length > 0 ? scalar(rows[0]?.__value) : null);
    }
    return out;
  }

  async load(t: TenantRef, batch: GraphBatch): Promise<{ nodes: number; rels: number }> {
    validateBatch(batch);
    const ns = await this.ensureNamespace(t);
    return this.writing(async (conn) => {
      let nodes = 0;
      let rels = 0;
      await inTransaction(conn, async () => {
        for (const label of NODE_LABELS) {
          const mine = batch.nodes.filter((n) => n.label === label);
          if (mine.length === 0) continue;
          const stmt = await conn.prepare(mergeNode(ns, label, "$"));
          if (!stmt.isSuccess()) throw new AppError("internal", `graph: ${stmt.getErrorMessage()}`);
          for (const n of mine) {
            await collect(await conn.execute(stmt, nodeRow(n) as Record<string, LbugValue>));
            nodes++;
          }
        }
        for (const type of REL_TYPES) {
          const mine = batch.rels.filter((r) => r.type === type);
          if (mine.length === 0) continue;
          const stmt = await conn.prepare(`${mergeRel(ns, type, "$")} RETURN count(x) AS n`);
          if (!stmt.isSuccess()) throw new AppError("internal", `graph: ${stmt.getErrorMessage()}`);
          for (const r of mine) {
            const rows = await collect(await conn.execute(stmt, relRow(r) as Record<string, LbugValue>));
            rels += Number(rows[0]?.n ?? 0);
          }
        }
      });
      return { nodes, rels };
    });
  }

  async read(
    t: TenantRef,
    query: CheckedReadQuery,
    params: Record<string, GraphValue>,
    limit: number,
  ): Promise<GraphRows> {
    const ns = this.namespaceOf(t);
    const cypher = rewriteReadFor(ns, query, limit);
    if (!(await this.namespaceExists(t))) return { columns: [], rows: [] };
    const conn = (await this.open()).read;
    const stmt = await conn.prepare(cypher);
    if (!stmt.isSuccess()) throw new AppError("bad_request", `graph query: ${stmt.getErrorMessage()}`);
    const result = await conn.execute(stmt, params as Record<string, LbugValue>);
    const first = Array.isArray(result) ? result[0] : result;
    const columns = first ? await first.getColumnNames() : [];
    const rows = await collect(result);
    return { columns, rows: rows.slice(0, limit).map((r) => columns.map((c) => json(r[c]))) };
  }

  async ping(): Promise<void> {
    await run((await this.open()).read, "RETURN 1 AS ok");
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // Wait for the write in flight; reads are short and awaited by their callers.
    await this.writeLock.run(async () => {
      const h = await this.opening?.catch(() => null);
      if (!h) return;
      await h.read.close();
      await h.write.close();
      await h.db.close();
    });
  }

  private writing<T>(fn: (conn: Connection) => Promise<T>): Promise<T> {
    return this.writeLock.run(async () => fn((await this.open()).write));
  }

  private async tables(conn: Connection): Promise<{ name: string; type: string }[]> {
    const rows = await run(conn, "CALL show_tables() RETURN name, type");
    return rows.map((r) => ({ name: String(r.name), type: String(r.type) }));
  }

  private open(): Promise<Handles> {
    if (this.closed) return Promise.reject(new AppError("unavailable", "graph adapter is closed"));
    this.opening ??= (async () => {
      mkdirSync(join(this.path, ".."), { recursive: true });
      const db = new lbug.Database(this.path, this.bufferPoolBytes);
      await db.init();
      const write = new lbug.Connection(db, this.threads);
      await write.init();
      const read = new lbug.Connection(db, this.threads);
      await read.init();
      return { db, write, read };
    })();
    // A failed open (e.g. the file is locked by another process) is retried on the next call.
    this.opening.catch(() => {
      this.opening = null;
    });
    return this.opening;
  }
}

/**
 * Every row of a query's results, each result closed: an unclosed one keeps the native
 * database open past `close()`, until the collector frees it (its late close, a checkpoint that
 * removes the WAL, can then race the next open of the same file).
 */
export async function collect(result: QueryResult | QueryResult[]): Promise<Row[]> {
  const results = Array.isArray(result) ? result : [result];
  const rows: Row[] = [];
  for (const r of results) {
    try {
      rows.push(...(await r.getAll()));
    } finally {
      r.close();
    }
  }
  return rows;
}

/** Runs one statement (prepared when it has parameters) and returns its rows. */
async function run(conn: Connection, cypher: string, params?: Record<string, LbugValue>): Promise<Row[]> {
  let result: QueryResult | QueryResult[];
  if (params) {
    const stmt = await conn.prepare(cypher);
    if (!stmt.isSuccess()) throw new AppError("internal", `graph: ${stmt.getErrorMessage()}`);
    result = await conn.execute(stmt, params);
  } else {
    result = await conn.query(cypher);
  }
  return collect(result);
}

async function inTransaction(conn: Connection, fn: () => Promise<void>): Promise<void> {
  await run(conn, "BEGIN TRANSACTION");
  try {
    await fn();
    await run(conn, "COMMIT");
  } catch (err) {
    await run(conn, "ROLLBACK");
    throw err;
  }
}
