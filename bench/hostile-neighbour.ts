/**
 * Hostile neighbour (issue 13): does one tenant uploading bombs and oversized files in a
 * loop slow another tenant's document searches? One command:
 *
 *   node_modules/.bin/bun bench/hostile-neighbour.ts      (BENCH_QUICK=1: 5 s phases)
 *
 * The service runs in a child process (this file with --serve): a real HTTP server with two
 * tenants (test/hostile/fixture.ts) and the neighbour's index loaded with BENCH_CHUNKS chunks
 * of generated financial prose (BM25 search: no embedding model on the measured path). This
 * process is the client: the neighbour searches at concurrency 4 for a baseline phase, then
 * keeps searching while the attacker uploads, two at a time in a loop, a DOCX whose
 * document.xml inflates to 200 MB (declared 1 KB), the same bomb declaring its size, a ZIP of
 * 100,000 entries, a PNG declaring 10^10 pixels and a 60 MB body (413 while streaming).
 * Prints the neighbour's p50/p99 before and during (peer: before; goal: p99 ratio <= 2), the
 * attacker's answers by status, and the service's peak RSS (VmHWM).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { SqliteDocumentIndex } from "../adapters/docindex/index.ts";
import { EMBEDDING_DIM } from "../domain/documents/types.ts";
import { startHostileFixture } from "../test/hostile/fixture.ts";
import { docxBomb, manyEntries } from "../test/hostile/zip-bombs.ts";
import { prng } from "../test/prng.ts";
import { closedLoop } from "./load.ts";
import { emit, QUICK, round, summarize } from "./runner.ts";

const PHASE_MS = QUICK ? 5_000 : 20_000;
const CHUNKS = Number(process.env.BENCH_CHUNKS ?? (QUICK ? 2_000 : 10_000));
const SEARCH_CONCURRENCY = 4;
const ATTACK_CONCURRENCY = 2;
const MB = 1024 * 1024;

interface Handoff {
  url: string;
  neighbourKey: string;
  attackerKey: string;
  tenantId: string;
  identityId: string;
}

const WORDS = (
  "revenue margin guidance quarter fiscal ebitda leverage covenant dividend buyback capex segment " +
  "acquisition synergy pipeline backlog churn pricing inventory liquidity refinancing outlook growth " +
  "operating cash flow debt equity valuation multiple board diligence integration headcount forecast"
).split(" ");

/** The child: the service with two tenants, the neighbour's index loaded; prints the handoff line. */
async function serveRole(): Promise<void> {
  // Tier rate limits would refuse a closed-loop client; the bench measures the request path.
  const h = await startHostileFixture({ CAIRN_RATE_LIMIT_SCALE: "1000000" });
  const index = h.fx.svc.service.engines.documentIndex as SqliteDocumentIndex;
  const r = prng(13);
  const perDoc = 20;
  for (let d = 0; d < CHUNKS / perDoc; d++) {
    const docId = crypto.randomUUID();
    const chunks = Array.from({ length: perDoc }, (_, i) => {
      const embedding = new Float32Array(EMBEDDING_DIM).map(() => r.next() - 0.5);
      const norm = Math.hypot(...embedding);
      return {
        chunk_index: i,
        id: `${docId}:${i}`,
        text: Array.from({ length: 120 }, () => r.pick(WORDS)).join(" "),
        embedding: embedding.map((x) => x / norm),
      };
    });
    await index.putDocument(
      h.neighbourRef,
      {
        doc_id: docId,
        filename: `note-${d}.txt`,
        format: "txt",
        doc_type: "research_note",
        entity_id: null,
        uploaded_by: String(h.neighbour.user.id),
        uploaded_at: new Date().toISOString(),
        acl: { visibility: "tenant_wide", allowed_identity_ids: [], allowed_roles: [], barrier_id: null },
      },
      chunks,
    );
  }
  const handoff: Handoff = {
    url: h.served.url,
    neighbourKey: h.neighbour.key,
    attackerKey: h.attacker.key,
    tenantId: h.fx.svc.tenantId,
    identityId: String(h.attacker.user.id),
  };
  process.stdout.write(`${JSON.stringify(handoff)}\n`);
  process.on("SIGTERM", () => h.close().finally(() => process.exit(0)));
}

function pngBomb(): Uint8Array<ArrayBuffer> {
  const b = Buffer.alloc(64);
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]).copy(b, 0);
  b.write("IHDR", 12, "latin1");
  b.writeUInt32BE(100_000, 16);
  b.writeUInt32BE(100_000, 20);
  return new Uint8Array(b);
}

async function clientRole(): Promise<void> {
  const child = Bun.spawn([process.execPath, import.meta.path, "--serve"], {
    cwd: join(import.meta.dir, ".."),
    env: { ...process.env, CAIRN_LOG_LEVEL: "silent" },
    stdout: "pipe",
    stderr: "inherit",
  });
  try {
    const reader = child.stdout.getReader();
    let text = "";
    while (!text.includes("\n")) {
      const { done, value } = await reader.read();
      if (done) throw new Error("the service process exited before it was ready");
      text += new TextDecoder().decode(value);
    }
    const h = JSON.parse(text.slice(0, text.indexOf("\n"))) as Handoff;
    const search: RequestInit = {
      method: "POST",
      headers: { "x-api-key": h.neighbourKey, "content-type": "application/json" },
      body: JSON.stringify({ query: "revenue guidance covenant refinancing", k: 10, mode: "bm25" }),
    };
    const url = `${h.url}/v1/documents/search`;
    await closedLoop(url, search, { concurrency: SEARCH_CONCURRENCY, durationMs: 1_000 }); // warm-up
    const before = await closedLoop(url, search, { concurrency: SEARCH_CONCURRENCY, durationMs: PHASE_MS });

    const files: [string, Uint8Array<ArrayBuffer>][] = [
      ["bomb.docx", await docxBomb(200 * MB, false)],
      ["honest-bomb.docx", await docxBomb(200 * MB, true)],
      ["entries.docx", manyEntries(100_000)],
      ["pixels.png", pngBomb()],
      ["huge.txt", new Uint8Array(60 * MB).fill(0x61)],
    ];
    // BENCH_ATTACK=bomb.docx,pixels.png limits the loop to those files (to see what costs what).
    const only = process.env.BENCH_ATTACK?.split(",");
    if (only) files.splice(0, files.length, ...files.filter(([name]) => only.includes(name)));
    const statuses = new Map<number, number>();
    let attacking = true;
    // Bodies built once: the client's own work must not be what slows the neighbour down
    // (client and service share this machine's cores).
    const bodies = await Promise.all(
      files.map(async ([name, bytes]) => {
        const fd = new FormData();
        fd.append("tenant_id", h.tenantId);
        fd.append("identity_id", h.identityId);
        fd.append("file", new File([bytes], name));
        const req = new Request("http://x/", { method: "POST", body: fd });
        return { type: req.headers.get("content-type") ?? "", body: new Uint8Array(await req.arrayBuffer()) };
      }),
    );
    const attacker = async (offset: number) => {
      for (let i = offset; attacking; i++) {
        const { type, body } = bodies[i % bodies.length]!;
        try {
          const res = await fetch(`${h.url}/v1/documents/upload`, {
            method: "POST",
            headers: { "x-api-key": h.attackerKey, "content-type": type },
            body,
          });
          await res.arrayBuffer();
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
          // A refused client that floods anyway meets the per-tenant rate limiter (bench/user-me
          // measures that path); this one retries when told to, as a client library does.
          const retry = Number(res.headers.get("retry-after"));
          if (retry > 0) await Bun.sleep(retry * 1000);
        } catch {
          statuses.set(0, (statuses.get(0) ?? 0) + 1); // connection closed on a 413 mid-stream
        }
      }
    };
    const attackers = Array.from({ length: ATTACK_CONCURRENCY }, (_, i) => attacker(i * 2));
    const during = await closedLoop(url, search, { concurrency: SEARCH_CONCURRENCY, durationMs: PHASE_MS });
    attacking = false;
    await Promise.all(attackers);

    const b = summarize(before.latenciesMs);
    const d = summarize(during.latenciesMs);
    const line = (bench: string, metric: string, value: number, unit: string, peer?: { bench: string; v: number }) =>
      emit({
        bench,
        metric,
        value: round(value, 3),
        unit,
        peer: peer?.bench ?? null,
        ratio: peer ? round(value / peer.v, 3) : null,
      });
    line("hostile-neighbour/before", "latency_p50", b.p50, "ms");
    line("hostile-neighbour/before", "latency_p99", b.p99, "ms");
    line("hostile-neighbour/during", "latency_p50", d.p50, "ms", { bench: "hostile-neighbour/before", v: b.p50 });
    line("hostile-neighbour/during", "latency_p99", d.p99, "ms", { bench: "hostile-neighbour/before", v: b.p99 });
    line("hostile-neighbour/before", "errors", before.errors, "requests");
    line("hostile-neighbour/during", "errors", during.errors, "requests");
    line("hostile-neighbour/before", "throughput", before.rps, "req/s");
    line("hostile-neighbour/during", "throughput", during.rps, "req/s", {
      bench: "hostile-neighbour/before",
      v: before.rps,
    });
    for (const [status, n] of [...statuses].sort((x, y) => x[0] - y[0])) {
      line(`hostile-neighbour/attacker-${status === 0 ? "closed" : status}`, "uploads", n, "requests");
    }
    const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, "utf8"))?.[1];
    if (hwm) line("hostile-neighbour/service", "peak_rss", Number(hwm) / 1024, "MiB");
  } finally {
    child.kill("SIGTERM");
    await child.exited;
  }
}

if (process.argv.includes("--serve")) await serveRole();
else await clientRole();
