export { DuckDbTimeSeries, type DuckDbTimeSeriesOptions } from "./duckdb.ts";
export { QuestDbRealtimeTables, QuestDbTimeSeries, type QuestDbTimeSeriesOptions } from "./questdb.ts";
export { DuckDbRealtimeTables } from "./rtdb.ts";
