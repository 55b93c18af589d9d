/**
 * The embedded graph store's namespaces: one Ladybug (Kùzu fork) database, node and
 * relationship tables prefixed per tenant. The namespace string is the label prefix,
 * `tenantPrefix(tenantId)` (`t_<32 hex>`); a tenant's graph is `<prefix>_Company`,
 * `<prefix>_OWNS`, ... Ladybug has a strict schema, so "constraints" means the node
 * tables' primary keys, which also give MERGE its uniqueness. Neo4j's adapter will use
 * the same prefix on labels and relationship types, with uniqueness constraints.
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
import { type NamespacePort, type TenantRef, tenantPrefix } from "../../domain/tenants/namespaces.ts";
import { Mutex } from "../sql/index.ts";

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

/** The tenant graph's node tables; the first column of each is its primary key. */
const NODE_TABLES: Record<string, string> = {
  Company: "cik STRING PRIMARY KEY, name STRING",
  Person: "id STRING PRIMARY KEY, name STRING",
  Fund: "id STRING PRIMARY KEY, name STRING",
};
/** Relationship tables: endpoints (unprefixed node names) and properties. */
const REL_TABLES: Record<string, { from: string; to: string; props: string }> = {
  OWNS: { from: "Fund", to: "Company", props: ", shares INT64" },
  OFFICER_OF: { from: "Person", to: "Company", props: ", title STRING" },
  SUBSIDIARY_OF: { from: "Company", to: "Company", props: "" },
};
const TABLE_SUFFIXES = [...Object.keys(NODE_TABLES), ...Object.keys(REL_TABLES)];

export class LadybugGraph implements NamespacePort {
  readonly engine = "graph" as const;
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
