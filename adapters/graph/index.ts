export { LadybugGraph, type LadybugGraphOptions } from "./ladybug.ts";
export { Neo4jGraph, type Neo4jGraphOptions } from "./neo4j.ts";
