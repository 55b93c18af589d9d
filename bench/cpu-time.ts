/**
 * CPU seconds spent, for benches on a shared machine: wall-clock throughput moves with other
 * people's load, work per CPU second much less, so ingest benches report both
 * (bench/documents-ingest.ts, bench/embeddings.ts).
 */
import { readFileSync } from "node:fs";

/** CPU seconds (user + system) of a child process so far, from /proc (Linux); 0 elsewhere. */
export function childCpuSeconds(pid: number | null): number {
  if (pid === null) return 0;
  try {
    // Fields after the ")" that ends the command name: utime and stime are the 12th and 13th.
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
    return (Number(fields[11]) + Number(fields[12])) / 100; // clock ticks, USER_HZ = 100 on Linux
  } catch {
    return 0;
  }
}

/** CPU seconds of this process so far: every thread, the extraction workers included. */
export function ownCpuSeconds(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
}

/** CPU seconds of several child processes (e.g. an embedder's model processes). */
export function childrenCpuSeconds(pids: readonly (number | null)[]): number {
  return pids.reduce((a: number, p) => a + childCpuSeconds(p), 0);
}
