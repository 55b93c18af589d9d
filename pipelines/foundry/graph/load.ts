/**
 * Loads the company graph of a folder of filings into a tenant's graph. The folder is
 * `../shared/data/graph` (ex21/, 13f/, form4/, proxy/) or the small copy in
 * test/fixtures/graph; files are recognised by name and content, in any sub-folder. SEC
 * reference data (company_tickers.json, submissions/CIK*.json) is read from the folder
 * itself or from its sibling `sec/` folder when present (../shared/data/sec), news feed
 * items from `news/feed_items` in the folder or beside it (../shared/data/news).
 * The load is idempotent: running it again merges the same nodes and relationships.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { basename, join } from "node:path";
import type { GraphBatch } from "../../../domain/foundry/graph/model.ts";
import type { GraphPort } from "../../../domain/foundry/graph/ports.ts";
import type { TenantRef } from "../../../domain/tenants/namespaces.ts";
import { add13f, addEx21, addOwnership, addProxy } from "./filings.ts";
import { addNewsItems } from "./news.ts";
import { addSubmission, addTickers, type CompanyDirectory, classify, emptyDirectory, GraphBuilder } from "./parse.ts";

export interface CompanyGraphReport {
  /** Per file (relative path): its kind and how many records it gave. */
  files: { file: string; kind: string; records: number }[];
  nodes: number;
  rels: number;
}

function walk(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...walk(p));
    else out.push(p);
  }
  return out;
}

/** SEC titles, tickers and SIC codes from the folder or its sibling `sec/`. */
export function readDirectory(dir: string): CompanyDirectory {
  const d = emptyDirectory();
  for (const base of [dir, join(dir, "..", "sec")]) {
    const tickers = join(base, "company_tickers.json");
    if (existsSync(tickers)) addTickers(d, JSON.parse(readFileSync(tickers, "utf8")));
    const subs = join(base, "submissions");
    if (existsSync(subs)) {
      for (const f of readdirSync(subs).filter((x) => /^CIK[0-9]+\.json$/.test(x))) {
        addSubmission(d, JSON.parse(readFileSync(join(subs, f), "utf8")));
      }
    }
  }
  return d;
}

/** Parses every filing in `dir` into one batch. */
export function parseCompanyGraph(dir: string): { batch: GraphBatch; files: CompanyGraphReport["files"] } {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new Error(`graph data folder not found: ${dir}`);
  const b = new GraphBuilder(readDirectory(dir));
  const files: CompanyGraphReport["files"] = [];
  const paths = walk(dir).filter((p) => /\.(html?|txt|xml|nc)$/i.test(p));
  // Registrants before the filings that mention them, so names come from their own filings.
  const order = { ex21: 0, proxy: 1, ownership: 2, "13f": 3 } as const;
  const kinds = paths
    .map((p) => {
      const text = readFileSync(p, "utf8");
      return { p, text, kind: classify(basename(p), text.slice(0, 4000)) };
    })
    .filter((x) => x.kind !== null)
    .sort((a, c) => order[a.kind as keyof typeof order] - order[c.kind as keyof typeof order]);
  for (const { p, text, kind } of kinds) {
    const name = basename(p);
    const records =
      kind === "ex21"
        ? addEx21(b, name, text)
        : kind === "13f"
          ? add13f(b, name, text)
          : kind === "ownership"
            ? addOwnership(b, name, text)
            : addProxy(b, name, text);
    files.push({ file: p.slice(dir.length).replace(/^\/+/, ""), kind: kind as string, records });
  }
  // News last: it links articles to the companies the filings brought in.
  for (const news of [join(dir, "news", "feed_items"), join(dir, "..", "news", "feed_items")]) {
    if (!existsSync(news)) continue;
    for (const f of readdirSync(news)
      .filter((x) => x.endsWith(".json"))
      .sort()) {
      const records = addNewsItems(b, f, JSON.parse(readFileSync(join(news, f), "utf8")));
      files.push({ file: join(news, f), kind: "news", records });
    }
  }
  return { batch: b.build(), files };
}

/** The graph data folder: the shared real filings when present, else the repository's fixture copy. */
export function companyGraphDir(repoRoot: string): string {
  const shared = join(repoRoot, "..", "shared", "data", "graph");
  return existsSync(shared) ? shared : join(repoRoot, "test", "fixtures", "graph");
}

/** Parses `dir` and merges the graph into the tenant's namespace. */
export async function loadCompanyGraph(graph: GraphPort, t: TenantRef, dir: string): Promise<CompanyGraphReport> {
  const { batch, files } = parseCompanyGraph(dir);
  const { nodes, rels } = await graph.load(t, batch);
  return { files, nodes, rels };
}
