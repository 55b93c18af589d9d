export { DdlError, normaliseDdl, parseCreateTable, parseCreateTableRequest } from "./ddl.ts";
export * from "./ports.ts";
export * from "./rows.ts";
export * from "./table-spec.ts";
export * from "./tiering.ts";
