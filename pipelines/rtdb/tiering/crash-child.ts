/**
 * Child process of the tiering crash test (rtdb-tiering-crash.test.ts): runs the tiering
 * pipeline on a prepared data directory and, the n-th time it reaches the named stage,
 * reports it on stdout and waits there to be killed (SIGKILL: no cleanup runs).
 * With CAIRN_TIER_STAGE=none it runs straight through (the parent kills it at a random time).
 *   CAIRN_TIER_DIR  data directory   CAIRN_TIER_STAGE  a TIERING_STAGES entry, or none
 *   CAIRN_TIER_NTH  which occurrence CAIRN_TIER_NOW    the tiering clock (ISO)
 *   CAIRN_TIER_CLAIM_MS  claim lease
 */

import { openTieringEnv } from "../../../test/fixtures/rtdb-tiering.ts";
import { runTiering, TIERING_STAGES, type TieringStage } from "./pipeline.ts";

const dir = process.env.CAIRN_TIER_DIR ?? "";
const stage = process.env.CAIRN_TIER_STAGE as TieringStage | "none";
const nth = Number(process.env.CAIRN_TIER_NTH ?? "1");
if (!dir || (stage !== "none" && !TIERING_STAGES.includes(stage))) {
  throw new Error("CAIRN_TIER_DIR and CAIRN_TIER_STAGE are required");
}

const env = await openTieringEnv(dir);
process.stdout.write(`${JSON.stringify({ started: true })}\n`);
let seen = 0;
await runTiering(
  env.deps({
    now: () => new Date(process.env.CAIRN_TIER_NOW ?? ""),
    claimMs: Number(process.env.CAIRN_TIER_CLAIM_MS ?? "1000"),
    onStage: async (s, key) => {
      if (s !== stage || ++seen < nth) return;
      process.stdout.write(`${JSON.stringify({ stage: s, ...key })}\n`);
      // Parked until the parent kills this process (the timer keeps the event loop alive).
      await new Promise(() => setInterval(() => {}, 60_000));
    },
  }),
);
process.stdout.write(`${JSON.stringify({ finished: true })}\n`);
await env.close();
