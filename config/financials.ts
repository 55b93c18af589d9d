/** SEC ingest (pipelines/financials/sec): online refresh from data.sec.gov and the market-data folder. */
import { resolve } from "node:path";
import { z } from "zod";
import { boolFlag, ConfigError, optionalUrl } from "./env.ts";

export const secEnv = z.object({
  /** Online SEC refresh from data.sec.gov (pipelines/financials/sec); needs CAIRN_SEC_USER_AGENT. */
  CAIRN_SEC_ONLINE: boolFlag,
  /** Sent on every SEC request, as SEC fair access requires: "Company Name contact@example.com". */
  CAIRN_SEC_USER_AGENT: z
    .string()
    .trim()
    .optional()
    .transform((v) => (v === "" ? undefined : v))
    .refine((v) => v === undefined || /\S+.*\s+\S+@\S+\.\S+/.test(v), "must be a name and a contact e-mail"),
  CAIRN_SEC_BASE_URL: optionalUrl(["http", "https"]),
  CAIRN_SEC_TICKERS_URL: optionalUrl(["http", "https"]),
  /** Requests per second to the SEC; its fair-access limit is 10. */
  CAIRN_SEC_MAX_RPS: z.coerce.number().positive().max(10).default(10),
  /** Daily/monthly closing prices for market-based ratios (a folder like the shared data's market/). */
  CAIRN_MARKET_DATA_DIR: z
    .string()
    .trim()
    .optional()
    .transform((v) => (v === "" ? undefined : v)),
});

export type SecEnv = z.infer<typeof secEnv>;

export interface SecConfig {
  /** SEC ingest (pipelines/financials/sec): online refresh settings and the market-data folder. */
  readonly sec: {
    online: boolean;
    userAgent: string | undefined;
    baseUrl: string;
    tickersUrl: string;
    maxRequestsPerSecond: number;
    marketDataDir: string | null;
  };
}

/** Rules across SEC variables; throws ConfigError. */
export function checkSec(e: SecEnv): void {
  if (e.CAIRN_SEC_ONLINE && !e.CAIRN_SEC_USER_AGENT) {
    throw new ConfigError(
      "Invalid configuration:\n  CAIRN_SEC_USER_AGENT: required when CAIRN_SEC_ONLINE=1 (SEC fair access)",
    );
  }
}

export function secConfig(e: SecEnv): SecConfig {
  return {
    sec: {
      online: e.CAIRN_SEC_ONLINE,
      userAgent: e.CAIRN_SEC_USER_AGENT,
      baseUrl: e.CAIRN_SEC_BASE_URL ?? "https://data.sec.gov",
      tickersUrl: e.CAIRN_SEC_TICKERS_URL ?? "https://www.sec.gov/files/company_tickers.json",
      maxRequestsPerSecond: e.CAIRN_SEC_MAX_RPS,
      marketDataDir: e.CAIRN_MARKET_DATA_DIR ? resolve(e.CAIRN_MARKET_DATA_DIR) : null,
    },
  };
}
