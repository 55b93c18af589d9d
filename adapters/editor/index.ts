export { CrdtMergePool, type MergePoolOptions } from "./merge-pool.ts";
export { EDITOR_MIGRATIONS } from "./migrations.ts";
export { SqlEditorDocumentStore } from "./store.ts";
