export { HandleCache } from "./handles.ts";
export { OpenSearchDocumentIndex, type OpenSearchDocumentIndexOptions } from "./opensearch.ts";
export { REQUIRED_TABLES, SCHEMA_VERSION, schemaSql } from "./schema.ts";
export { MAX_SEARCH_K } from "./search-request.ts";
export { SqliteDocumentIndex, type SqliteDocumentIndexOptions } from "./sqlite.ts";
