export {
  SEC_MAX_REQUESTS_PER_SECOND,
  SecClient,
  type SecClientOptions,
  SecHttpError,
  validateUserAgent,
} from "./client.ts";
export { type DirectoryIngestOptions, type IngestReport, ingestSecDirectory } from "./directory.ts";
export { SEC_DERIVATION_VERSION } from "./ingest.ts";
export { makeSecIngestHandler, SEC_INGEST_QUEUE, type SecIngestDeps, SecIngestJob } from "./job.ts";
export { EMPTY_PRICE_BOOK, loadPriceBook, type PriceBook } from "./market.ts";
export { ingestSecOnline, type OnlineIngestOptions } from "./online.ts";
export { TokenBucket } from "./token-bucket.ts";
