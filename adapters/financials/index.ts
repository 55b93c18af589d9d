export { FINANCIALS_MIGRATIONS } from "./migrations.ts";
export { SqlFinancialsStore } from "./store.ts";
