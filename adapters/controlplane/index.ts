export { BARRIER_MIGRATIONS } from "./barrier-migrations.ts";
export { SqlBarrierStore } from "./barrier-store.ts";
export { LAKEHOUSE_MIGRATIONS, sourceSchemaAttachments } from "./lakehouse-migrations.ts";
export { SqlLakehouseCatalogStore } from "./lakehouse-store.ts";
export { CONTROL_PLANE_MIGRATIONS } from "./migrations.ts";
export { SqlControlPlaneStore } from "./store.ts";
export { TIERING_MIGRATIONS } from "./tiering-migrations.ts";
export { SqlTieringStateStore } from "./tiering-store.ts";
