/** `seed`: the demo tenant and users (idempotent), with the engine namespaces provisioning makes and the company graph. */
import { join } from "node:path";
import { openDocumentIndex, openGraph, openTimeSeries } from "../composition/cli.ts";
import { companyGraphDir, loadCompanyGraph } from "../pipelines/foundry/graph/load.ts";
import type { Command } from "./context.ts";
import { printJson } from "./context.ts";
import { seedDemo } from "./demo-seed.ts";

export const seed: Command = async ({ config, store }) => {
  const demo = await seedDemo(store);
  // The demo tenant is created active, so give it the engine namespaces provisioning
  // would have made: without them uploads, real-time tables and the graph answer 503.
  const ref = { tenantId: demo.tenant_id, slug: demo.slug };
  for (const engine of [openDocumentIndex(config), openTimeSeries(config), openGraph(config)]) {
    try {
      await engine.ensureNamespace(ref);
    } finally {
      await engine.close();
    }
  }
  // The company graph from real filings (../shared/data/graph, else the repository's fixture
  // copy), so graph features and graph questions work right after the run command. Idempotent.
  const graph = openGraph(config);
  try {
    await loadCompanyGraph(graph, ref, companyGraphDir(join(import.meta.dir, "..")));
  } finally {
    await graph.close();
  }
  printJson(demo);
};
