export { CONTROL_PLANE_MIGRATIONS } from "./migrations.ts";
export { SqlControlPlaneStore } from "./store.ts";
