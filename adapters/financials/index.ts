export { FINANCIALS_MIGRATIONS, INCOME_COLUMNS, RATIO_COLUMNS } from "./migrations.ts";
export { SqlFinancialsStore } from "./store.ts";
