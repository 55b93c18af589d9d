/** The Hono environment shared by every route: per-request variables. */
import type { Identity } from "../domain/identity.ts";
import type { Tenant } from "../domain/ports.ts";
import type { RequestLog } from "./request-log.ts";

export interface AppEnv {
  Variables: {
    requestId: string;
    log: RequestLog;
    identity: Identity;
    /** Set for user identities once the tenant resolved as active. */
    tenant: Tenant;
  };
}
