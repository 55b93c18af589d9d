export { DdlError, normaliseDdl, parseCreateTable, parseCreateTableRequest } from "./ddl.ts";
export * from "./table-spec.ts";
