import { describe, expect, test } from "bun:test";
import { AppError } from "../../errors.ts";
import { checkGraphFeature, checkReadQuery, graphKeyOf, rewriteFor, rewriteReadFor, tokenize } from "./cypher.ts";

const P = "t_0123456789abcdef0123456789abcdef";
const LOC = ["body", "graph_features", 0];

function feature(cypher_fragment: string, label = "Company") {
  return checkGraphFeature({ label, cypher_fragment, output_column: "v" }, LOC);
}

function refusal(fn: () => unknown): { loc: string[]; msg: string } {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(AppError);
    const err = e as AppError;
    expect(err.code).toBe("validation");
    const first = err.issues?.[0];
    if (!first) throw new Error("no issue");
    return { loc: first.loc, msg: first.msg };
  }
  throw new Error("expected a refusal");
}

describe("lexer", () => {
  test("strings, backticks, comments, parameters and punctuation", () => {
    const t = tokenize("MATCH (a:`Company` {n: 'x;y\\'z'}) // c;\n/* CREATE */ WHERE a.k = $key RETURN a");
    expect(t.map((x) => x.kind)).toEqual([
      "ident",
      "punct",
      "ident",
      "punct",
      "qident",
      "punct",
      "ident",
      "punct",
      "string",
      "punct",
      "punct",
      "ident",
      "ident",
      "punct",
      "ident",
      "punct",
      "param",
      "ident",
      "ident",
    ]);
    expect(t[8]?.text).toBe("'x;y\\'z'");
  });
  test("refuses backslashes and non-ASCII outside strings, and bad backtick names", () => {
    expect(() => tokenize("MATCH (a) \\u0043REATE")).toThrow(/not allowed/);
    expect(() => tokenize("MATCH (a:Cömpany)")).toThrow(/not allowed/);
    expect(() => tokenize("MATCH (a:`Comp any`)")).toThrow(/plain name/);
    expect(() => tokenize("RETURN 'open")).toThrow(/unterminated/);
    expect(() => tokenize("RETURN 1 /* open")).toThrow(/unterminated/);
  });
});

describe("graph features", () => {
  test("the example fragments are accepted and rewritten with the tenant prefix", () => {
    const a = feature("OPTIONAL MATCH (s:Company)-[:SUBSIDIARY_OF]->(e) RETURN count(s)");
    expect(a).toEqual({
      label: "Company",
      keyProperty: "cik",
      fragment: "OPTIONAL MATCH (s:Company)-[:SUBSIDIARY_OF]->(e) RETURN count(s)",
      output_column: "v",
    });
    const q = rewriteFor(P, a);
    expect(q.entityLabel).toBe(`${P}_Company`);
    expect(q.body).toBe(
      `OPTIONAL MATCH (s:\`${P}_Company\`)-[:\`${P}_SUBSIDIARY_OF\`]->(e) RETURN count(s) AS __value`,
    );
    expect(q.perKey).toBe(`MATCH (e:\`${P}_Company\`) WHERE e.cik = $key WITH e ${q.body}`);
    const b = rewriteFor(
      P,
      feature("OPTIONAL MATCH (f:Fund)-[h:HOLDS]->(e) RETURN coalesce(sum(h.shares), 0) AS held"),
    );
    expect(b.body).toBe(
      `OPTIONAL MATCH (f:\`${P}_Fund\`)-[h:\`${P}_HOLDS\`]->(e) RETURN coalesce(sum(h.shares), 0) AS __value`,
    );
  });
  test("unlabelled nodes reached from e, map keys, alternatives and pattern predicates pass", () => {
    const q = rewriteFor(
      P,
      feature(
        "MATCH (e)<-[r:DIRECTOR_OF|:OFFICER_OF]-(p) WHERE p.name <> 'x' AND NOT (p)-[:TRADED]->(:Company {cik: $key}) RETURN count(DISTINCT p)",
      ),
    );
    expect(q.body).toContain(`[r:\`${P}_DIRECTOR_OF\`|:\`${P}_OFFICER_OF\`]`);
    expect(q.body).toContain(`(:\`${P}_Company\` {cik: $key})`);
    feature("RETURN e.name");
    feature("MATCH (e)-[:IN_SECTOR]->(s) WITH s.name AS n RETURN n");
    feature("RETURN size([(e)<-[:HOLDS]-(f) | f.id])");
    expect(graphKeyOf("Fund")).toEqual({ property: "id" });
    expect(graphKeyOf("Nope")).toBeNull();
  });
  test.each([
    ["CREATE (x:Company {cik: '1'}) RETURN 1", "CREATE"],
    ["MATCH (e) SET e.name = 'x' RETURN 1", "SET"],
    ["MATCH (e) DETACH DELETE e RETURN 1", "DETACH"],
    ["MERGE (x:Company {cik: '1'}) RETURN 1", "MERGE"],
    ["MATCH (e) REMOVE e.name RETURN 1", "REMOVE"],
    ["CALL db.labels() YIELD label RETURN count(label)", "CALL"],
    ["MATCH (e) CALL { MATCH (x) RETURN x } RETURN 1", "CALL"],
    ["MATCH (e) CALL () { RETURN 1 AS x } RETURN 1", "CALL"],
    ["LOAD CSV FROM 'file:///etc/passwd' AS l RETURN l", "LOAD"],
    ["WITH 1 AS x LOAD CSV FROM 'x' AS l RETURN l", "LOAD"],
    ["MATCH (e) FOREACH (x IN [1] | SET e.a = 1) RETURN 1", "FOREACH"],
    ["USE system MATCH (x) RETURN 1", "USE"],
    ["MATCH (e) RETURN 1 UNION MATCH (x) RETURN x.name", "UNION"],
    ["RETURN 1; MATCH (n) DETACH DELETE n", "';'"],
    ["MATCH (x) RETURN count(x)", "every pattern"],
    ["OPTIONAL MATCH (a)-[:HOLDS]->(b) RETURN count(a)", "every pattern"],
    ["MATCH (x:`t_ffffffffffffffffffffffffffffffff_Company`) RETURN count(x)", "unknown label"],
    ["MATCH (x:t_ffffffffffffffffffffffffffffffff_Company) RETURN count(x)", "unknown label"],
    ["MATCH (x:%) RETURN count(x)", "must follow ':'"],
    ["MATCH (x:!Company) RETURN count(x)", "must follow ':'"],
    ["MATCH (x:Company&!Fund) RETURN count(x)", "'&'"],
    ["MATCH (e)-[*]-(x) RETURN count(x)", "variable-length"],
    ["MATCH (x IS Company) RETURN count(x)", "IS"],
    ["RETURN db.nameFromElementId('x')", "namespaced"],
    ["RETURN apoc.cypher.runFirstColumnSingle('MATCH (n) RETURN count(n)', {})", "namespaced"],
    ["MATCH (e) RETURN e /* hidden */ ; CREATE (x)", "';'"],
    ["MATCH (e) // comment\nCREATE (x:Company)", "CREATE"],
    ["MATCH (e) RETURN e.name, e.cik", "exactly one column"],
    ["MATCH (e) RETURN *", "RETURN *"],
    ["MATCH (e) RETURN e.name ORDER BY e.name", "RETURN <one expression>"],
    ["MATCH (e)", "RETURN"],
    ["OR true RETURN 1", "must start with"],
    ["RETURN $other", "unknown parameter"],
    ["MATCH (e) WHERE EXISTS { MATCH (y) } RETURN 1", "every pattern"],
    ["MATCH (e) RETURN COUNT { (y)--(z) }", "every pattern"],
    ["MATCH p = shortestPath((a)-[:HOLDS]-(b)) RETURN length(p)", "every pattern"],
    ["MATCH (e) RETURN [(x)-[:HOLDS]->(y) | x.id]", "every pattern"],
    ["MATCH (x WHERE x.cik = '1') RETURN count(x)", "every pattern"],
    ["MATCH (e) RETURN e.name AS `a``b`", "plain name"],
  ])("refuses %p", (fragment, why) => {
    const r = refusal(() => feature(fragment));
    expect(r.loc).toEqual(["body", "graph_features", "0", "cypher_fragment"]);
    expect(r.msg).toContain(why);
  });
  test("an unknown label and a bad output column point at their fields", () => {
    expect(
      refusal(() => checkGraphFeature({ label: "User", cypher_fragment: "RETURN 1", output_column: "v" }, LOC)).loc,
    ).toEqual(["body", "graph_features", "0", "label"]);
    expect(
      refusal(() => checkGraphFeature({ label: "Company", cypher_fragment: "RETURN 1", output_column: "a b" }, LOC))
        .loc,
    ).toEqual(["body", "graph_features", "0", "output_column"]);
  });
});

describe("read queries", () => {
  test("rewritten for a tenant with a capped LIMIT", () => {
    const q = checkReadQuery(
      "MATCH (c:Company)<-[:SUBSIDIARY_OF]-(s) RETURN c.name, count(s) AS n ORDER BY n DESC LIMIT 500",
      ["body", "q"],
    );
    expect(rewriteReadFor(P, q, 100)).toBe(
      `MATCH (c:\`${P}_Company\`)<-[:\`${P}_SUBSIDIARY_OF\`]-(s) RETURN c.name, count(s) AS n ORDER BY n DESC LIMIT 100`,
    );
    expect(rewriteReadFor(P, checkReadQuery("MATCH (f:Fund) RETURN f.name", ["q"]), 10)).toBe(
      `MATCH (f:\`${P}_Fund\`) RETURN f.name LIMIT 10`,
    );
  });
  test("refuses unanchored patterns (no e here), writes and bad limits", () => {
    expect(refusal(() => checkReadQuery("MATCH (n) RETURN n", ["body", "q"])).loc).toEqual(["body", "q"]);
    expect(refusal(() => checkReadQuery("MATCH (e)--(x) RETURN x", ["q"])).msg).toContain("every pattern");
    expect(refusal(() => checkReadQuery("MATCH (c:Company) DELETE c RETURN 1", ["q"])).msg).toContain("DELETE");
    expect(refusal(() => checkReadQuery("MATCH (c:Company) RETURN c LIMIT $n", ["q"])).msg).toContain("LIMIT");
    expect(refusal(() => checkReadQuery("RETURN 1", ["q"])).msg).toContain("must start");
  });
});
