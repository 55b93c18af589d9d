/**
 * The shared real-data folder (../shared/data beside the repository, or CAIRN_SHARED_DATA).
 * Suites that read it fail under CI when it is missing, and are skipped locally with a note,
 * like the engine suites (test/engines.ts).
 */
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";

export function sharedData(sub: string, suite: string): string | undefined {
  const root = process.env.CAIRN_SHARED_DATA ?? resolve(import.meta.dir, "..", "..", "shared", "data");
  const dir = join(root, sub);
  if (existsSync(dir)) return dir;
  if (process.env.CI) throw new Error(`${dir} is missing: the ${suite} suites need the shared data under CI`);
  process.stderr.write(`[skip] ${suite}: ${dir} is missing (set CAIRN_SHARED_DATA)\n`);
  return undefined;
}
