/**
 * Crash safety of tiering: a real child process runs the pipeline and is killed with
 * SIGKILL at each stage (on its 3rd partition); the state it leaves is checked (hot rows
 * dropped only after the copy is recorded as verified), then a rerun in this process must
 * finish with every old partition in exactly one Parquet file, whole, and nothing else.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { cpSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type PartitionInfo, TIERING_AGE_MS } from "../../../domain/rtdb/index.ts";
import { lakehouseNamespace, type TenantRef } from "../../../domain/tenants/namespaces.ts";
import {
  addTenant,
  type Bar,
  loadBars,
  openTieringEnv,
  readIntradayBars,
  type TieringEnv,
} from "../../../test/fixtures/rtdb-tiering.ts";
import { prng } from "../../../test/prng.ts";
import { sharedData } from "../../../test/shared-data.ts";
import { runTiering, TIERING_STAGES, type TieringOutcome, type TieringStage } from "./pipeline.ts";

const market = sharedData("market", "rtdb tiering crash");
const d = market ? describe : describe.skip;

const NOW = new Date("2006-02-05T00:00:00Z");
const CLAIM_MS = 1_000;
const NTH = 3;
const FULL = { from: "2006-01-01T00:00:00Z", to: "2006-03-01T00:00:00Z" };
const CHILD = join(import.meta.dir, "../../../test/fixtures/rtdb-tiering-crash-child.ts");

let base: string;
let tenant: TenantRef;
let bars: Bar[];
let before: PartitionInfo[];
const dirs: string[] = [];

function spawnChild(dir: string, stage: TieringStage | "none") {
  return Bun.spawn([process.execPath, CHILD], {
    env: {
      ...process.env,
      CAIRN_TIER_DIR: dir,
      CAIRN_TIER_STAGE: stage,
      CAIRN_TIER_NTH: String(NTH),
      CAIRN_TIER_NOW: NOW.toISOString(),
      CAIRN_TIER_CLAIM_MS: String(CLAIM_MS),
    },
    stdout: "pipe",
    stderr: "inherit",
  });
}

/** JSON lines from a child's stdout, one per next(); null at the end. */
function lineReader(stream: ReadableStream<Uint8Array>) {
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  let buf = "";
  return {
    async next(): Promise<unknown> {
      while (!buf.includes("\n")) {
        const { value, done } = await reader.read();
        if (done) return null;
        buf += decoder.decode(value);
      }
      const at = buf.indexOf("\n");
      const line = buf.slice(0, at);
      buf = buf.slice(at + 1);
      return JSON.parse(line);
    },
  };
}

/** Runs the child until it reports the stage, then kills it; returns the part it was on. */
async function killAt(dir: string, stage: TieringStage): Promise<{ partition: string; part: number }> {
  const child = spawnChild(dir, stage);
  const lines = lineReader(child.stdout);
  expect(await lines.next()).toEqual({ started: true });
  const report = (await lines.next()) as { stage?: string; partition: string; part: number } | null;
  child.kill("SIGKILL");
  await child.exited;
  expect(child.signalCode).toBe("SIGKILL");
  expect(report?.stage).toBe(stage);
  return report as { partition: string; part: number };
}

const oldPartitions = () => before.filter((p) => Date.parse(p.to) < NOW.getTime() - TIERING_AGE_MS);

/** After the rerun: every old partition in exactly one whole file, tiered; young ones hot; each row once. */
async function expectCompleted(env: TieringEnv, out: TieringOutcome): Promise<void> {
  const old = oldPartitions();
  expect(out.failures).toEqual([]);
  const ns = lakehouseNamespace(tenant.slug);
  expect(await env.objects.list(`${ns}/`)).toEqual(old.map((p) => `${ns}/rtdb/bars/${p.partition}/part-0.parquet`));
  for (const p of old) {
    const read = await env.parquet.inspect(
      await env.objects.localPath(`${ns}/rtdb/bars/${p.partition}/part-0.parquet`),
      "ts",
    );
    expect([p.partition, read.rows]).toEqual([p.partition, p.rows]);
  }
  expect((await env.state.parts(tenant.tenantId, "bars")).map((p) => [p.partition, p.part, p.state])).toEqual(
    old.map((p) => [p.partition, 0, "tiered"]),
  );
  expect(await env.ts.realtime.partitions(tenant, "bars")).toEqual(before.filter((p) => !old.includes(p)));
  // Every original row exactly once, across hot and tiered.
  const rows = (await env.reader.read(tenant, "bars", FULL)).rows;
  expect(rows.map((r) => r[6])).toEqual(bars.map((b) => b.ts));
  expect(rows.map((r) => r[4])).toEqual(bars.map((b) => b.close));
  // The killed run's staging file (if any) is swept.
  expect(readdirSync(env.stagingDir)).toEqual([]);
}

d("tiering survives SIGKILL at every stage", () => {
  beforeAll(async () => {
    base = mkdtempSync(join(tmpdir(), "cairn-tier-crash-"));
    const env = await openTieringEnv(base);
    tenant = await addTenant(env, `crash-${crypto.randomUUID().slice(0, 6)}`);
    bars = readIntradayBars(join(market as string, "intraday", "index_2006_5min.csv"));
    await loadBars(env.ts.realtime, tenant, "IDX", bars);
    before = await env.ts.realtime.partitions(tenant, "bars");
    await env.close();
  });
  afterAll(() => {
    for (const dir of [base, ...dirs]) rmSync(dir, { recursive: true, force: true });
  });

  for (const stage of TIERING_STAGES) {
    test(`killed at '${stage}', then rerun: every old partition in one whole file, hot rows dropped once`, async () => {
      const dir = mkdtempSync(join(tmpdir(), "cairn-tier-crash-"));
      dirs.push(dir);
      cpSync(base, dir, { recursive: true });
      const old = oldPartitions();
      expect(old.length).toBeGreaterThan(NTH);

      const killed = await killAt(dir, stage);
      expect(killed.partition).toBe(old[NTH - 1]?.partition as string);
      const env = await openTieringEnv(dir);
      try {
        // What the kill left: the partitions before it are tiered; the killed one keeps its hot
        // rows unless the copy was recorded as verified first.
        const parts = await env.state.parts(tenant.tenantId, "bars");
        expect(parts.slice(0, NTH - 1).map((p) => p.state)).toEqual(Array(NTH - 1).fill("tiered"));
        const cur = parts.find((p) => p.partition === killed.partition);
        const hot = (await env.ts.realtime.partitions(tenant, "bars")).find((p) => p.partition === killed.partition);
        const original = old[NTH - 1] as PartitionInfo;
        if (stage === "dropped") {
          expect(cur?.state).toBe("exported");
          expect(hot).toBeUndefined();
        } else {
          expect(cur?.state).toBe(stage === "recorded" ? "exported" : "pending");
          expect(hot?.rows).toBe(original.rows);
        }

        await Bun.sleep(CLAIM_MS + 200); // the dead run's claim runs out
        const out = await runTiering(env.deps({ now: () => NOW, claimMs: CLAIM_MS }));
        expect(out.parts_tiered).toBe(old.length - (NTH - 1));
        await expectCompleted(env, out);
      } finally {
        await env.close();
      }
    });
  }

  // Kills at arbitrary moments too: inside COPY, DELETE, a state write or a rename.
  const seed = Number(process.env.CAIRN_FUZZ_SEED ?? Date.now() % 1_000_000);
  test(`killed at seeded random moments (seed ${seed}), then rerun: the same end state`, async () => {
    const rnd = prng(seed);
    process.stderr.write(`[tiering crash fuzz] seed ${seed} (CAIRN_FUZZ_SEED replays)\n`);
    for (let round = 0; round < 3; round++) {
      const dir = mkdtempSync(join(tmpdir(), "cairn-tier-crash-"));
      dirs.push(dir);
      cpSync(base, dir, { recursive: true });
      const child = spawnChild(dir, "none");
      const lines = lineReader(child.stdout);
      expect(await lines.next()).toEqual({ started: true });
      // A whole run here takes about a second; most kills land mid-run.
      await Bun.sleep(rnd.int(1200));
      child.kill("SIGKILL");
      await child.exited;
      const env = await openTieringEnv(dir);
      try {
        await Bun.sleep(CLAIM_MS + 200);
        await expectCompleted(env, await runTiering(env.deps({ now: () => NOW, claimMs: CLAIM_MS })));
      } finally {
        await env.close();
      }
    }
  });
});
