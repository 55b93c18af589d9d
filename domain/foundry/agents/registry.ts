/**
 * Which FoundryAgents serves a FoundryService: its `agents` field, set by the composition root
 * once both exist (composition/foundry-agents.ts; the agents predict through the Foundry
 * service's serving area, so they are built after it). A service with none answers 503 on the
 * agent routes.
 */
import { AppError } from "../../errors.ts";
import type { FoundryAgents } from "./service.ts";

export function attachAgents(foundry: { agents: FoundryAgents | null }, agents: FoundryAgents): void {
  foundry.agents = agents;
}

export function agentsOf(foundry: { agents?: FoundryAgents | null }): FoundryAgents {
  if (!foundry.agents) throw new AppError("unavailable", "Foundry agents are not configured in this installation");
  return foundry.agents;
}
