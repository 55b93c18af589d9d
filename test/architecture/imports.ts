/**
 * The layer rules of docs/architecture.md, checked over the source tree: which top-level
 * folder may import which. Tests (`*.test.ts`) and test helpers may wire anything; the rules
 * hold for the code that ships.
 */
import { readFileSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";

export interface Rule {
  /** Top-level folder of the importing file. */
  from: string;
  /** Top-level folders it must not import. */
  forbidden: string[];
  why: string;
}

export const RULES: Rule[] = [
  { from: "http", forbidden: ["adapters", "pipelines", "sockets", "composition"], why: "routes call domain services" },
  { from: "sockets", forbidden: ["adapters", "composition", "http"], why: "sockets call domain services" },
  {
    from: "pipelines",
    forbidden: ["adapters", "composition", "http", "sockets"],
    why: "pipelines reach engines through ports",
  },
  {
    from: "actors",
    forbidden: ["adapters", "composition", "http", "sockets", "pipelines"],
    why: "actors reach engines through ports",
  },
  { from: "cli", forbidden: ["adapters"], why: "commands are wired by composition/, the one place adapters are wired" },
  {
    from: "domain",
    forbidden: ["adapters", "composition", "http", "sockets", "pipelines", "actors", "cli"],
    why: "the domain depends on nothing outside it",
  },
];

export interface Violation {
  file: string;
  imports: string;
  rule: Rule;
}

const SPECIFIER = /(?:\bfrom|\bimport|\bimport\s*\()\s*["'](\.{1,2}\/[^"']+)["']/g;

/** Top-level folder of a repository-relative path ("" for files at the root). */
function topOf(path: string): string {
  const i = path.indexOf("/");
  return i < 0 ? "" : path.slice(0, i);
}

export function isShippedSource(path: string): boolean {
  return path.endsWith(".ts") && !path.endsWith(".test.ts") && !path.endsWith(".d.ts");
}

/** Violations in `files` (repository-relative paths), reading each through `read`. */
export function checkImports(files: string[], read: (path: string) => string): Violation[] {
  const out: Violation[] = [];
  for (const file of files) {
    if (!isShippedSource(file)) continue;
    const rules = RULES.filter((r) => r.from === topOf(file));
    if (rules.length === 0) continue;
    for (const m of read(file).matchAll(SPECIFIER)) {
      const target = normalize(join(dirname(file), m[1] as string));
      const top = topOf(target);
      for (const rule of rules) {
        if (rule.forbidden.includes(top)) out.push({ file, imports: target, rule });
      }
    }
  }
  return out;
}

/** The repository's tracked and untracked-but-not-ignored files. */
export function repositoryFiles(root: string): string[] {
  const r = Bun.spawnSync(["git", "ls-files", "--cached", "--others", "--exclude-standard"], { cwd: root });
  if (r.exitCode !== 0) throw new Error(`git ls-files failed: ${r.stderr.toString()}`);
  return r.stdout
    .toString()
    .split("\n")
    .filter((f) => f.length > 0)
    .map((f) => relative(root, join(root, f)));
}

export function readFrom(root: string): (path: string) => string {
  return (path) => {
    try {
      return readFileSync(join(root, path), "utf8");
    } catch {
      return ""; // deleted in the working tree but still in the index
    }
  };
}
