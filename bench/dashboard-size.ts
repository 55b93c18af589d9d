/**
 * The dashboard's first-load size, raw and gzip-compressed: index.html, the stylesheets and
 * the JavaScript a first visit runs. The entry script routes to one page module, loaded
 * on demand, so the first load depends on the page opened: this prints, for every page
 * module, the entry plus everything that module imports (statically and on demand, e.g.
 * uPlot for the charts), and the worst of them (opening the editor directly, which brings
 * Tiptap and Yjs). Prints JSON; the goal is under 300 KB compressed. No assertion.
 *
 *   node_modules/.bin/bun bench/dashboard-size.ts
 */
import { buildDashboard, indexHtml } from "../http/routes/dashboard.ts";

const bundle = await buildDashboard();
const gz = (bytes: ArrayBuffer | Uint8Array) => Bun.gzipSync(new Uint8Array(bytes)).byteLength;
const text = (name: string) => new TextDecoder().decode(bundle.files.get(name)?.bytes ?? new ArrayBuffer(0));
const refs = (name: string, re: RegExp) => [...text(name).matchAll(re)].map((m) => m[1] as string);
const STATIC = /from\s*"\.\/(chunk-[a-z0-9]+\.js)"/g;
const DYNAMIC = /import\(\s*"\.\/(chunk-[a-z0-9]+\.js)"\s*\)/g;

/** A chunk and every chunk it imports, statically or on demand (what its page ends up running). */
function closure(start: string): Set<string> {
  const seen = new Set<string>();
  const todo = [start];
  for (let n = todo.pop(); n; n = todo.pop()) {
    if (seen.has(n)) continue;
    seen.add(n);
    todo.push(...refs(n, STATIC), ...refs(n, DYNAMIC));
  }
  return seen;
}

const size = (names: Iterable<string>) => {
  let bytes = 0;
  let gzip = 0;
  for (const n of names) {
    const f = bundle.files.get(n);
    if (!f) continue;
    bytes += f.bytes.byteLength;
    gzip += gz(f.bytes);
  }
  return { bytes, gzip_bytes: gzip };
};

const html = new TextEncoder().encode(indexHtml(bundle));
const shell = { bytes: html.byteLength, gzip_bytes: gz(html) };
const css = size([bundle.css, "uplot.css"]);
const entry = size([bundle.entry]);
const pages = [...new Set(refs(bundle.entry, DYNAMIC))].map((chunk) => {
  const js = size(new Set([bundle.entry, ...closure(chunk)]));
  return { page_chunk: chunk, js_bytes: js.bytes, js_gzip_bytes: js.gzip_bytes };
});
pages.sort((a, b) => b.js_gzip_bytes - a.js_gzip_bytes);
const worst = pages[0];
const lightest = pages[pages.length - 1];
process.stdout.write(
  `${JSON.stringify(
    {
      bench: "dashboard-size",
      goal_first_load_gzip_bytes: 300 * 1024,
      entry_js_gzip_bytes: entry.gzip_bytes,
      lightest_first_load_gzip_bytes: shell.gzip_bytes + css.gzip_bytes + (lightest?.js_gzip_bytes ?? 0),
      worst_first_load_gzip_bytes: shell.gzip_bytes + css.gzip_bytes + (worst?.js_gzip_bytes ?? 0),
      html: shell,
      css,
      pages,
    },
    null,
    2,
  )}\n`,
);
