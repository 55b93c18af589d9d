/**
 * One contract for the graph (GraphPort + its namespaces), run unchanged on the embedded
 * engine (Ladybug, a temp dir) and on Neo4j 5.26 (scripts/engines.sh). Tenant A gets the
 * company graph of the real filings (../shared/data/graph, or the repository's fixture copy),
 * tenant B the small fixture graph; features, reads, isolation and refusals are checked on
 * each engine, and the last test compares the two engines' answers.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LadybugGraph, Neo4jGraph } from "../../adapters/graph/index.ts";
import { AppError } from "../../domain/errors.ts";
import { checkGraphFeature, checkReadQuery } from "../../domain/foundry/graph/cypher.ts";
import type { GraphBatch } from "../../domain/foundry/graph/model.ts";
import type { CheckedGraphFeature, GraphEngine, GraphValue } from "../../domain/foundry/graph/ports.ts";
import { type TenantRef, tenantPrefix } from "../../domain/tenants/namespaces.ts";
import { loadCompanyGraph, parseCompanyGraph } from "../../pipelines/foundry/graph/load.ts";
import { engineUrl } from "../engines.ts";

const SHARED = join(import.meta.dir, "../../../shared/data/graph");
const FIXTURE = join(import.meta.dir, "../fixtures/graph");
const REAL = existsSync(SHARED) ? SHARED : FIXTURE;
const HAVE_SHARED = REAL === SHARED;

const APPLE = "0000320193";
const TESLA = "0001318605";

/** Apple's EX-21 subsidiaries counted without the loader's parser: table rows of two text cells. */
function independentAppleSubsidiaries(): number {
  const html = readFileSync(join(SHARED, "ex21/ex21_aapl.html"), "utf8");
  let n = 0;
  for (const row of html.split(/<tr[\s>]/i).slice(1)) {
    const cells = [...row.matchAll(/<td[^>]*>([\s\S]*?)<\/td>/gi)]
      .map((m) =>
        (m[1] ?? "")
          .replace(/<[^>]+>/g, "")
          .replace(/&#160;/g, " ")
          .trim(),
      )
      .filter((c) => c !== "");
    if (cells.length === 2 && !/jurisdiction/i.test(cells.join(" "))) n++;
  }
  return n;
}

/** Shares of APPLE INC over the 13F information tables, by regex over the raw files. */
function independentAppleShares(): number {
  let total = 0;
  for (const f of readdirSync(join(SHARED, "13f"))) {
    const text = readFileSync(join(SHARED, "13f", f), "utf8");
    for (const m of text.matchAll(/<(?:\w+:)?infoTable>([\s\S]*?)<\/(?:\w+:)?infoTable>/g)) {
      const body = m[1] ?? "";
      if (!/<(?:\w+:)?nameOfIssuer>APPLE INC<\//.test(body)) continue;
      total += Number(/<(?:\w+:)?sshPrnamt>([0-9.]+)</.exec(body)?.[1]);
    }
  }
  return total;
}

const FEATURES: Record<string, { label: string; fragment: string; keys: string[] }> = {
  subsidiaries: {
    label: "Company",
    fragment: "OPTIONAL MATCH (s:Company)-[:SUBSIDIARY_OF]->(e) RETURN count(s)",
    keys: [APPLE, "0000019617", "0000034088", TESLA, "0000016040", "no-such-company"],
  },
  held: {
    label: "Company",
    fragment: "OPTIONAL MATCH (f:Fund)-[h:HOLDS]->(e) RETURN coalesce(sum(h.shares), 0)",
    keys: [APPLE, "0001018724", "0001652044", TESLA, "no-such-company"],
  },
  insiders: {
    label: "Company",
    fragment: "OPTIONAL MATCH (p:Person)-[r:INSIDER_OF]->(e) RETURN count(DISTINCT p) AS n",
    keys: ["0001640147", "0000933972", APPLE],
  },
  traded: {
    label: "Company",
    fragment: "OPTIONAL MATCH (p)-[t:TRADED]->(e) RETURN coalesce(sum(t.shares), 0)",
    keys: ["0001640147", "0000933972"],
  },
  board: {
    label: "Company",
    fragment: "OPTIONAL MATCH (e)<-[:DIRECTOR_OF]-(p:Person) RETURN count(p)",
    keys: ["0000016040", APPLE],
  },
  sector: {
    label: "Company",
    fragment: "MATCH (e)-[:IN_SECTOR]->(s:Sector) RETURN s.name",
    keys: [APPLE, TESLA, "0000016040"],
  },
  mentions: {
    label: "Company",
    fragment: "OPTIONAL MATCH (n:NewsArticle)-[:MENTIONS]->(e) RETURN count(n)",
    keys: [APPLE, TESLA, "0000019617"],
  },
  latestNews: {
    label: "Company",
    fragment: "MATCH (n:NewsArticle)-[:MENTIONS]->(e) WITH n ORDER BY n.published_at DESC, n.id LIMIT 1 RETURN n.title",
    keys: [APPLE, TESLA],
  },
  fundPositions: {
    label: "Fund",
    fragment: "OPTIONAL MATCH (e)-[:HOLDS]->(c:Company) RETURN count(c)",
    keys: ["0001894188", "0001994827"],
  },
};

const READS = {
  topParents:
    "MATCH (c:Company)<-[:SUBSIDIARY_OF]-(s:Company) RETURN c.cik AS cik, c.name AS name, count(s) AS n ORDER BY n DESC, cik",
  companies: "MATCH (c:Company) RETURN count(c) AS n",
  sectors: "MATCH (c:Company)-[:IN_SECTOR]->(s:Sector) RETURN s.name AS sector, count(c) AS n ORDER BY sector",
};

/** Each engine's answers, compared by the last test. */
const answers = new Map<string, unknown>();

function feature(name: keyof typeof FEATURES): CheckedGraphFeature {
  const f = FEATURES[name] as (typeof FEATURES)[string];
  return checkGraphFeature({ label: f.label, cypher_fragment: f.fragment, output_column: name }, [
    "body",
    "graph_features",
    0,
  ]);
}

function counts(batch: GraphBatch, type: string, to: string): number {
  return batch.rels.filter((r) => r.type === type && r.to === to).length;
}

function expectValidation(e: unknown): AppError {
  expect(e).toBeInstanceOf(AppError);
  expect((e as AppError).code).toBe("validation");
  return e as AppError;
}

export function runGraphContract(
  name: string,
  make: () => Promise<{ graph: GraphEngine; close: () => Promise<void> }>,
): void {
  describe(`GraphPort contract: ${name}`, () => {
    let graph: GraphEngine;
    let close: () => Promise<void>;
    const A: TenantRef = { tenantId: crypto.randomUUID(), slug: "graph-a" };
    const B: TenantRef = { tenantId: crypto.randomUUID(), slug: "graph-b" };
    const real = parseCompanyGraph(REAL).batch;
    const small = parseCompanyGraph(FIXTURE).batch;

    beforeAll(async () => {
      ({ graph, close } = await make());
      const a = await loadCompanyGraph(graph, A, REAL);
      expect(a.nodes).toBe(real.nodes.length);
      // Every relationship of the parsed batch found its two endpoints.
      expect(a.rels).toBe(real.rels.length);
      const b = await loadCompanyGraph(graph, B, FIXTURE);
      expect(b.rels).toBe(small.rels.length);
    }, 120_000);

    afterAll(async () => {
      await graph.dropNamespace(A);
      await graph.dropNamespace(B);
      expect(await graph.countRecords(A)).toBe(0);
      await close();
    }, 120_000);

    test("loading again is idempotent", async () => {
      const before = await graph.countRecords(A);
      expect(before).toBe(real.nodes.length + real.rels.length);
      await loadCompanyGraph(graph, A, REAL);
      expect(await graph.countRecords(A)).toBe(before);
      expect(await graph.namespaceExists(A)).toBe(true);
      await graph.smokeTest(A);
    }, 120_000);

    test("feature values for known companies match the filings", async () => {
      const subs = await graph.featureValues(A, feature("subsidiaries"), FEATURES.subsidiaries?.keys ?? []);
      expect(subs.get(TESLA)).toBe(2);
      expect(subs.get("no-such-company")).toBeNull();
      const held = await graph.featureValues(A, feature("held"), FEATURES.held?.keys ?? []);
      expect(held.get("no-such-company")).toBeNull();
      if (HAVE_SHARED) {
        const independent = independentAppleSubsidiaries();
        expect(independent).toBe(19);
        expect(counts(real, "SUBSIDIARY_OF", APPLE)).toBe(independent);
        expect(subs.get(APPLE)).toBe(independent);
        expect(subs.get("0000034088")).toBe(counts(real, "SUBSIDIARY_OF", "0000034088"));
        expect(held.get(APPLE)).toBe(independentAppleShares());
        expect(held.get(APPLE)).toBeGreaterThan(0);
      }
      for (const [k, f] of Object.entries(FEATURES)) {
        const values = await graph.featureValues(A, feature(k as keyof typeof FEATURES), f.keys);
        expect([...values.keys()].sort()).toEqual([...new Set(f.keys)].sort());
        answers.set(`${name}:${k}`, Object.fromEntries([...values.entries()].sort()));
      }
    }, 60_000);

    test("read queries run for the tenant with a row limit", async () => {
      const top = await graph.read(A, checkReadQuery(READS.topParents, ["q"]), {}, 3);
      expect(top.columns).toEqual(["cik", "name", "n"]);
      expect(top.rows.length).toBeLessThanOrEqual(3);
      expect(top.rows[0]?.[2]).toBe(Math.max(...top.rows.map((r) => Number(r[2]))));
      const byParam = await graph.read(
        A,
        checkReadQuery("MATCH (c:Company) WHERE c.cik = $cik RETURN c.name AS name, c.ticker AS ticker", ["q"]),
        { cik: TESLA },
        10,
      );
      expect(byParam.rows).toHaveLength(1);
      expect(byParam.rows[0]?.[1]).toBe("TSLA");
      for (const [k, cypher] of Object.entries(READS)) {
        answers.set(`${name}:read:${k}`, (await graph.read(A, checkReadQuery(cypher, ["q"]), {}, 50)).rows);
      }
    });

    test("tenant B sees none of tenant A's graph", async () => {
      const count = checkReadQuery(READS.companies, ["q"]);
      const inB = (await graph.read(B, count, {}, 10)).rows[0]?.[0];
      const inA = (await graph.read(A, count, {}, 10)).rows[0]?.[0];
      expect(inB).toBe(small.nodes.filter((n) => n.label === "Company").length);
      expect(inA).toBe(real.nodes.filter((n) => n.label === "Company").length);
      // Tesla is in both; 374Water only in B's fixture; Apple (or the 13F funds) only in A.
      const subs = await graph.featureValues(B, feature("subsidiaries"), [APPLE, TESLA]);
      expect(subs.get(TESLA)).toBe(2);
      expect(subs.get(APPLE)).toBeNull();
      const funds = await graph.read(B, checkReadQuery("MATCH (f:Fund) RETURN f.id", ["q"]), {}, 10);
      expect(funds.rows).toEqual([]);
      const apple = await graph.read(
        B,
        checkReadQuery("MATCH (c:Company) WHERE c.cik = $cik RETURN c", ["q"]),
        { cik: APPLE },
        10,
      );
      expect(apple.rows).toEqual([]);
      // A tenant with nothing loaded reads nothing and gets nulls.
      const C: TenantRef = { tenantId: crypto.randomUUID(), slug: "graph-c" };
      expect((await graph.featureValues(C, feature("subsidiaries"), [TESLA])).get(TESLA)).toBeNull();
      expect((await graph.read(C, count, {}, 10)).rows.flat().filter((v) => v !== 0)).toEqual([]);
    });

    test("writes, procedure calls and cross-tenant label tricks are refused before they reach the engine", async () => {
      const other = tenantPrefix(crypto.randomUUID());
      const mine = tenantPrefix(A.tenantId);
      const tricks = [
        "CREATE (x:Company {cik: 'evil'}) RETURN 1",
        "MATCH (e) DETACH DELETE e RETURN 1",
        "MATCH (e) SET e.name = 'x' RETURN 1",
        "MERGE (x:Company {cik: 'evil'}) RETURN 1",
        "CALL db.labels() YIELD label RETURN count(label)",
        "MATCH (e) CALL { MATCH (n) DETACH DELETE n } RETURN 1",
        "MATCH (e) RETURN 1 // harmless\n; MATCH (n) DETACH DELETE n",
        "MATCH (e) /* RETURN 1 */ FOREACH (x IN [1] | CREATE (:Company {cik: 'evil'})) RETURN 1",
        `MATCH (x:\`${other}_Company\`) RETURN count(x)`,
        `MATCH (x:${mine}_Company) RETURN count(x)`,
        `MATCH (x:\`${mine}_Company\`)-[:SUBSIDIARY_OF]->(e) RETURN count(x)`,
        "MATCH (x) RETURN count(x)",
        "MATCH (x:Company|%) RETURN count(x)",
        "MATCH (e) \\u0043REATE (x) RETURN 1",
        "MATCH (x:Compan\\u0079) RETURN count(x)",
        "MATCH (x:`Company\\u0060) RETURN count(x)",
        "LOAD CSV FROM 'file:///etc/passwd' AS l RETURN count(l)",
        "MATCH (e) RETURN e.name UNION MATCH (n) RETURN n.name",
        "MATCH (e) USE neo4j MATCH (n) RETURN count(n)",
      ];
      for (const fragment of tricks) {
        let refused: unknown = null;
        try {
          checkGraphFeature({ label: "Company", cypher_fragment: fragment, output_column: "v" }, [
            "body",
            "graph_features",
            0,
          ]);
        } catch (e) {
          refused = e;
        }
        const err = expectValidation(refused);
        expect(err.issues?.[0]?.loc).toEqual(["body", "graph_features", "0", "cypher_fragment"]);
        // A forged "checked" feature is checked again by the adapter.
        const forged: CheckedGraphFeature = { label: "Company", keyProperty: "cik", fragment, output_column: "v" };
        const viaAdapter = await graph.featureValues(A, forged, [TESLA]).catch((e: unknown) => e);
        expectValidation(viaAdapter);
        const read = await graph.read(A, { cypher: `MATCH (c:Company) ${fragment}` }, {}, 5).catch((e: unknown) => e);
        expectValidation(read);
      }
      // Nothing was written.
      expect(await graph.countRecords(A)).toBe(real.nodes.length + real.rels.length);
      expect(
        (await graph.read(A, checkReadQuery("MATCH (c:Company) WHERE c.cik = 'evil' RETURN c", ["q"]), {}, 5)).rows,
      ).toEqual([]);
    });
  });
}

runGraphContract("embedded (Ladybug)", async () => {
  const dir = mkdtempSync(join(tmpdir(), "cairn-graph-"));
  const graph = new LadybugGraph({ dataDir: dir, bufferPoolBytes: 64 * 1024 * 1024, threads: 1 });
  return {
    graph,
    close: async () => {
      await graph.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});

const neo4jUrl = engineUrl("neo4j");
if (neo4jUrl) {
  runGraphContract("Neo4j 5.26 (Bolt)", async () => {
    const graph = new Neo4jGraph({ url: neo4jUrl, batchSize: 200 });
    return { graph, close: () => graph.close() };
  });

  test("both engines give the same answers", () => {
    const keys = [...answers.keys()].filter((k) => k.startsWith("embedded (Ladybug):"));
    expect(keys.length).toBe(Object.keys(FEATURES).length + Object.keys(READS).length);
    for (const k of keys) {
      const other = k.replace("embedded (Ladybug):", "Neo4j 5.26 (Bolt):");
      expect({ [k]: answers.get(other) as GraphValue }).toEqual({ [k]: answers.get(k) as GraphValue });
    }
  });
}
