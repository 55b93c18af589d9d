/**
 * The NamespacePort contract (test/contracts/namespaces.contract.ts) on QuestDB. Each test
 * gets a fresh data directory; its hash scopes the adapter, so "a fresh store holds no
 * namespaces" holds on the shared server and reopening the same directory finds the same
 * namespaces. Every table a scope created is dropped at the end.
 */
import { afterAll } from "bun:test";
import { createHash } from "node:crypto";
import { QuestDbTimeSeries } from "../../adapters/rtdb/index.ts";
import { QuestDbHttp } from "../../adapters/rtdb/questdb-http.ts";
import { engineUrl } from "../engines.ts";
import { runNamespaceContract } from "./namespaces.contract.ts";

const url = engineUrl("questdb");
if (url) {
  const scopes = new Set<string>();
  runNamespaceContract("time-series (QuestDB)", (dataDir) => {
    const scope = `n${createHash("sha256").update(dataDir).digest("hex").slice(0, 10)}`;
    scopes.add(scope);
    return new QuestDbTimeSeries({ url, scope });
  });
  afterAll(async () => {
    const http = new QuestDbHttp({ url });
    for (const scope of scopes) {
      const rows = await http.rows(`SELECT table_name FROM tables() WHERE table_name ~ '^${scope}_'`);
      for (const r of rows) await http.exec(`DROP TABLE IF EXISTS "${String(r.table_name)}"`);
    }
  });
}
