/**
 * Which FoundryAgents serves a FoundryService. The agents service is attached by the
 * composition root beside the Foundry service (composition/foundry-agents.ts) instead of
 * as a field of it, so the agents area lands without editing the Foundry service's deps;
 * a service with none attached answers 503 on the agent routes.
 */
import { AppError } from "../../errors.ts";
import type { FoundryAgents } from "./service.ts";

const attached = new WeakMap<object, FoundryAgents>();

export function attachAgents(foundry: object, agents: FoundryAgents): void {
  attached.set(foundry, agents);
}

export function agentsOf(foundry: object): FoundryAgents {
  const a = attached.get(foundry);
  if (!a) throw new AppError("unavailable", "Foundry agents are not configured in this installation");
  return a;
}
