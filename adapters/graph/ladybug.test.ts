import { afterEach, beforeEach, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import lbug, { type Connection } from "@ladybugdb/core";
import { NODE_LABELS, REL_TYPES } from "../../domain/foundry/graph/model.ts";
import { collect, LadybugGraph } from "./ladybug.ts";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "cairn-graph-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** Runs a statement on a raw connection; `collect` closes its results (see there why that matters). */
const queryAll = async (conn: Connection, q: string) => collect(await conn.query(q));

test("ensure creates the tenant's node tables with primary keys and typed rel tables", async () => {
  const g = new LadybugGraph({ dataDir: dir, bufferPoolBytes: 64 * 1024 * 1024, threads: 1 });
  const t = { tenantId: crypto.randomUUID(), slug: "acme" };
  const ns = await g.ensureNamespace(t);
  expect(ns).toBe(`t_${t.tenantId.replaceAll("-", "")}`);
  await g.close();

  const db = new lbug.Database(g.path, 64 * 1024 * 1024);
  const conn = new lbug.Connection(db, 1);
  const rows = (q: string) => queryAll(conn, q);
  const tables = (await rows("CALL show_tables() RETURN name, type")).map((r) => `${r.name}:${r.type}`).sort();
  expect(tables).toEqual(
    [...NODE_LABELS.map((l) => `${ns}_${l}:NODE`), ...REL_TYPES.map((r) => `${ns}_${r}:REL`)].sort(),
  );
  const pk = (await rows(`CALL table_info('${ns}_Company') RETURN name, \`primary key\` AS pk`)).find((r) => r.pk);
  expect(pk?.name).toBe("cik");
  await rows(`CREATE (:${ns}_Company {cik: '1', name: 'A'})`);
  await expect(rows(`CREATE (:${ns}_Company {cik: '1', name: 'B'})`)).rejects.toThrow();
  await rows(`CREATE (:${ns}_Fund {id: 'f', name: 'F'})`);
  await rows(
    `MATCH (f:${ns}_Fund), (c:${ns}_Company) CREATE (f)-[:${ns}_HOLDS {shares: 10, period: '2024-12-31'}]->(c)`,
  );
  // Rel tables are typed by endpoint: a Person cannot HOLD a Company.
  await rows(`CREATE (:${ns}_Person {id: 'p', name: 'P'})`);
  await expect(
    rows(`MATCH (p:${ns}_Person), (c:${ns}_Company) CREATE (p)-[:${ns}_HOLDS {shares: 1}]->(c)`),
  ).rejects.toThrow();
  await conn.close();
  await db.close();

  // Dropping removes every table under the prefix, relationships included.
  const again = new LadybugGraph({ dataDir: dir, bufferPoolBytes: 64 * 1024 * 1024, threads: 1 });
  expect(await again.countRecords(t)).toBe(4);
  await again.dropNamespace(t);
  expect(await again.listNamespaces()).toEqual([]);
  await again.close();
});

test("ensure upgrades a namespace made by an older schema with the model's new properties", async () => {
  const t = { tenantId: crypto.randomUUID(), slug: "old" };
  const ns = `t_${t.tenantId.replaceAll("-", "")}`;
  mkdirSync(join(dir, "graph"), { recursive: true });
  const db = new lbug.Database(join(dir, "graph", "cairn.lbug"), 64 * 1024 * 1024);
  const conn = new lbug.Connection(db, 1);
  await queryAll(conn, `CREATE NODE TABLE \`${ns}_Company\`(cik STRING PRIMARY KEY, name STRING)`);
  await queryAll(conn, `CREATE (:\`${ns}_Company\` {cik: '1', name: 'Old'})`);
  await conn.close();
  await db.close();

  const g = new LadybugGraph({ dataDir: dir, bufferPoolBytes: 64 * 1024 * 1024, threads: 1 });
  await g.ensureNamespace(t);
  await g.load(t, { nodes: [{ label: "Company", key: "1", props: { ticker: "OLD", sector: "Services" } }], rels: [] });
  const rows = await g.read(
    t,
    { cypher: "MATCH (c:Company) RETURN c.cik AS cik, c.name AS name, c.ticker AS ticker" },
    {},
    10,
  );
  // New columns were added; the name the load did not give is kept.
  expect(rows.rows).toEqual([["1", "Old", "OLD"]]);
  await g.close();
});
