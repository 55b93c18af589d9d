export { DuckDbTimeSeries, type DuckDbTimeSeriesOptions } from "./duckdb.ts";
