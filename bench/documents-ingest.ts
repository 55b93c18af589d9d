/**
 * Document ingest throughput end to end, to searchable (issue 20): every real document under
 * ../shared/data/documents (or test/fixtures/documents) uploaded through DocumentService.upload,
 * the service's own path (Extractor worker pool -> chunkDocument -> the local 768-d embedder ->
 * SqliteDocumentIndex.putDocument; upload() answers once the chunks are committed, so a
 * document counts when it is searchable), `CAIRN_UPLOAD_CONCURRENCY` uploads at a time as the
 * upload gate admits them.
 *
 *   node_modules/.bin/bun bench/documents-ingest.ts      (BENCH_QUICK=1: a quarter of the files)
 *
 * Reported (bench/runner.ts JSON lines):
 * - pages/s end to end, pages/s per core of the machine and per core actually used (CPU seconds
 *   of this process, its extraction threads and the model processes, over the wall time), and
 *   those CPU seconds split: model processes (cpu-models) and the rest (cpu-service);
 * - seconds in each stage (parse, chunk, embed, index), summed over documents (stages of
 *   different documents overlap, so the sum can exceed the wall time);
 * - peers, same run: the service as it was before issue 20 (fp32 weights in one process,
 *   each batch of texts in one model run padded to its longest, one upload at a time:
 *   BENCH_INGEST_BASELINE=0 skips it), and the ceilings of our own
 *   stages alone (extraction only; embedding only). Named reference, not run: Docling on CPU,
 *   0.6-1.3 pages/s as its authors publish it; it needs its layout and table models from
 *   Hugging Face, which this machine cannot reach (docs/documents.md);
 * - the mix alone (the PDF and DOCX files; XLSX is not an upload format): pages per core
 *   used against the goal of 5, beside the embedding stage's own pages per CPU second on the
 *   same chunks (the bound the two 384-d models set).
 *
 * Timings on a shared machine move with its load; the first lines record cores and load.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { SqliteDocumentIndex } from "../adapters/docindex/sqlite.ts";
import { OnnxEmbedder, type Precision } from "../adapters/embeddings/index.ts";
import { EMBEDDING_MODELS } from "../adapters/embeddings/models.ts";
import { Extractor } from "../adapters/extract/index.ts";
import { loadConfig } from "../config.ts";
import { canSee } from "../domain/documents/acl.ts";
import { chunkDocument } from "../domain/documents/chunking.ts";
import type { BarrierStore } from "../domain/documents/ports.ts";
import { DocumentService } from "../domain/documents/service.ts";
import { UploadGate } from "../domain/documents/upload-gate.ts";
import type { FinancialsReader } from "../domain/financials/ports.ts";
import { childrenCpuSeconds, ownCpuSeconds } from "./cpu-time.ts";
import { emit, emitPair, QUICK, round } from "./runner.ts";

const CORES = cpus().length;
const config = loadConfig();
if (config.embeddings.kind !== "onnx") throw new Error("bench/documents-ingest measures the local models");
const emb = config.embeddings;

function files(dir: string): string[] {
  try {
    return readdirSync(dir, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile() && e.name !== "README.md")
      .map((e) => join(e.parentPath, e.name))
      .sort();
  } catch {
    return [];
  }
}
const docsRoot = process.env.CAIRN_SHARED_DATA
  ? join(process.env.CAIRN_SHARED_DATA, "documents")
  : resolve(import.meta.dir, "../../shared/data/documents");
let paths = files(docsRoot);
if (!paths.length) paths = files(resolve(import.meta.dir, "../test/fixtures/documents"));
if (QUICK) paths = paths.filter((_, i) => i % 4 === 0);
type Upload = { filename: string; mimeType: string; bytes: Buffer };
const uploads: Upload[] = paths.map((p) => ({
  filename: p,
  mimeType: "application/octet-stream",
  bytes: readFileSync(p),
}));
// The mix: PDF and DOCX (XLSX is not a document upload format, spec §4.6). The run over
// every format adds images and scans, where Tesseract's OCR is most of the time.
const mix = uploads.filter((u) => /\.(pdf|docx)$/i.test(u.filename));

const note = (bench: string, metric: string, value: number, unit: string) =>
  emit({ bench, metric, value: round(value, 3), unit, peer: null, ratio: null });
note("documents-ingest/machine", "cpus", CORES, "cores");
note("documents-ingest/machine", "load1", loadavg()[0] ?? 0, "load");

// Upload never reads barriers (no barrier_id) or financials; these fail loudly if it ever does.
const unused = new Proxy({}, { get: (_, k) => () => Promise.reject(new Error(`bench: unexpected call ${String(k)}`)) });

interface Setup {
  label: string;
  precision: Precision;
  processes: number;
  threads: number;
  uploadsAtOnce: number;
  /** Padded tokens per model run; Infinity = each batch in one run (the service before issue 20). */
  paddedTokensPerRun?: number;
}
interface Result {
  pages: number;
  chunks: number;
  docs: number;
  wallS: number;
  cpuS: number;
  /** Of cpuS: the model processes' share (the rest is this process: service and extraction threads). */
  modelCpuS: number;
  stages: Record<"parse" | "chunk" | "embed" | "index", number>;
  texts: string[];
}

/** Wall seconds since the call, on the monotonic clock: every timing of this bench reads one. */
function stopwatch(): () => number {
  const t0 = performance.now();
  return () => (performance.now() - t0) / 1000;
}

/** The configured model set in the setup's pool (the subject's, the baseline's). */
function startEmbedder(s: Setup): Promise<OnnxEmbedder> {
  return OnnxEmbedder.create({
    modelsDir: emb.modelsDir,
    components: EMBEDDING_MODELS[emb.model],
    name: emb.model,
    precision: s.precision,
    processes: s.processes,
    threads: s.threads,
    batchSize: emb.batchSize,
    ...(s.paddedTokensPerRun ? { paddedTokensPerRun: s.paddedTokensPerRun } : {}),
  });
}

/**
 * One small OCR job per extraction worker, all at once (the pool gives each to an idle worker):
 * a worker starts Tesseract (WebAssembly and the English model: ~0.5 CPU s) on its first image
 * and keeps it for its life, so a long-running service pays that once per worker, not per
 * page. Without this the run's first scanned page carried it.
 */
const WARM_IMAGE = readFileSync(
  resolve(import.meta.dir, "../test/fixtures/documents/table_multi_row_column_cells.png"),
);
async function warmUp(extractor: Extractor, workers: number): Promise<void> {
  await Promise.all(
    Array.from({ length: workers }, () => extractor.extract({ filename: "warm.png", bytes: WARM_IMAGE })),
  );
}

async function ingest(s: Setup, files: Upload[] = uploads): Promise<Result> {
  const embedder = await startEmbedder(s);
  const workers = Math.max(config.extraction.concurrency, s.uploadsAtOnce);
  const extractor = new Extractor({ concurrency: workers });
  const dataDir = mkdtempSync(join(tmpdir(), "cairn-bench-ingest-"));
  const index = new SqliteDocumentIndex({ dataDir, searchThreads: 1 });
  const tenant = { tenantId: crypto.randomUUID(), slug: "bench-ingest" };
  await index.ensureNamespace(tenant);
  const stages = { parse: 0, chunk: 0, embed: 0, index: 0 };
  const timed = async <T>(stage: keyof typeof stages, fn: () => Promise<T> | T): Promise<T> => {
    const elapsed = stopwatch();
    try {
      return await fn();
    } finally {
      stages[stage] += elapsed(); // a refused file's parse counts too
    }
  };
  let pages = 0;
  const texts: string[] = [];
  const service = new DocumentService({
    // The index itself, with putDocument timed.
    index: new Proxy(index, {
      get: (target, k) => {
        if (k === "putDocument")
          return (...a: Parameters<SqliteDocumentIndex["putDocument"]>) =>
            timed("index", () => target.putDocument(...a));
        const v = Reflect.get(target, k, target);
        return typeof v === "function" ? v.bind(target) : v;
      },
    }),
    embedder: {
      dim: embedder.dim,
      model: embedder.model,
      embed: (batch, kind) => timed("embed", () => embedder.embed(batch, kind)),
      close: () => embedder.close(),
    },
    extract: (file) =>
      timed("parse", async () => {
        const doc = await extractor.extract({ filename: file.filename, bytes: file.bytes });
        pages += doc.pages;
        return doc;
      }),
    chunk: (doc) =>
      timed("chunk", () => {
        const chunks = chunkDocument(doc);
        texts.push(...chunks.map((c) => c.text));
        return chunks;
      }),
    barriers: unused as BarrierStore,
    llm: null,
    financials: unused as FinancialsReader,
    gate: new UploadGate({
      concurrency: s.uploadsAtOnce,
      maxQueued: 1_000,
      // Every file is queued at once: on a loaded machine the last waits far past the default.
      maxWaitMs: 86_400_000,
      perKey: { running: s.uploadsAtOnce, queued: 1_000 },
    }),
    permits: canSee,
  });
  // Warm-up outside the clock: each worker's first parse and OCR, and the models' first run.
  await warmUp(extractor, workers);
  await embedder.embed(["warm up"], "passage");
  const own0 = ownCpuSeconds();
  const models0 = childrenCpuSeconds(embedder.pids);
  const elapsed = stopwatch();
  let chunks = 0;
  let docs = 0;
  await Promise.all(
    files.map(async (file) => {
      // As the upload route does: a slot of the gate, keyed by the tenant, then the upload.
      const release = await service.gate.acquire(tenant.tenantId);
      const done = await service
        .upload({
          tenant,
          uploadedBy: "1",
          file,
          docType: "other",
          entityId: null,
          acl: { visibility: "tenant_wide", allowed_identity_ids: [], allowed_roles: [], barrier_id: null },
        })
        .catch(() => null) // a sample the service refuses (422) is not part of the throughput
        .finally(release);
      if (done) {
        chunks += done.chunks;
        docs++;
      }
    }),
  );
  const wallS = elapsed();
  const modelCpuS = childrenCpuSeconds(embedder.pids) - models0;
  const cpuS = ownCpuSeconds() - own0 + modelCpuS;
  await Promise.all([embedder.close(), extractor.close()]);
  await index.close?.();
  rmSync(dataDir, { recursive: true, force: true });
  return { pages, chunks, docs, wallS, cpuS, modelCpuS, stages, texts };
}

/** Ceiling: the extraction stage alone over the same files, as many at once as the subject's uploads. */
async function extractionOnly(atOnce: number): Promise<{ pages: number; wallS: number }> {
  const workers = Math.max(config.extraction.concurrency, atOnce);
  const extractor = new Extractor({ concurrency: workers });
  await warmUp(extractor, workers);
  let pages = 0;
  const elapsed = stopwatch();
  await Promise.all(
    uploads.map((f) =>
      extractor
        .extract({ filename: f.filename, bytes: f.bytes })
        .then((d) => {
          pages += d.pages;
        })
        .catch(() => {}),
    ),
  );
  const wallS = elapsed();
  await extractor.close();
  return { pages, wallS };
}

/** Ceiling: the embedding stage alone, every chunk of the run in one call to the subject's pool. */
async function embeddingOnly(s: Setup, texts: string[]): Promise<{ wallS: number; cpuS: number }> {
  const e = await startEmbedder(s);
  await e.embed(["warm up"], "passage");
  const cpu0 = childrenCpuSeconds(e.pids);
  const elapsed = stopwatch();
  await e.embed(texts, "passage");
  const wallS = elapsed();
  const cpuS = childrenCpuSeconds(e.pids) - cpu0;
  await e.close();
  return { wallS, cpuS };
}

const subject: Setup = {
  label: `documents-ingest/service-${emb.precision}-${emb.processes}x${emb.threads}-uploads${Math.max(1, config.uploads.concurrency - 1)}`,
  precision: emb.precision,
  processes: emb.processes,
  threads: emb.threads,
  // One tenant's uploads, as many at once as the gate lets a tenant run (upload-gate.ts).
  uploadsAtOnce: Math.max(1, config.uploads.concurrency - 1),
};
const baseline: Setup = {
  label: `documents-ingest/before-issue-20-fp32-1x${CORES}-uploads1`,
  precision: "fp32",
  processes: 1,
  threads: CORES,
  uploadsAtOnce: 1,
  paddedTokensPerRun: Number.POSITIVE_INFINITY,
};

const runBaseline = process.env.BENCH_INGEST_BASELINE !== "0";
const base = runBaseline ? await ingest(baseline) : null;
const ours = await ingest(subject);
const ext = await extractionOnly(subject.uploadsAtOnce);
const embS = (await embeddingOnly(subject, ours.texts)).wallS;
const ourMix = mix.length > 0 ? await ingest(subject, mix) : null;
const embMix = ourMix ? await embeddingOnly(subject, ourMix.texts) : null;

note("documents-ingest/corpus", "documents", ours.docs, "docs");
note("documents-ingest/corpus", "pages", ours.pages, "pages");
note("documents-ingest/corpus", "chunks", ours.chunks, "chunks");
const rate = (r: Result) => r.pages / r.wallS;
for (const [setup, r] of [
  [baseline, base],
  [subject, ours],
] as const) {
  if (!r) continue;
  note(setup.label, "wall_seconds", r.wallS, "s");
  note(setup.label, "cores_used", r.cpuS / r.wallS, "cores");
  note(`${setup.label}/cpu-models`, "seconds", r.modelCpuS, "s");
  note(`${setup.label}/cpu-service`, "seconds", r.cpuS - r.modelCpuS, "s");
  if (!base) note(setup.label, "pages_per_second_per_core_used", r.pages / r.cpuS, "pages/s/core");
  note(setup.label, "pages_per_second_per_machine_core", rate(r) / CORES, "pages/s/core");
  for (const [stage, sec] of Object.entries(r.stages)) note(`${setup.label}/${stage}`, "seconds", sec, "s");
}
if (base) {
  emitPair(
    { bench: subject.label, value: rate(ours) },
    { bench: baseline.label, value: rate(base) },
    "pages_per_second",
    "pages/s",
  );
  // The figure that holds still on a shared machine: pages per CPU second spent.
  emitPair(
    { bench: subject.label, value: ours.pages / ours.cpuS },
    { bench: baseline.label, value: base.pages / base.cpuS },
    "pages_per_second_per_core_used",
    "pages/s/core",
  );
}
emitPair(
  { bench: subject.label, value: rate(ours) },
  { bench: "documents-ingest/ceiling-extraction-only", value: ext.pages / ext.wallS },
  "pages_per_second",
  "pages/s",
);
emitPair(
  { bench: subject.label, value: rate(ours) },
  { bench: "documents-ingest/ceiling-embedding-only", value: ours.pages / embS },
  "pages_per_second",
  "pages/s",
);
// Not run here (its models come from Hugging Face): the upper end of Docling's published CPU range.
emitPair(
  { bench: subject.label, value: rate(ours) },
  { bench: "documents-ingest/docling-cpu-published-upper", value: 1.3 },
  "pages_per_second",
  "pages/s",
);

// The mix (PDF and DOCX) against its goal of 5 pages/s per core, with the embedding
// stage's own bound on the same chunks beside it (pages per CPU second of the model processes).
if (ourMix && embMix) {
  const label = `${subject.label}-pdf-docx`;
  note("documents-ingest/corpus-pdf-docx", "pages", ourMix.pages, "pages");
  note("documents-ingest/corpus-pdf-docx", "chunks", ourMix.chunks, "chunks");
  note(label, "pages_per_second", rate(ourMix), "pages/s");
  note(label, "cores_used", ourMix.cpuS / ourMix.wallS, "cores");
  note(`${label}/cpu-models`, "seconds", ourMix.modelCpuS, "s");
  note(`${label}/cpu-service`, "seconds", ourMix.cpuS - ourMix.modelCpuS, "s");
  for (const [stage, sec] of Object.entries(ourMix.stages)) note(`${label}/${stage}`, "seconds", sec, "s");
  emitPair(
    { bench: label, value: ourMix.pages / ourMix.cpuS },
    { bench: "documents-ingest/goal-per-core", value: 5 },
    "pages_per_second_per_core_used",
    "pages/s/core",
  );
  emitPair(
    { bench: label, value: ourMix.pages / ourMix.cpuS },
    { bench: "documents-ingest/ceiling-embedding-only-pdf-docx", value: ourMix.pages / embMix.cpuS },
    "pages_per_second_per_core_used",
    "pages/s/core",
  );
}
