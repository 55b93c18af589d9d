import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DuckDbTimeSeries, QuestDbTimeSeries } from "../../adapters/rtdb/index.ts";
import { engineUrl } from "../engines.ts";
import { runPartitionsContract } from "./rtdb-partitions.contract.ts";

runPartitionsContract("DuckDB (embedded)", async () => {
  const dir = mkdtempSync(join(tmpdir(), "cairn-rtdb-parts-"));
  const ts = new DuckDbTimeSeries({ dataDir: dir, threads: 1 });
  return {
    tables: ts.realtime,
    tenant: async () => {
      const t = { tenantId: crypto.randomUUID(), slug: `p-${crypto.randomUUID().slice(0, 8)}` };
      await ts.ensureNamespace(t);
      return t;
    },
    close: async () => {
      await ts.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});

const questdb = engineUrl("questdb");
if (questdb) {
  runPartitionsContract("QuestDB (cluster)", async () => {
    // A scope of its own: nothing another run left on the shared server is visible.
    const ts = new QuestDbTimeSeries({ url: questdb, scope: `p${crypto.randomUUID().slice(0, 8)}` });
    return {
      tables: ts.realtime,
      tenant: async () => {
        const t = { tenantId: crypto.randomUUID(), slug: `p-${crypto.randomUUID().slice(0, 8)}` };
        await ts.ensureNamespace(t);
        return t;
      },
      close: () => ts.close(),
    };
  });
}
