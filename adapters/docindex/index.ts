export { HandleCache } from "./handles.ts";
export { REQUIRED_TABLES, SCHEMA_VERSION, schemaSql } from "./schema.ts";
export { SqliteDocumentIndex, type SqliteDocumentIndexOptions } from "./sqlite.ts";
