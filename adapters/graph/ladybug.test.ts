import { afterEach, beforeEach, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import lbug from "@ladybugdb/core";
import { LadybugGraph } from "./ladybug.ts";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "cairn-graph-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

test("ensure creates the tenant's node tables with primary keys and typed rel tables", async () => {
  const g = new LadybugGraph({ dataDir: dir, bufferPoolBytes: 64 * 1024 * 1024, threads: 1 });
  const t = { tenantId: crypto.randomUUID(), slug: "acme" };
  const ns = await g.ensureNamespace(t);
  expect(ns).toBe(`t_${t.tenantId.replaceAll("-", "")}`);
  await g.close();

  const db = new lbug.Database(g.path, 64 * 1024 * 1024);
  const conn = new lbug.Connection(db, 1);
  const rows = async (q: string) => {
    const r = await conn.query(q);
    return (Array.isArray(r) ? r[0] : r)?.getAll() ?? [];
  };
  const tables = (await rows("CALL show_tables() RETURN name, type")).map((r) => `${r.name}:${r.type}`).sort();
  expect(tables).toEqual(
    ["Company:NODE", "Fund:NODE", "OFFICER_OF:REL", "OWNS:REL", "Person:NODE", "SUBSIDIARY_OF:REL"].map(
      (s) => `${ns}_${s}`,
    ),
  );
  const pk = (await rows(`CALL table_info('${ns}_Company') RETURN name, \`primary key\` AS pk`)).find((r) => r.pk);
  expect(pk?.name).toBe("cik");
  await rows(`CREATE (:${ns}_Company {cik: '1', name: 'A'})`);
  await expect(rows(`CREATE (:${ns}_Company {cik: '1', name: 'B'})`)).rejects.toThrow();
  await rows(`CREATE (:${ns}_Fund {id: 'f', name: 'F'})`);
  await rows(`MATCH (f:${ns}_Fund), (c:${ns}_Company) CREATE (f)-[:${ns}_OWNS {shares: 10}]->(c)`);
  // Rel tables are typed by endpoint: a Person cannot OWN a Company.
  await rows(`CREATE (:${ns}_Person {id: 'p', name: 'P'})`);
  await expect(
    rows(`MATCH (p:${ns}_Person), (c:${ns}_Company) CREATE (p)-[:${ns}_OWNS {shares: 1}]->(c)`),
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
