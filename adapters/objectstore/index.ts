export { LocalObjectStore } from "./local.ts";
export { DuckDbParquetInspector } from "./parquet.ts";
export { S3ObjectStore, type S3ObjectStoreOptions } from "./s3.ts";
