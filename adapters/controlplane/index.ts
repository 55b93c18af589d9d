export { LAKEHOUSE_MIGRATIONS, sourceSchemaAttachments } from "./lakehouse-migrations.ts";
export { SqlLakehouseCatalogStore } from "./lakehouse-store.ts";
export { CONTROL_PLANE_MIGRATIONS } from "./migrations.ts";
export { SqlControlPlaneStore } from "./store.ts";
