import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { checkImports, readFrom, repositoryFiles } from "./imports.ts";

const root = join(import.meta.dir, "..", "..");

describe("layer rules (docs/architecture.md)", () => {
  test("no shipped file imports across a forbidden layer boundary", () => {
    const violations = checkImports(repositoryFiles(root), readFrom(root)).map(
      (v) =>
        `${v.file} imports ${v.imports} (${v.rule.from}/ must not import ${v.imports.split("/")[0]}/: ${v.rule.why})`,
    );
    expect(violations).toEqual([]);
  });

  test("the checker catches each kind of violation, and lets tests and allowed imports through", () => {
    const files: Record<string, string> = {
      "http/routes/x/routes.ts":
        'import { a } from "../../../adapters/sql/index.ts";\nimport { b } from "../../../pipelines/news/index.ts";',
      "http/routes/x/stream.ts":
        'import { s } from "../../../sockets/news/stream.ts";\nimport { d } from "../../../domain/news/service.ts";',
      "http/routes/x/routes.test.ts": 'import { a } from "../../../adapters/sql/index.ts";',
      "sockets/news/stream.ts": 'import type { A } from "../../adapters/news/index.ts";',
      "pipelines/news/ingest.ts": 'const m = await import("../../adapters/news/index.ts");',
      "actors/news/hub.ts": 'import { x } from "../index.ts";',
      "domain/news/service.ts": 'import { y } from "../../http/app.ts";',
      "cli/seed.ts": 'import { z } from "../adapters/graph/index.ts";\nimport { w } from "../composition/cli.ts";',
      "composition/service.ts": 'import { a } from "../adapters/sql/index.ts";',
    };
    const found = checkImports(Object.keys(files), (p) => files[p] ?? "").map((v) => `${v.file} -> ${v.imports}`);
    expect(found.sort()).toEqual(
      [
        "http/routes/x/routes.ts -> adapters/sql/index.ts",
        "http/routes/x/routes.ts -> pipelines/news/index.ts",
        "http/routes/x/stream.ts -> sockets/news/stream.ts",
        "sockets/news/stream.ts -> adapters/news/index.ts",
        "pipelines/news/ingest.ts -> adapters/news/index.ts",
        "domain/news/service.ts -> http/app.ts",
        "cli/seed.ts -> adapters/graph/index.ts",
      ].sort(),
    );
  });
});
