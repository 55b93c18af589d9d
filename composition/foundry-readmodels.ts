/** The read models ci.*, dm.*, pm.*, md.* (domain/foundry/readmodels/) in the control plane. */
import { FoundryReadModels } from "../domain/foundry/readmodels/service.ts";
import type { FoundryWiring } from "./foundry.ts";

export function openFoundryReadModels(_d: FoundryWiring): {
  readModels: FoundryReadModels;
  workers: import("../domain/ports.ts").JobWorker[];
} {
  return { readModels: new FoundryReadModels(), workers: [] };
}
