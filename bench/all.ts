/**
 * `bun run bench`: every scenario of the performance wave (issue 20) in one run, each in its
 * own child process of this one (so every peer runs in the same process tree and the same run
 * as ours), then one table of ratios — ours / peer or ceiling — with p50 and p99 where the
 * scenario measures latency.
 *
 *   bun run bench                         every scenario, full size
 *   bun run bench -- --quick              BENCH_QUICK=1 for each (a smoke run, minutes)
 *   bun run bench -- --only rest,editor   some scenarios (names below)
 *   bun run bench -- --out run.jsonl      also keep every JSON line, tagged with its scenario
 *   bun run bench -- --markdown           the table as Markdown (for docs/benchmarks.md)
 *   bun run bench -- --from run.jsonl     the table of an earlier run's --out file (nothing is run)
 *
 * A scenario that fails is reported as failed and the run goes on; the exit status is 1 if any
 * failed. Scenario output other than JSON lines (progress on stderr) is passed through to stderr.
 */
import { execFileSync, spawn } from "node:child_process";
import { appendFileSync, readFileSync, writeFileSync } from "node:fs";
import { cpus, loadavg, totalmem } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import type { BenchLine } from "./runner.ts";

interface Scenario {
  name: string;
  /** What the issue compares (the row of its table). */
  title: string;
  /** The goal, as the issue states it. */
  goal: string;
  command: string[];
  env?: Record<string, string>;
}

const root = join(import.meta.dir, "..");
const bun = process.execPath;

export const SCENARIOS: Scenario[] = [
  {
    name: "search",
    title: "Hybrid search p50/p99 at 100k and 1M chunks, embedded vs OpenSearch; vector recall@10 vs exact",
    goal: "embedded ≤ OpenSearch at both sizes; recall@10 ≥ 0.95",
    command: [bun, "bench/documents-search.ts"],
  },
  {
    name: "retrieval",
    title: "nDCG@10 on FinanceRAG TAT-QA / ConvFinQA / FinanceBench: hybrid vs each leg",
    goal: "hybrid ≥ each leg on every set; average ≥ 0.70, no hosted LLM",
    // BENCH_RETRIEVAL_SETS narrows the sets: embedding TAT-QA and ConvFinQA (~11k chunks each)
    // takes hours of CPU the first time (vectors are cached afterwards).
    command: [
      bun,
      "bench/retrieval-eval.ts",
      "--dataset",
      process.env.BENCH_RETRIEVAL_SETS ?? "tatqa,convfinqa,financebench",
    ],
  },
  {
    name: "ingest",
    title: "Document ingest (PDF, DOCX, XLSX mix), end to end to searchable",
    goal: "≥ 5 pages/s per core (Docling on CPU: 0.6–1.3 pages/s)",
    command: [bun, "bench/documents-ingest.ts"],
  },
  {
    name: "editor",
    title: "Editor updates/s, 50 rooms × 20 clients, vs @hocuspocus/server",
    goal: "≥ 2×",
    command: [bun, "bench/collab.ts"],
  },
  {
    name: "rest",
    title: "GET /v1/user/me req/s at c=64 vs bare Bun.serve returning the same JSON",
    goal: "≥ 60%",
    command: [bun, "bench/user-me.ts"],
  },
  {
    name: "news",
    title: "News fan-out vs bare Bun broadcast, same payloads",
    goal: "≥ 90% of the ceiling, p99 < 100 ms",
    command: [bun, "bench/news-stream.ts"],
  },
  {
    name: "rtdb",
    title: "Time-series ingest through the service vs the QuestDB client direct",
    goal: "overhead ≤ 10%; ≥ 1M rows/s per core",
    command: [bun, "bench/rtdb-ingest.ts"],
  },
];

interface Outcome {
  scenario: Scenario;
  lines: BenchLine[];
  seconds: number;
  status: number | null;
}

function isBenchLine(x: unknown): x is BenchLine {
  if (!x || typeof x !== "object") return false;
  const o = x as Record<string, unknown>;
  return typeof o.bench === "string" && typeof o.metric === "string" && typeof o.value === "number";
}

/** Runs one scenario as a child process; JSON lines on stdout are collected, the rest goes to stderr. */
function run(scenario: Scenario, quick: boolean): Promise<Outcome> {
  const started = performance.now();
  return new Promise((resolve) => {
    const [cmd = bun, ...args] = scenario.command;
    const child = spawn(cmd, args, {
      cwd: root,
      stdio: ["ignore", "pipe", "inherit"],
      env: { ...process.env, ...scenario.env, ...(quick ? { BENCH_QUICK: "1" } : {}) },
    });
    const lines: BenchLine[] = [];
    let pending = "";
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk: string) => {
      pending += chunk;
      let nl = pending.indexOf("\n");
      while (nl >= 0) {
        const text = pending.slice(0, nl).trim();
        pending = pending.slice(nl + 1);
        nl = pending.indexOf("\n");
        if (!text) continue;
        try {
          const parsed: unknown = JSON.parse(text);
          if (isBenchLine(parsed)) lines.push(parsed);
          else process.stderr.write(`${text}\n`);
        } catch {
          process.stderr.write(`${text}\n`);
        }
      }
    });
    const finish = (status: number | null) =>
      resolve({ scenario, lines, seconds: (performance.now() - started) / 1000, status });
    child.on("error", (err) => {
      process.stderr.write(`bench ${scenario.name}: ${err.message}\n`);
      finish(null);
    });
    child.on("close", (code) => finish(code));
  });
}

/** The rows of the table: every line compared with a peer, and every latency percentile. */
function rowsOf(o: Outcome): string[][] {
  const byBench = new Map(o.lines.map((l) => [`${l.bench}\u0000${l.metric}`, l]));
  const rows: string[][] = [];
  for (const l of o.lines) {
    const latency = /p50|p99/i.test(l.metric);
    if (l.peer === null && !latency) continue;
    const peer = l.peer === null ? undefined : byBench.get(`${l.peer}\u0000${l.metric}`);
    rows.push([
      o.scenario.name,
      l.bench,
      l.metric,
      `${fmt(l.value)} ${l.unit}`,
      l.peer ?? "",
      peer ? `${fmt(peer.value)} ${peer.unit}` : "",
      l.ratio === null ? "" : fmt(l.ratio),
    ]);
  }
  return rows;
}

function fmt(x: number): string {
  if (!Number.isFinite(x)) return String(x);
  const abs = Math.abs(x);
  if (abs >= 1000) return Math.round(x).toLocaleString("en-US");
  if (abs >= 10) return x.toFixed(1);
  return x.toFixed(3);
}

function table(header: string[], rows: string[][], markdown: boolean): string {
  if (markdown) {
    const esc = (s: string) => s.replaceAll("|", "\\|");
    return [header, header.map(() => "---"), ...rows].map((r) => `| ${r.map(esc).join(" | ")} |`).join("\n");
  }
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (r: string[]) => r.map((c, i) => c.padEnd(widths[i] ?? 0)).join("  ");
  return [line(header), line(widths.map((w) => "-".repeat(w))), ...rows.map(line)].join("\n");
}

function machine(): string {
  const cpu = cpus();
  let head = "unknown";
  try {
    head = execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: root, encoding: "utf8" }).trim();
  } catch {
    // not a git checkout: leave it unknown
  }
  return [
    `${cpu.length} × ${cpu[0]?.model ?? "unknown CPU"}`,
    `${Math.round(totalmem() / 2 ** 30)} GiB`,
    `load ${loadavg()
      .map((x) => x.toFixed(2))
      .join(" ")}`,
    `Bun ${Bun.version}`,
    `HEAD ${head}`,
  ].join(", ");
}

/** The outcomes of an earlier run's --out file. */
function readOutcomes(file: string): { machine: string | null; outcomes: Outcome[] } {
  const byName = new Map<string, Outcome>();
  let machineLine: string | null = null;
  for (const text of readFileSync(file, "utf8").split("\n")) {
    if (!text.trim()) continue;
    const row = JSON.parse(text) as Record<string, unknown>;
    if (typeof row.machine === "string") machineLine = row.machine;
    const scenario = SCENARIOS.find((s) => s.name === row.scenario);
    if (!scenario) continue;
    let o = byName.get(scenario.name);
    if (!o) {
      o = { scenario, lines: [], seconds: 0, status: null };
      byName.set(scenario.name, o);
    }
    if (isBenchLine(row)) o.lines.push(row);
    else {
      o.status = typeof row.status === "number" ? row.status : null;
      o.seconds = typeof row.seconds === "number" ? row.seconds : 0;
    }
  }
  return { machine: machineLine ?? `unknown (rendered from ${file})`, outcomes: [...byName.values()] };
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      quick: { type: "boolean", default: process.env.BENCH_QUICK === "1" },
      only: { type: "string" },
      out: { type: "string" },
      markdown: { type: "boolean", default: false },
      from: { type: "string" },
    },
  });
  const wanted = values.only?.split(",").map((s) => s.trim()) ?? SCENARIOS.map((s) => s.name);
  const unknown = wanted.filter((w) => !SCENARIOS.some((s) => s.name === w));
  if (unknown.length > 0) {
    process.stderr.write(`bench: unknown scenario ${unknown.join(", ")}; known: ${SCENARIOS.map((s) => s.name)}\n`);
    return 2;
  }
  const loaded = values.from ? readOutcomes(values.from) : null;
  const before = loaded?.machine ?? machine();
  const outcomes: Outcome[] = loaded?.outcomes ?? [];
  if (values.out) writeFileSync(values.out, `${JSON.stringify({ machine: before })}\n`);
  for (const scenario of values.from ? [] : SCENARIOS.filter((s) => wanted.includes(s.name))) {
    process.stderr.write(`\n== bench ${scenario.name}: ${scenario.command.slice(1).join(" ")}\n`);
    const outcome = await run(scenario, values.quick);
    outcomes.push(outcome);
    // Written as each scenario ends, so a run cut short keeps what it measured (--from renders it).
    if (values.out) {
      const raw = outcome.lines.map((l) => JSON.stringify({ scenario: scenario.name, ...l }));
      raw.push(JSON.stringify({ scenario: scenario.name, status: outcome.status, seconds: outcome.seconds }));
      appendFileSync(values.out, `${raw.join("\n")}\n`);
    }
  }
  const md = values.markdown;
  const out: string[] = [];
  out.push(`Machine: ${before}${values.quick ? " (BENCH_QUICK=1)" : ""}`, "");
  out.push(
    table(
      ["scenario", "what", "goal", "status", "seconds"],
      outcomes.map((o) => [
        o.scenario.name,
        o.scenario.title,
        o.scenario.goal,
        o.status === 0 ? "ran" : `FAILED (exit ${o.status})`,
        o.seconds.toFixed(0),
      ]),
      md,
    ),
    "",
  );
  out.push(
    table(
      ["scenario", "ours", "metric", "value", "peer or ceiling", "peer value", "ratio"],
      outcomes.flatMap(rowsOf),
      md,
    ),
  );
  process.stdout.write(`${out.join("\n")}\n`);
  return outcomes.every((o) => o.status === 0) ? 0 : 1;
}

process.exit(await main());
