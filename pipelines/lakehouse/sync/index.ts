export {
  CURSOR_PROPERTY,
  DEFAULT_BATCH_ROWS,
  DEFAULT_MAX_ROWS_PER_JOB,
  LAKEHOUSE_SYNC_QUEUE,
  type LakehouseSyncDeps,
  makeLakehouseSyncHandler,
  runLakehouseSync,
  SyncJobData,
  type SyncOutcome,
} from "./job.ts";
export {
  describeSourceTable,
  icebergTypeForPostgres,
  icebergTypeForSqlite,
  isCursorType,
  maxCursor,
  readSourceRows,
  type SourceColumn,
  toWire,
} from "./source.ts";
