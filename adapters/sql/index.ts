export { migrate } from "./migrate.ts";
export { Mutex } from "./mutex.ts";
export { PostgresClient, toDollarParams } from "./postgres.ts";
export { SqliteClient, type SqliteOptions } from "./sqlite.ts";
