export {
  DEFAULT_MAX_ROWS_PER_TABLE,
  FINGERPRINT_PROPERTY,
  type FoundrySyncOptions,
  type FoundrySyncResult,
  SOURCE_PROPERTY,
  SYNCED_AT_PROPERTY,
  type SyncedTable,
  syncFinancialTables,
} from "./job.ts";
export { COLUMNS, FOUNDRY_TABLES, type FoundryTable, KEYS } from "./tables.ts";
