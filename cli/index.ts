/**
 * Operator CLI (README "Operator interface"), one file per command beside this one, wired
 * by the same composition functions as the service (composition/cli.ts):
 *   bun run cli seed                                   idempotent demo tenant and users
 *   bun run cli token --email E [--tier free|pro|enterprise] [--tenant SLUG] [--role ROLE]
 *                                                      prints a JWT (creates the user if needed; default
 *                                                      tenant: demo; an unknown slug or role is an error)
 *   bun run cli apikey --email E [--label L] [--tenant SLUG] [--role ROLE]   prints a new API key
 *   bun run cli admin-key                              prints the admin-consumer key
 *   bun run cli demo-key                               prints the demo user's "demo" key (the same on every
 *                                                      start: kept in the data directory, mode 0600)
 *   bun run cli ingest-sec --dir PATH [--market-dir PATH] [--force]
 *                                                      ingests SEC data from a local folder (shared data's sec/)
 *   bun run cli ingest-sec --online --cik 320193,1045810 [--force]
 *                                                      refreshes CIKs from data.sec.gov (CAIRN_SEC_ONLINE=1)
 *   bun run cli ingest-transcripts --dir PATH         earnings-call transcripts (shared data's transcripts/)
 *   bun run cli ingest-filings --dir PATH             8-K filings and EX-99 exhibits (shared data's sec/8k/)
 *   bun run cli ingest-news --dir PATH                news samples: RSS/Atom XML, feed-item JSON, GDELT rows,
 *                                                      Reddit CSV/listings, X posts (shared data's news/)
 *   bun run cli build-topics [--data-dir PATH]        extracted and emerging topics over both (PATH holds
 *                                                      news/sentiment/loughran_mcdonald; default: the cwd upwards)
 *   bun run cli ingest-market --tenant SLUG --dir PATH [--force]
 *                                                      market bars/ticks/quotes CSVs (shared data's market/) into
 *                                                      the tenant's real-time tables (QuestDB ILP or embedded DuckDB)
 *   bun run cli load-demo-tables --tenant SLUG [--dir PATH]
 *                                                      the real ML sets (shared data's ml/) as the tenant's
 *                                                      custom lakehouse tables (replace: idempotent); without
 *                                                      PATH, german_credit from fixtures/ml/
 *   bun run cli foundry-sync --tenant SLUG [--market-dir PATH]
 *                                                      the tenant's financial data as lakehouse tables (docs/foundry-tables.md)
 * Values go to stdout alone, so `$(bun run cli token --email a@b.c)` works.
 */
import { parseArgs } from "node:util";
import { openControlPlane } from "../composition/cli.ts";
import { ConfigError, loadConfig } from "../config.ts";
import { loadInstallationSecrets } from "../http/auth/secrets.ts";
import type { CliFlags, Command } from "./context.ts";
import { fail } from "./context.ts";
import { adminKey, apikey, demoKey, token } from "./credentials.ts";
import { DEMO_TENANT_SLUG } from "./demo-seed.ts";
import { loadDemoTables } from "./foundry-demo.ts";
import { foundrySync } from "./foundry-sync.ts";
import { ingestMarket } from "./ingest-market.ts";
import { ingestNews } from "./ingest-news.ts";
import { buildTopics, ingestFilings, ingestTranscripts } from "./ingest-research.ts";
import { ingestSec } from "./ingest-sec.ts";
import { seed } from "./seed.ts";

const COMMANDS: Record<string, Command> = {
  seed,
  token,
  apikey,
  "admin-key": adminKey,
  "demo-key": demoKey,
  "ingest-sec": ingestSec,
  "ingest-transcripts": ingestTranscripts,
  "ingest-filings": ingestFilings,
  "ingest-news": ingestNews,
  "build-topics": buildTopics,
  "ingest-market": ingestMarket,
  "load-demo-tables": loadDemoTables,
  "foundry-sync": foundrySync,
};

async function main(argv: string[]): Promise<void> {
  const [command = "", ...rest] = argv;
  const run = COMMANDS[command];
  if (!run) {
    fail(`unknown command '${command}' (${Object.keys(COMMANDS).join(" | ")}); demo tenant slug: ${DEMO_TENANT_SLUG}`);
  }
  const { values } = parseArgs({
    args: rest,
    options: {
      email: { type: "string" },
      tier: { type: "string" },
      label: { type: "string" },
      name: { type: "string" },
      dir: { type: "string" },
      "data-dir": { type: "string" },
      "market-dir": { type: "string" },
      force: { type: "boolean" },
      online: { type: "boolean" },
      cik: { type: "string" },
      tenant: { type: "string" },
      role: { type: "string" },
    },
    strict: true,
  });
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig();
  } catch (err) {
    fail(err instanceof ConfigError ? err.message : String(err));
  }
  const store = await openControlPlane(config);
  try {
    const secrets = await loadInstallationSecrets(config, store);
    await run({ command, flags: values as CliFlags, config, store, secrets });
  } finally {
    await store.close();
  }
}

await main(process.argv.slice(2));
