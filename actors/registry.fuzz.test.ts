/**
 * Seeded fuzz for the registry: a PRNG interleaves gets, explicit and idle unloads, clock
 * jumps, busy flags, and the order in which creations, destroys and beforeUnload hooks
 * finish (each is a gate the schedule opens). Invariants are checked at every step; a
 * failure names its seed, and CAIRN_FUZZ_SEED replays the whole run.
 */
import { expect, test } from "bun:test";
import { AppError } from "../domain/errors.ts";
import { fuzzSeed, type Prng, prng } from "../test/prng.ts";
import { Registry, type UnloadReason } from "./registry.ts";

interface Val {
  key: string;
  id: number;
  busy: boolean;
  destroyedAtStep: number | undefined;
}

interface Gate {
  label: string;
  open(ok: boolean): void;
}

const KEYS = ["a", "b", "c", "d"];
const IDLE_MS = 1_000_000; // fake-clock units; the real timers this arms never fire during a run
const MAX_SIZE = 3;

const tick = () => new Promise<void>((r) => setImmediate(r));

async function runOne(seed: number, steps: number): Promise<void> {
  const r: Prng = prng(seed);
  const fail = (step: number, why: string): never => {
    throw new Error(`registry fuzz seed=${seed} step=${step}: ${why}`);
  };
  let step = 0;
  let clock = 0;
  let nextId = 0;
  const gates: Gate[] = [];
  const creating = new Map<string, number>(); // key -> creations in flight
  const live = new Map<string, Val>(); // key -> created and not yet fully destroyed
  const all: Val[] = [];
  const lastUse = new Map<string, number>();
  const destroyCount = new Map<number, number>();
  const failures: string[] = [];

  const gate = (label: string): Promise<boolean> => new Promise((resolve) => gates.push({ label, open: resolve }));

  const reg = new Registry<string, Val>({
    name: "fuzz",
    maxSize: MAX_SIZE,
    idleMs: IDLE_MS,
    now: () => clock,
    isIdle: (v) => !v.busy,
    create: async (key) => {
      if ((creating.get(key) ?? 0) > 0) fail(step, `second concurrent creation of ${key}`);
      if (live.has(key)) fail(step, `creating ${key} while value ${live.get(key)?.id} is not yet destroyed`);
      creating.set(key, 1);
      const ok = await gate(`create ${key}`);
      creating.set(key, 0);
      if (!ok) throw new Error(`injected creation failure for ${key}`);
      const v: Val = { key, id: ++nextId, busy: false, destroyedAtStep: undefined };
      live.set(key, v);
      all.push(v);
      return v;
    },
    destroy: async (key, v, reason: UnloadReason) => {
      destroyCount.set(v.id, (destroyCount.get(v.id) ?? 0) + 1);
      if ((destroyCount.get(v.id) ?? 0) > 1) fail(step, `value ${v.id} destroyed twice`);
      if ((reason === "idle" || reason === "evicted") && v.busy) fail(step, `busy value ${v.id} unloaded (${reason})`);
      if (reason === "idle" && clock - (lastUse.get(key) ?? 0) < IDLE_MS)
        fail(step, `value ${v.id} unloaded while used`);
      v.destroyedAtStep = step;
      await gate(`destroy ${key}#${v.id}`);
      if (live.get(key) === v) live.delete(key);
    },
    beforeUnload: async (key) => {
      const ok = await gate(`beforeUnload ${key}`);
      if (!ok) throw new Error("injected beforeUnload failure");
    },
    onError: (e) => {
      // Invariant failures thrown inside destroy arrive here.
      if (e.phase === "destroy") failures.push(`destroy of ${e.key} failed: ${String(e.error)}`);
    },
  });

  const doGet = (key: string): void => {
    const startedAt = step;
    lastUse.set(key, clock);
    reg.get(key).then(
      (v) => {
        if (v.key !== key) failures.push(`get(${key}) returned a value for ${v.key}`);
        // A value whose teardown began before this get started must never be handed out.
        if (v.destroyedAtStep !== undefined && v.destroyedAtStep < startedAt) {
          failures.push(`get(${key}) at step ${startedAt} got value ${v.id} destroyed at step ${v.destroyedAtStep}`);
        }
        lastUse.set(key, clock);
      },
      (e: unknown) => {
        const expected = e instanceof AppError || (e instanceof Error && e.message.startsWith("injected"));
        if (!expected) failures.push(`get(${key}) failed unexpectedly: ${String(e)}`);
      },
    );
  };

  for (step = 0; step < steps; step++) {
    const roll = r.int(100);
    if (roll < 30) doGet(r.pick(KEYS));
    else if (roll < 40) void reg.unload(r.pick(KEYS));
    else if (roll < 48) clock += r.int(2 * IDLE_MS);
    else if (roll < 56) void reg.unloadIdle();
    else if (roll < 64) {
      const v = live.get(r.pick(KEYS));
      if (v) v.busy = !v.busy;
    } else if (gates.length > 0) {
      const g = gates.splice(r.int(gates.length), 1)[0];
      g?.open(r.bool(0.85));
    }
    await tick();
    if (reg.size > MAX_SIZE) fail(step, `size ${reg.size} > ${MAX_SIZE}`);
    if (failures.length > 0) fail(step, failures.join("; "));
  }

  // Wind down: close, opening every gate (successfully) until everything has settled.
  const closed = reg.close();
  let done = false;
  void closed.then(() => {
    done = true;
  });
  for (let guard = 0; !done; guard++) {
    if (guard > 10_000) fail(step, `close did not finish; open gates: ${gates.map((g) => g.label).join(", ")}`);
    gates.splice(0).forEach((g) => {
      g.open(true);
    });
    await tick();
  }
  if (failures.length > 0) fail(step, failures.join("; "));
  if (reg.size !== 0) fail(step, `size ${reg.size} after close`);
  if (live.size !== 0) fail(step, `values never destroyed: ${[...live.values()].map((v) => v.id).join(", ")}`);
  for (const v of all) {
    if (destroyCount.get(v.id) !== 1) fail(step, `value ${v.id} destroyed ${destroyCount.get(v.id) ?? 0} times`);
  }
}

test("registry: single-flight, unload and close hold under seeded interleavings", async () => {
  const base = fuzzSeed("registry lifecycle");
  const runs = Number(process.env.CAIRN_FUZZ_RUNS ?? 150);
  for (let i = 0; i < runs; i++) await runOne((base + i) >>> 0, 250);
  expect(runs).toBeGreaterThan(0);
});
