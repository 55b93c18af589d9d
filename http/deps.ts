/** What the HTTP layer needs from the composition root (composition/ wires the adapters). */
import type { Logger } from "pino";
import type { DocumentService } from "../domain/documents/service.ts";
import type { EditorService } from "../domain/editor/index.ts";
import type { FinancialsService } from "../domain/financials/service.ts";
import type { FoundryService } from "../domain/foundry/service.ts";
import type { LakehouseService } from "../domain/lakehouse/service.ts";
import type { NewsService } from "../domain/news/service.ts";
import type { Pingable } from "../domain/ports.ts";
import type { RtdbService } from "../domain/rtdb/service.ts";
import type { TenantResolver } from "../domain/tenants/ports.ts";
import type { TenantsService } from "../domain/tenants/service.ts";
import type { RateLimiterPort, UsagePort } from "../domain/user/ports.ts";
import type { UserService } from "../domain/user/service.ts";
import type { Authenticator } from "./auth/authenticator.ts";

/**
 * One field per area's domain service, plus the cross-cutting ports the guards and the
 * middleware use. Routes never see a store.
 */
export interface AppDeps {
  logger: Logger;
  auth: Authenticator;
  /** Routing: the tenant of a guarded request when active (the tenant actor). */
  tenantResolver: TenantResolver;
  rateLimiter: RateLimiterPort;
  usage: UsagePort;
  /** The caller's profile and API keys (/v1/user/*). */
  user: UserService;
  /** Tenant administration (/v1/admin/tenants*). */
  tenants: TenantsService;
  /** Lakehouse catalogs, sync targets and runs, and the gateway's health (/v1/admin/lakehouse*). */
  lakehouse: LakehouseService;
  /** News articles by id and as history, and the opening of the live stream (spec 4.4, 4.5). */
  news: NewsService;
  /** Financial data, research, exports and e-mail sharing (spec 4.4). */
  financials: FinancialsService;
  /** Real-time tables (spec 2.9, 4.8) in the tenant's time-series namespace, and what is tiered. */
  rtdb: RtdbService;
  /** Collaborative editor documents (spec 2.12, 4.7): REST, webhook and the rooms' persistence. */
  editor: EditorService;
  /** Document upload, ACL'd search and agentic answers over the tenant's index (spec 4.6). */
  documents: DocumentService;
  /** Foundry: the tenant's tables and datasets (spec 2.6, 3.2, 4.9). */
  foundry: FoundryService;
  /** What /readyz pings (control plane, job queue, counters), and the profile it reports. */
  readiness: { profile: string; probes: Record<string, Pingable> };
  /** Set by main.ts during graceful shutdown so /readyz turns 503 first. */
  draining?: () => boolean;
}
