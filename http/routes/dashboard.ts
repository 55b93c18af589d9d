/**
 * The dashboard (docs/dashboard.md): static pages under /app, bundled from web/ by Bun on
 * the first request and kept in memory. Built lazily so that a service that is never asked
 * for /app (tests, workers) pays nothing; the build is a few hundred milliseconds.
 *
 * The pages call only the public API (/openapi.json) and the two documented WebSockets
 * (/v1/news/stream, /v1/editor/collab); these routes are not part of the API and are not in
 * the OpenAPI document.
 */
import { join } from "node:path";
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../context.ts";

const WEB = join(import.meta.dir, "..", "..", "web");

export interface DashboardBundle {
  /** Asset file name (e.g. "main-abc123.js") to its bytes and content type. */
  files: Map<string, { bytes: ArrayBuffer; type: string; gzip?: ArrayBuffer }>;
  /** The entry chunk's name: the only script index.html loads. */
  entry: string;
  /** The stylesheet's name. */
  css: string;
}

let building: Promise<DashboardBundle> | null = null;

/** Builds web/main.ts (code-split: the editor and the charts load on demand). */
export async function buildDashboard(): Promise<DashboardBundle> {
  const out = await Bun.build({
    entrypoints: [join(WEB, "main.ts")],
    target: "browser",
    splitting: true,
    minify: true,
    naming: { entry: "[name]-[hash].[ext]", chunk: "chunk-[hash].[ext]", asset: "[name]-[hash].[ext]" },
  });
  if (!out.success) throw new AggregateError(out.logs, "dashboard build failed");
  const files: DashboardBundle["files"] = new Map();
  let entry = "";
  for (const o of out.outputs) {
    const name = o.path.replace(/^\.\//, "");
    files.set(name, { bytes: await o.arrayBuffer(), type: o.type });
    if (o.kind === "entry-point") entry = name;
  }
  const css = "style.css";
  files.set(css, { bytes: await Bun.file(join(WEB, "style.css")).arrayBuffer(), type: "text/css" });
  const uplotCss = Bun.file(join(WEB, "..", "node_modules", "uplot", "dist", "uPlot.min.css"));
  files.set("uplot.css", { bytes: await uplotCss.arrayBuffer(), type: "text/css" });
  return { files, entry, css };
}

function dashboard(): Promise<DashboardBundle> {
  building ??= buildDashboard().catch((err) => {
    building = null; // a failed build is retried by the next request
    throw err;
  });
  return building;
}

export function indexHtml(b: DashboardBundle): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Cairn dashboard</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/app/assets/${b.css}">
<link rel="stylesheet" href="/app/assets/uplot.css">
</head><body>
<a class="skip" href="#main">Skip to content</a>
<div id="root"></div>
<script type="module" src="/app/assets/${b.entry}"></script>
</body></html>`;
}

export function registerDashboardRoutes(app: OpenAPIHono<AppEnv>): void {
  const page = async () =>
    new Response(indexHtml(await dashboard()), {
      headers: { "Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store" },
    });
  app.get("/app", page);
  app.get("/app/", page);
  app.get("/app/assets/:file", async (c) => {
    const f = (await dashboard()).files.get(c.req.param("file"));
    if (!f) return c.json({ detail: "Not Found" }, 404);
    // Hashed names never change content; style.css is not hashed, so it is revalidated.
    const immutable = /-[a-z0-9]{6,}\./.test(c.req.param("file"));
    const headers: Record<string, string> = {
      "Content-Type": f.type.includes("javascript") ? "text/javascript; charset=utf-8" : f.type,
      "Cache-Control": immutable ? "public, max-age=31536000, immutable" : "no-cache",
      Vary: "Accept-Encoding",
    };
    if (!/\bgzip\b/.test(c.req.header("accept-encoding") ?? "")) return new Response(f.bytes, { headers });
    // Compressed once per file, on first request (the editor chunk: 540 KB -> 170 KB).
    f.gzip ??= Bun.gzipSync(new Uint8Array(f.bytes)).buffer as ArrayBuffer;
    return new Response(f.gzip, { headers: { ...headers, "Content-Encoding": "gzip" } });
  });
}
