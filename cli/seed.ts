/** `seed`: the demo tenant and users (idempotent), with the engine namespaces provisioning makes. */
import { openDocumentIndex, openGraph, openTimeSeries } from "../composition/cli.ts";
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
  printJson(demo);
};
