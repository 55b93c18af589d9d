/**
 * The graph at scale: Neo4j over Bolt (neo4j-driver). One database holds every tenant;
 * a tenant's labels and relationship types carry its prefix (`<prefix>_Company`, as in
 * ./ladybug.ts), so a tenant's namespace is the set of its labels: "ensure" creates a
 * uniqueness constraint on each node label's key (which also indexes MERGE and lookups),
 * "drop" deletes the tenant's nodes and constraints. Reads run in read transactions
 * (`executeRead`); loads are batched MERGEs with UNWIND in write transactions.
 */
import neo4j, { type Driver, type ManagedTransaction } from "neo4j-driver";
import { AppError } from "../../domain/errors.ts";
import { type CheckedReadQuery, rewriteFor, rewriteReadFor } from "../../domain/foundry/graph/cypher.ts";
import {
  GRAPH_NODES,
  type GraphBatch,
  NODE_LABELS,
  REL_TYPES,
  validateBatch,
} from "../../domain/foundry/graph/model.ts";
import type { CheckedGraphFeature, GraphPort, GraphRows, GraphValue } from "../../domain/foundry/graph/ports.ts";
import { type NamespacePort, type TenantRef, tenantPrefix } from "../../domain/tenants/namespaces.ts";
import { json, mergeNode, mergeRel, nodeRow, q, relRow, scalar } from "./statements.ts";

export interface Neo4jGraphOptions {
  /** bolt:// or neo4j:// address; credentials in the URL are used when user/password are absent. */
  url: string;
  user?: string | undefined;
  password?: string | undefined;
  /** Community edition has one user database: `neo4j`. */
  database?: string | undefined;
  /** Rows per UNWIND batch of a load, keys per featureValues round trip. */
  batchSize?: number;
}

const PREFIX_PATTERN = /^t_[0-9a-z]{1,64}$/;

export class Neo4jGraph implements NamespacePort, GraphPort {
  readonly engine = "graph" as const;
  readonly kind = "neo4j" as const;
  private readonly driver: Driver;
  private readonly database: string;
  private readonly batchSize: number;
  private closed = false;

  constructor(opts: Neo4jGraphOptions) {
    const u = new URL(opts.url);
    const user = opts.user ?? (decodeURIComponent(u.username) || "neo4j");
    const password = opts.password ?? decodeURIComponent(u.password);
    u.username = "";
    u.password = "";
    this.driver = neo4j.driver(u.toString().replace(/\/$/, ""), neo4j.auth.basic(user, password), {
      disableLosslessIntegers: false,
      maxConnectionPoolSize: 20,
      connectionAcquisitionTimeout: 30_000,
    });
    this.database = opts.database ?? "neo4j";
    this.batchSize = opts.batchSize ?? 500;
  }

  namespaceOf(t: TenantRef): string {
    const prefix = tenantPrefix(t.tenantId);
    if (!PREFIX_PATTERN.test(prefix)) throw new AppError("bad_request", `invalid tenant id for a graph: ${t.tenantId}`);
    return prefix;
  }

  private constraintName(ns: string, label: string): string {
    return `${ns}_${label}_key`;
  }

  async ensureNamespace(t: TenantRef): Promise<string> {
    const ns = this.namespaceOf(t);
    for (const label of NODE_LABELS) {
      // Schema commands run in auto-commit transactions; IF NOT EXISTS makes them idempotent.
      await this.autoCommit(
        `CREATE CONSTRAINT \`${this.constraintName(ns, label)}\` IF NOT EXISTS FOR (n:${q(ns, label)}) REQUIRE n.${GRAPH_NODES[label].key} IS UNIQUE`,
      );
    }
    if (!(await this.namespaceExists(t))) throw new AppError("internal", `graph namespace ${ns} did not verify`);
    return ns;
  }

  private async constraints(): Promise<string[]> {
    const rows = await this.reading("SHOW CONSTRAINTS YIELD name RETURN name", {});
    return rows.map((r) => String(r.name));
  }

  async namespaceExists(t: TenantRef): Promise<boolean> {
    const ns = this.namespaceOf(t);
    const have = new Set(await this.constraints());
    return NODE_LABELS.every((l) => have.has(this.constraintName(ns, l)));
  }

  async dropNamespace(t: TenantRef): Promise<void> {
    const ns = this.namespaceOf(t);
    // Every label under the prefix, not only today's model.
    const labels = (await this.reading("CALL db.labels() YIELD label RETURN label", {}))
      .map((r) => String(r.label))
      .filter((l) => l.startsWith(`${ns}_`));
    for (const label of labels) {
      for (;;) {
        const rows = await this.writingTx(
          `MATCH (n:\`${label}\`) WITH n LIMIT 5000 DETACH DELETE n RETURN count(*) AS n`,
          {},
        );
        if (Number(scalar(rows[0]?.n)) === 0) break;
      }
    }
    for (const name of (await this.constraints()).filter((c) => c.startsWith(`${ns}_`))) {
      await this.autoCommit(`DROP CONSTRAINT \`${name}\` IF EXISTS`);
    }
  }

  async smokeTest(t: TenantRef): Promise<void> {
    const ns = this.namespaceOf(t);
    if (!(await this.namespaceExists(t))) throw new AppError("not_found", `graph namespace ${ns} does not exist`);
    const label = q(ns, "Company");
    const cik = `__probe__${crypto.randomUUID()}`;
    await this.writingTx(`MERGE (n:${label} {cik: $cik}) ON CREATE SET n.name = $name`, { cik, name: "probe" });
    try {
      const rows = await this.reading(`MATCH (n:${label}) WHERE n.cik = $cik RETURN n.name AS name`, { cik });
      if (rows.length !== 1 || rows[0]?.name !== "probe") {
        throw new AppError("internal", `graph namespace ${ns}: probe node did not read back`);
      }
    } finally {
      await this.writingTx(`MATCH (n:${label}) WHERE n.cik = $cik DETACH DELETE n`, { cik });
    }
    const left = await this.reading(`MATCH (n:${label}) WHERE n.cik = $cik RETURN count(n) AS n`, { cik });
    if (Number(scalar(left[0]?.n)) !== 0)
      throw new AppError("internal", `graph namespace ${ns}: probe node was not deleted`);
  }

  async listNamespaces(): Promise<string[]> {
    const prefixes = new Set<string>();
    for (const name of await this.constraints()) {
      const m = /^(t_[0-9a-z]+)_/.exec(name);
      if (m?.[1]) prefixes.add(m[1]);
    }
    return [...prefixes].sort();
  }

  /** Nodes plus relationships of the tenant (0 for a fresh or absent namespace). */
  async countRecords(t: TenantRef): Promise<number> {
    const ns = this.namespaceOf(t);
    let n = 0;
    for (const l of NODE_LABELS) {
      n += Number(scalar((await this.reading(`MATCH (x:${q(ns, l)}) RETURN count(x) AS n`, {}))[0]?.n));
    }
    for (const r of REL_TYPES) {
      n += Number(scalar((await this.reading(`MATCH ()-[x:${q(ns, r)}]->() RETURN count(x) AS n`, {}))[0]?.n));
    }
    return n;
  }

  async featureValues(t: TenantRef, feature: CheckedGraphFeature, keys: string[]): Promise<Map<string, GraphValue>> {
    const ns = this.namespaceOf(t);
    const query = rewriteFor(ns, feature);
    const out = new Map<string, GraphValue>();
    const unique = [...new Set(keys)];
    for (const k of unique) out.set(k, null);
    // One round trip per batch of keys: the fragment runs once per entity in a subquery.
    const cypher =
      `UNWIND $keys AS __key MATCH (e:\`${query.entityLabel}\`) WHERE e.${query.keyProperty} = __key ` +
      `CALL (e) { WITH e ${query.body} } RETURN __key, __value`;
    for (let i = 0; i < unique.length; i += this.batchSize) {
      const rows = await this.reading(cypher, { keys: unique.slice(i, i + this.batchSize) }, "graph feature");
      const seen = new Set<string>();
      for (const r of rows) {
        const k = String(r.__key);
        // The first row per entity, as on the embedded engine.
        if (seen.has(k)) continue;
        seen.add(k);
        out.set(k, scalar(r.__value));
      }
    }
    return out;
  }

  async load(t: TenantRef, batch: GraphBatch): Promise<{ nodes: number; rels: number }> {
    validateBatch(batch);
    const ns = await this.ensureNamespace(t);
    let nodes = 0;
    let rels = 0;
    const session = this.driver.session({ database: this.database, defaultAccessMode: neo4j.session.WRITE });
    try {
      for (const label of NODE_LABELS) {
        const rows = batch.nodes.filter((n) => n.label === label).map(nodeRow);
        for (let i = 0; i < rows.length; i += this.batchSize) {
          const chunk = rows.slice(i, i + this.batchSize);
          await session.executeWrite((tx) =>
            tx.run(`UNWIND $rows AS r ${mergeNode(ns, label, "r.")}`, { rows: chunk }),
          );
          nodes += chunk.length;
        }
      }
      for (const type of REL_TYPES) {
        const rows = batch.rels.filter((r) => r.type === type).map(relRow);
        for (let i = 0; i < rows.length; i += this.batchSize) {
          const chunk = rows.slice(i, i + this.batchSize);
          const res = await session.executeWrite((tx) =>
            tx.run(`UNWIND $rows AS r ${mergeRel(ns, type, "r.")} RETURN count(x) AS n`, { rows: chunk }),
          );
          rels += Number(scalar(res.records[0]?.get("n")));
        }
      }
    } finally {
      await session.close();
    }
    return { nodes, rels };
  }

  async read(
    t: TenantRef,
    query: CheckedReadQuery,
    params: Record<string, GraphValue>,
    limit: number,
  ): Promise<GraphRows> {
    const cypher = rewriteReadFor(this.namespaceOf(t), query, limit);
    const session = this.driver.session({ database: this.database, defaultAccessMode: neo4j.session.READ });
    try {
      const { columns, records } = await session
        .executeRead(async (tx) => {
          const r = tx.run(cypher, params);
          const keys = (await r.keys()).map(String);
          return { columns: keys, records: (await r).records };
        })
        .catch((e) => rethrow(e, "graph query"));
      return { columns, rows: records.slice(0, limit).map((r) => columns.map((c) => json(r.get(c)))) };
    } finally {
      await session.close();
    }
  }

  async ping(): Promise<void> {
    await this.reading("RETURN 1 AS ok", {});
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.driver.close();
  }

  private async reading(
    cypher: string,
    params: Record<string, unknown>,
    what?: string,
  ): Promise<Record<string, unknown>[]> {
    if (this.closed) throw new AppError("unavailable", "graph adapter is closed");
    const session = this.driver.session({ database: this.database, defaultAccessMode: neo4j.session.READ });
    try {
      const res = await session
        .executeRead((tx: ManagedTransaction) => tx.run(cypher, params))
        .catch((e) => rethrow(e, what));
      return res.records.map((r) => r.toObject());
    } finally {
      await session.close();
    }
  }

  private async writingTx(cypher: string, params: Record<string, unknown>): Promise<Record<string, unknown>[]> {
    if (this.closed) throw new AppError("unavailable", "graph adapter is closed");
    const session = this.driver.session({ database: this.database, defaultAccessMode: neo4j.session.WRITE });
    try {
      const res = await session.executeWrite((tx: ManagedTransaction) => tx.run(cypher, params));
      return res.records.map((r) => r.toObject());
    } finally {
      await session.close();
    }
  }

  private async autoCommit(cypher: string): Promise<void> {
    if (this.closed) throw new AppError("unavailable", "graph adapter is closed");
    const session = this.driver.session({ database: this.database, defaultAccessMode: neo4j.session.WRITE });
    try {
      await session.run(cypher);
    } finally {
      await session.close();
    }
  }
}

/** A Cypher error of a caller's query is a bad request; anything else (connection, auth) stays. */
function rethrow(e: unknown, what: string | undefined): never {
  const code = (e as { code?: string }).code ?? "";
  if (what && code.startsWith("Neo.ClientError.Statement")) {
    throw new AppError("bad_request", `${what}: ${(e as Error).message.split("\n")[0]?.slice(0, 300)}`);
  }
  if (code === "ServiceUnavailable" || code === "SessionExpired") {
    throw new AppError("unavailable", `graph: Neo4j is unavailable (${code})`);
  }
  throw e;
}
