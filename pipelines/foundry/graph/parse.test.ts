import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { validateBatch } from "../../../domain/foundry/graph/model.ts";
import { parseEx21Html, parseProxy } from "./filings.ts";
import { companyGraphDir, parseCompanyGraph } from "./load.ts";
import { nameKey, normCik, sicDivision, slug } from "./parse.ts";

const ROOT = join(import.meta.dir, "../../..");
const FIXTURE = join(ROOT, "test/fixtures/graph");
const SHARED = join(ROOT, "../shared/data/graph");
const HAVE_SHARED = existsSync(SHARED);

describe("helpers", () => {
  test("keys and names", () => {
    expect(normCik("0000320193")).toBe("0000320193");
    expect(normCik("0000320193")).toBe("0000320193");
    expect(normCik("abc")).toBeNull();
    expect(normCik("0000")).toBeNull();
    expect(slug("Apple Operations Mexico, S.A. de C.V.")).toBe("apple-operations-mexico-s-a-de-c-v");
    expect(nameKey("Apple Inc.")).toBe(nameKey("APPLE INC"));
    expect(nameKey("Tesla, Inc.")).toBe("TESLA");
    expect(sicDivision(3571)).toBe("Manufacturing");
    expect(sicDivision(6021)).toBe("Finance, Insurance and Real Estate");
    expect(sicDivision(7372)).toBe("Services");
  });
});

describe("the repository's fixture graph", () => {
  const { batch, files } = parseCompanyGraph(FIXTURE);

  test("is a valid batch of the model, from both fixture files", () => {
    validateBatch(batch);
    expect(files.map((f) => f.kind).sort()).toEqual(["ex21", "ownership"]);
  });

  test("Tesla's EX-21.1 inside its SGML 10-K: two subsidiaries with jurisdictions, SIC sector and industry", () => {
    const subs = batch.rels.filter((r) => r.type === "SUBSIDIARY_OF" && r.to === "0001318605");
    expect(subs.map((r) => [r.from, r.props.jurisdiction]).sort()).toEqual([
      ["sub:0001318605:tesla-energy-operations-inc", "Delaware"],
      ["sub:0001318605:tesla-motors-netherlands-b-v", "Netherlands"],
    ]);
    const tesla = batch.nodes.find((n) => n.label === "Company" && n.key === "0001318605");
    expect(tesla?.props).toMatchObject({
      name: "Tesla, Inc.",
      sector: "Manufacturing",
      industry: "Motor Vehicles & Passenger Car Bodies",
    });
    expect(batch.rels).toContainEqual({ type: "IN_SECTOR", from: "0001318605", to: "Manufacturing", props: {} });
  });

  test("a Form 4: the reporting owner, their relationship and each transaction", () => {
    const xml = readFileSync(join(FIXTURE, "form4_374water.xml"), "utf8");
    const ownerCik = normCik(/<rptOwnerCik>([0-9]+)</.exec(xml)?.[1]) as string;
    const insider = batch.rels.find((r) => r.type === "INSIDER_OF");
    expect(insider?.from).toBe(ownerCik);
    expect(insider?.to).toBe("0000933972");
    expect(insider?.props.is_director).toBe(/<isDirector>(1|true)</.test(xml));
    const traded = batch.rels.filter((r) => r.type === "TRADED");
    expect(traded).toHaveLength((xml.match(/<nonDerivativeTransaction>/g) ?? []).length);
    expect(traded[0]?.props).toMatchObject({
      date: /<transactionDate>\s*<value>([^<]+)</.exec(xml)?.[1],
      code: /<transactionCode>([^<]+)</.exec(xml)?.[1],
      shares: Number(/<transactionShares>\s*<value>([^<]+)</.exec(xml)?.[1]),
    });
    const company = batch.nodes.find((n) => n.key === "0000933972");
    expect(company?.props.ticker).toBe("SCWO");
  });

  test("companyGraphDir prefers the shared filings and falls back to the fixture", () => {
    expect(companyGraphDir(ROOT)).toBe(HAVE_SHARED ? join(ROOT, "..", "shared", "data", "graph") : FIXTURE);
  });
});

describe.skipIf(!HAVE_SHARED)("the shared real filings", () => {
  test("the Cabot DEF 14A: directors from their blocks, named executive officers with titles", () => {
    const p = parseProxy(readFileSync(join(SHARED, "proxy/cabot_DEF14A_2023_proxy.html"), "utf8"));
    expect(p.directors).toHaveLength(12);
    expect(p.directors).toContainEqual({ name: "Sue H. Rataj", title: "Director" });
    expect(p.directors).toContainEqual({ name: "Michael M. Morrow", title: "Chair of the Board" });
    expect(p.directors).toContainEqual({ name: "Douglas G. Del Grosso", title: "Director" });
    expect(p.officers.map((o) => o.name)).toEqual([
      "Sean D. Keohane",
      "Erica McLaughlin",
      "Karen A. Kalita",
      "Hobart C. Kalkstein",
      "Jeff Zhu",
    ]);
    expect(p.officers[0]?.title).toBe("President and Chief Executive Officer");
  });

  test("ExxonMobil's EX-21: footnote markers dropped, the country column (not the percentage) kept", () => {
    const subs = parseEx21Html(readFileSync(join(SHARED, "ex21/ex21_xom.html"), "utf8"));
    expect(subs).toContainEqual({ name: "Al-Jubail Petrochemical Company", jurisdiction: "Saudi Arabia" });
    expect(subs).toContainEqual({ name: "Caspian Pipeline Consortium", jurisdiction: "Russia/Kazakhstan" });
    expect(subs.every((s) => s.jurisdiction && !/^[0-9.]+$/.test(s.jurisdiction))).toBe(true);
  });

  test("13F filings: the filer, the period and one HOLDS per issuer; a bare table gets a stable filer key", () => {
    const { batch } = parseCompanyGraph(SHARED);
    validateBatch(batch);
    const lts = batch.rels.filter((r) => r.type === "HOLDS" && r.from === "0001894188");
    expect(lts.length).toBeGreaterThan(0);
    expect(new Set(lts.map((r) => r.props.period))).toEqual(new Set(["2023-09-30"]));
    const acorn = batch.rels.filter((r) => r.type === "HOLDS" && r.from === "0001994827");
    expect(new Set(acorn.map((r) => r.props.period))).toEqual(new Set(["2024-12-31"]));
    const bare = batch.nodes.find((n) => n.label === "Fund" && n.key.startsWith("13f:"));
    expect(bare?.key).toBe("13f:13f-hr-infotable-255-holdings");
    // Issuers without a known CIK are keyed by CUSIP.
    expect(batch.nodes.some((n) => n.label === "Company" && /^cusip:[0-9A-Z]{9}$/.test(n.key))).toBe(true);
    // Apple is matched by name to its CIK, so its holdings meet its subsidiaries.
    expect(batch.rels.some((r) => r.type === "HOLDS" && r.to === "0000320193")).toBe(true);
    // News items link to companies by ticker and by name.
    expect(batch.rels.filter((r) => r.type === "MENTIONS" && r.to === "0000320193").length).toBeGreaterThan(0);
  });
});
