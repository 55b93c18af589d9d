/**
 * Operator CLI (README "Operator interface"):
 *   bun run cli seed                                   idempotent demo tenant and users
 *   bun run cli token --email E [--tier free|pro|enterprise]   prints a JWT (creates the user if needed)
 *   bun run cli apikey --email E [--label L]           prints a new API key
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
 * Values go to stdout alone, so `$(bun run cli token --email a@b.c)` works.
 */
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { openResearchStores } from "./adapters/financials/research.ts";
import { LadybugGraph } from "./adapters/graph/index.ts";
import { readLocalFeeds, SqlNewsStore } from "./adapters/news/index.ts";
import {
  DEMO_TENANT_SLUG,
  DEMO_USERS,
  demoApiKey,
  ensureDemoTenant,
  ensureUser,
  issueApiKey,
  seedDemo,
} from "./cli/demo-seed.ts";
import { ConfigError, loadConfig } from "./config.ts";
import { isUserTier } from "./domain/user/tiers.ts";
import { signUserToken } from "./http/auth/jwt.ts";
import { loadInstallationSecrets } from "./http/auth/secrets.ts";
import { createLogger } from "./http/logger.ts";
import { openControlPlane, openDocumentIndex, openFinancials, openTimeSeries } from "./main.ts";
import { ingestFilingsDirectory } from "./pipelines/financials/filings/index.ts";
import {
  type IngestReport,
  ingestSecDirectory,
  ingestSecOnline,
  loadPriceBook,
  SecClient,
} from "./pipelines/financials/sec/index.ts";
import { buildTopics } from "./pipelines/financials/topics/index.ts";
import { ingestTranscriptsDirectory } from "./pipelines/financials/transcripts/index.ts";
import { createCompanyLinker, type IngestStats, NewsIngestor } from "./pipelines/news/index.ts";
import { ingestMarketDirectory } from "./pipelines/rtdb/market-ingest.ts";

function fail(msg: string): never {
  process.stderr.write(`cairn: ${msg}\n`);
  process.exit(2);
}

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
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
    switch (command) {
      case "seed": {
        const demo = await seedDemo(store);
        // The demo tenant is created active, so give it the engine namespaces provisioning
        // would have made: without them uploads, real-time tables and the graph answer 503.
        const ref = { tenantId: demo.tenant_id, slug: demo.slug };
        for (const engine of [
          openDocumentIndex(config),
          openTimeSeries(config),
          new LadybugGraph({ dataDir: config.dataDir }),
        ]) {
          try {
            await engine.ensureNamespace(ref);
          } finally {
            await engine.close();
          }
        }
        process.stdout.write(`${JSON.stringify(demo, null, 2)}\n`);
        break;
      }
      case "token": {
        if (!values.email) fail("token needs --email");
        if (values.tier !== undefined && !isUserTier(values.tier)) fail("--tier must be free, pro or enterprise");
        const tenant = await ensureDemoTenant(store);
        const user = await ensureUser(store, tenant.tenant_id, values.email, values.tier, values.name);
        const token = await signUserToken(
          {
            secret: secrets.jwtSecret,
            issuer: config.jwt.issuer,
            audience: config.jwt.audience,
            ttlSeconds: config.jwt.ttlSeconds,
          },
          { userId: user.id, email: user.email, tenantId: user.tenant_id },
        );
        process.stdout.write(`${token}\n`);
        break;
      }
      case "apikey": {
        if (!values.email) fail("apikey needs --email");
        if (values.tier !== undefined && !isUserTier(values.tier)) fail("--tier must be free, pro or enterprise");
        const tenant = await ensureDemoTenant(store);
        const user = await ensureUser(store, tenant.tenant_id, values.email, values.tier, values.name);
        const key = await issueApiKey(store, user, values.label ?? "cli");
        if (!key) fail(`API key limit reached for ${user.email} (${user.tier} tier); revoke one in the dashboard`);
        process.stdout.write(`${key}\n`);
        break;
      }
      case "demo-key":
        // Used by the run command: a restart must not invalidate the key it printed before.
        process.stdout.write(`${await demoApiKey(store, DEMO_USERS[0]?.email ?? "", config.dataDir)}\n`);
        break;
      case "ingest-sec": {
        if (!values.online && !values.dir) fail("ingest-sec needs --dir PATH or --online --cik CIK[,CIK...]");
        const fin = await openFinancials(config, store);
        try {
          const marketDir = values["market-dir"] ? resolve(values["market-dir"]) : config.sec.marketDataDir;
          let report: IngestReport;
          if (values.online) {
            if (!config.sec.online || !config.sec.userAgent)
              fail("online ingest needs CAIRN_SEC_ONLINE=1 and CAIRN_SEC_USER_AGENT");
            const ciks = (values.cik ?? "").split(",").filter(Boolean);
            if (ciks.length === 0) fail("--online needs --cik CIK[,CIK...]");
            const client = new SecClient({
              userAgent: config.sec.userAgent,
              baseUrl: config.sec.baseUrl,
              tickersUrl: config.sec.tickersUrl,
              maxRequestsPerSecond: config.sec.maxRequestsPerSecond,
            });
            report = await ingestSecOnline(client, fin.store, ciks, {
              prices: loadPriceBook(marketDir),
              force: values.force,
            });
          } else {
            report = await ingestSecDirectory(resolve(values.dir ?? "."), fin.store, {
              marketDir: values["market-dir"] ? marketDir : undefined,
              force: values.force,
            });
          }
          process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
          if (report.errors.length > 0) process.exitCode = 1;
        } finally {
          await fin.close();
        }
        break;
      }
      case "admin-key":
        process.stdout.write(`${secrets.adminApiKey}\n`);
        break;
      case "ingest-transcripts":
      case "ingest-filings": {
        if (!values.dir) fail(`${command} needs --dir`);
        const research = openResearchStores(store.sql);
        const report =
          command === "ingest-transcripts"
            ? await ingestTranscriptsDirectory(research, resolve(values.dir))
            : await ingestFilingsDirectory(research, resolve(values.dir));
        process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
        break;
      }
      case "ingest-news": {
        if (!values.dir) fail("ingest-news needs --dir");
        const ingestor = new NewsIngestor({
          store: new SqlNewsStore(store.sql),
          // A separate process: the service's stream has no subscribers here; history gets the articles.
          publisher: { publish: async () => {} },
          linker: createCompanyLinker(config.news.tickerMap),
          logger: createLogger(config.logLevel),
        });
        const files: { file: string; type: string | null; error?: string; stats?: IngestStats }[] = [];
        for (const f of readLocalFeeds(resolve(values.dir))) {
          files.push({
            file: f.file,
            type: f.type,
            error: f.error,
            stats: f.type ? await ingestor.ingest(f.items) : undefined,
          });
        }
        const stored = files.reduce((n, f) => n + (f.stats?.stored ?? 0), 0);
        process.stdout.write(`${JSON.stringify({ stored, files }, null, 2)}\n`);
        if (files.some((f) => f.error)) process.exitCode = 1;
        break;
      }
      case "build-topics": {
        const dataDir = values["data-dir"] ? resolve(values["data-dir"]) : process.cwd();
        const report = await buildTopics(openResearchStores(store.sql), { dataDir }).catch((err: Error) =>
          fail(err.message),
        );
        process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
        break;
      }
      case "ingest-market": {
        if (!values.tenant || !values.dir) fail("ingest-market needs --tenant SLUG and --dir PATH");
        const tenant = await store.getTenantBySlug(values.tenant);
        if (!tenant) fail(`no tenant '${values.tenant}'`);
        // Embedded profile: the DuckDB file is locked while the service runs; stop it first.
        const ts = openTimeSeries(config);
        try {
          const ref = { tenantId: tenant.tenant_id, slug: tenant.slug };
          if (!(await ts.realtime.ready(ref)))
            fail(`tenant '${tenant.slug}' has no time-series namespace (provision it)`);
          const report = await ingestMarketDirectory(ts.realtime, ref, resolve(values.dir), { force: values.force });
          process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
        } finally {
          await ts.close();
        }
        break;
      }
      default:
        fail(
          `unknown command '${command ?? ""}' (seed | token | apikey | admin-key | demo-key | ingest-sec | ingest-transcripts | ingest-filings | ingest-news | build-topics | ingest-market); demo tenant slug: ${DEMO_TENANT_SLUG}`,
        );
    }
  } finally {
    await store.close();
  }
}

await main(process.argv.slice(2));
