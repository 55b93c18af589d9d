export { DuckDbTimeSeries, type DuckDbTimeSeriesOptions } from "./duckdb.ts";
export { DuckDbRealtimeTables } from "./rtdb.ts";
