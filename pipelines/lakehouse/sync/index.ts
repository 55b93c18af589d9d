export {
  CURSOR_PROPERTY,
  DEFAULT_BATCH_ROWS,
  DEFAULT_MAX_ROWS_PER_JOB,
  type LakehouseSyncDeps,
  makeLakehouseSyncHandler,
  runLakehouseSync,
  type SyncOutcome,
} from "./job.ts";
export {
  describeSourceTable,
  icebergTypeForPostgres,
  icebergTypeForSqlite,
  isCursorType,
  maxCursor,
  readSourceRows,
  toWire,
} from "./source.ts";
