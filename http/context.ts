/** The Hono environment shared by every route: per-request variables. */
import type { Logger } from "pino";
import type { Identity } from "../domain/identity.ts";
import type { Tenant } from "../domain/ports.ts";

export interface AppEnv {
  Variables: {
    requestId: string;
    log: Logger;
    identity: Identity;
    /** Set for user identities once the tenant resolved as active. */
    tenant: Tenant;
  };
}
