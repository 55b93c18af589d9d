/**
 * Per-route access: authenticate by exactly the route's scheme (spec section 5), then,
 * for user identities, resolve the tenant (inactive ones are refused) and apply the
 * tier's rate limits, counting accepted requests as usage.
 */
import type { MiddlewareHandler } from "hono";
import { AppError } from "../../domain/errors.ts";
import type { AuthScheme, UserIdentity } from "../../domain/identity.ts";
import type { Tenant } from "../../domain/ports.ts";
import type { RateLimitHeaders } from "../../domain/user/rate-limit.ts";
import type { AppEnv } from "../context.ts";
import type { AppDeps } from "../deps.ts";
import type { RequestLog } from "../request-log.ts";

type Mw = MiddlewareHandler<AppEnv>;

export type Guards = Record<Exclude<AuthScheme, "api_key">, Mw[]> & {
  api_key: Mw[];
  /** API key in the X-API-Key header or the apikey= query parameter (news socket). */
  api_key_or_query: Mw[];
};

/**
 * What every user identity passes after authentication, in this order: the tenant resolves
 * as active (else its refusal), the log gains tenant and user, the tier's rate limits allow
 * the request (else 429 carrying the limit headers), and the request counts as usage.
 * Shared by the guards below and the hot path (http/hot-path.ts), so both check the same.
 */
export async function admitUser(
  deps: Pick<AppDeps, "tenantResolver" | "rateLimiter" | "usage">,
  id: UserIdentity,
  log: RequestLog,
): Promise<{ tenant: Tenant; headers: RateLimitHeaders }> {
  const tenant = await deps.tenantResolver.resolve(id.tenantId);
  log.bind({ tenant_id: tenant.tenant_id, user_id: id.user.id });
  const decision = await deps.rateLimiter.check(id.user.id, id.user.tier);
  if (!decision.allowed) {
    const which = decision.exceeded === "day" ? "per-day" : "per-minute";
    throw new AppError(
      "rate_limited",
      `Rate limit exceeded (${which} limit of the ${id.user.tier} tier)`,
      undefined,
      decision.headers,
    );
  }
  deps.usage.record(id.user.id);
  return { tenant, headers: decision.headers };
}

export function makeGuards(deps: AppDeps): Guards {
  const { auth } = deps;

  const tenantAndLimits: Mw = async (c, next) => {
    const admitted = await admitUser(deps, c.get("identity") as UserIdentity, c.get("log"));
    c.set("tenant", admitted.tenant);
    for (const k in admitted.headers) c.header(k, admitted.headers[k]);
    await next();
  };

  const jwt: Mw = async (c, next) => {
    c.set("identity", await auth.fromBearer(c.req.header("authorization")));
    await next();
  };
  const apiKey: Mw = async (c, next) => {
    c.set("identity", await auth.fromApiKey(c.req.header("x-api-key")));
    await next();
  };
  const apiKeyOrQuery: Mw = async (c, next) => {
    c.set("identity", await auth.fromApiKey(c.req.header("x-api-key") ?? c.req.query("apikey")));
    await next();
  };
  const both: Mw = async (c, next) => {
    const viaKey = await auth.fromApiKey(c.req.header("x-api-key"));
    const viaJwt = await auth.fromBearer(c.req.header("authorization"));
    if (viaKey.tenantId !== viaJwt.tenantId) {
      throw new AppError("forbidden", "The API key and the bearer token belong to different tenants");
    }
    c.set("identity", { ...viaJwt, via: "api_key_and_jwt", apiKeyId: viaKey.apiKeyId });
    await next();
  };
  const admin: Mw = async (c, next) => {
    await auth.admin(c.req.header("x-api-key"));
    c.set("identity", { kind: "admin" });
    c.get("log").bind({ consumer: "admin" });
    await next();
  };
  const collab: Mw = async (c, next) => {
    auth.collab(c.req.header("x-collab-secret"));
    c.set("identity", { kind: "collab" });
    await next();
  };
  const none: Mw = async (c, next) => {
    c.set("identity", { kind: "anonymous" });
    await next();
  };

  return {
    jwt: [jwt, tenantAndLimits],
    api_key: [apiKey, tenantAndLimits],
    api_key_or_query: [apiKeyOrQuery, tenantAndLimits],
    api_key_and_jwt: [both, tenantAndLimits],
    admin_key: [admin],
    collab_secret: [collab],
    none: [none],
  };
}

/** OpenAPI security requirement for each scheme (components in http/openapi.ts). */
export const SECURITY: Record<AuthScheme, Record<string, string[]>[]> = {
  jwt: [{ bearerAuth: [] }],
  api_key: [{ apiKeyHeader: [] }],
  api_key_and_jwt: [{ apiKeyHeader: [], bearerAuth: [] }],
  admin_key: [{ adminKey: [] }],
  collab_secret: [{ collabSecret: [] }],
  none: [],
};
