export { LadybugGraph, type LadybugGraphOptions } from "./ladybug.ts";
