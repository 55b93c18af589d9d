/**
 * `ingest-transcripts`, `ingest-filings`, `build-topics`: the financials area's research
 * corpus (earnings-call transcripts, 8-K exhibits, and the topics over them and the news).
 */
import { resolve } from "node:path";
import { openResearch } from "../composition/cli.ts";
import { ingestFilingsDirectory } from "../pipelines/financials/filings/index.ts";
import { buildTopics as build } from "../pipelines/financials/topics/index.ts";
import { ingestTranscriptsDirectory } from "../pipelines/financials/transcripts/index.ts";
import type { Command } from "./context.ts";
import { fail, printJson } from "./context.ts";

export const ingestTranscripts: Command = async ({ flags, store }) => {
  if (!flags.dir) fail("ingest-transcripts needs --dir");
  printJson(await ingestTranscriptsDirectory(openResearch(store.sql), resolve(flags.dir)));
};

export const ingestFilings: Command = async ({ flags, store }) => {
  if (!flags.dir) fail("ingest-filings needs --dir");
  printJson(await ingestFilingsDirectory(openResearch(store.sql), resolve(flags.dir)));
};

export const buildTopics: Command = async ({ flags, store }) => {
  const dataDir = flags["data-dir"] ? resolve(flags["data-dir"]) : process.cwd();
  const report = await build(openResearch(store.sql), { dataDir }).catch((err: Error) => fail(err.message));
  printJson(report);
};
