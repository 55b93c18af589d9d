import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DuckDbTimeSeries, QuestDbTimeSeries } from "../../adapters/rtdb/index.ts";
import { engineUrl } from "../engines.ts";
import { runRealtimeTablesContract } from "./rtdb.contract.ts";

runRealtimeTablesContract("embedded (DuckDB)", async () => {
  const dir = mkdtempSync(join(tmpdir(), "cairn-rtdb-duck-"));
  const ts = new DuckDbTimeSeries({ dataDir: dir, threads: 1 });
  return {
    ns: ts,
    tables: ts.realtime,
    close: async () => {
      await ts.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});

const questdb = engineUrl("questdb");
if (questdb) {
  runRealtimeTablesContract("cluster (QuestDB)", async () => {
    // A scope of its own: nothing another run left on the shared server is visible.
    const ts = new QuestDbTimeSeries({ url: questdb, scope: `c${crypto.randomUUID().slice(0, 8)}` });
    return { ns: ts, tables: ts.realtime, close: () => ts.close() };
  });
}
