/**
 * Information barriers (spec 4.6 `barrier_id`; the API itself is not in the spec, see
 * docs/decisions.md): a tenant's owners create barriers and record or revoke that an
 * identity crossed one. Bearer JWT of a user with the `owner` role; the tenant is the
 * token's, so no request can reach another tenant's barriers. Search reads crossings fresh,
 * so a revocation applies to the identity's next search.
 */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { Barrier, BarrierCrossing } from "../../../domain/documents/barriers.ts";
import { AppError } from "../../../domain/errors.ts";
import type { UserIdentity } from "../../../domain/identity.ts";
import { type Guards, SECURITY } from "../../auth/guards.ts";
import type { AppEnv } from "../../context.ts";
import type { AppDeps } from "../../deps.ts";
import { AUTH_ERRORS, ErrorBody, json } from "../../schemas.ts";
import {
  BarrierDetail,
  BarrierIdParam,
  BarrierRecord,
  CrossingBody,
  CrossingParam,
  CrossingRecord,
  HistoryQuery,
  NewBarrierBody,
} from "./barrier-schema.ts";

export const BARRIER_ADMIN_ROLE = "owner";

/** The caller, when it may manage barriers: a user of the tenant with the owner role. */
function owner(identity: UserIdentity): { tenantId: string; by: string } {
  if (!identity.roles.includes(BARRIER_ADMIN_ROLE)) {
    throw new AppError("forbidden", `Managing information barriers requires the ${BARRIER_ADMIN_ROLE} role`);
  }
  return { tenantId: identity.tenantId, by: String(identity.user.id) };
}

/** Public fields picked one by one, so a new stored column never leaks by default. */
const barrierOut = (b: Barrier): z.infer<typeof BarrierRecord> => ({
  barrier_id: b.barrier_id,
  tenant_id: b.tenant_id,
  name: b.name,
  description: b.description,
  created_at: b.created_at,
  created_by: b.created_by,
  crossings: b.crossings,
});
const crossingOut = (c: BarrierCrossing): z.infer<typeof CrossingRecord> => ({
  barrier_id: c.barrier_id,
  identity_id: c.identity_id,
  crossed_at: c.crossed_at,
  crossed_by: c.crossed_by,
  revoked_at: c.revoked_at,
  revoked_by: c.revoked_by,
});

export function registerBarrierRoutes(app: OpenAPIHono<AppEnv>, deps: AppDeps, guards: Guards): void {
  const base = { security: SECURITY.jwt, middleware: guards.jwt, tags: ["Information barriers"] };
  const caller = (c: { get(k: "identity"): unknown }) => owner(c.get("identity") as UserIdentity);

  app.openapi(
    createRoute({
      ...base,
      method: "post",
      path: "/v1/admin/barriers",
      summary: "Create an information barrier in the caller's tenant (owners)",
      description: "Upload a document with this barrier_id and only identities that crossed the barrier see it.",
      request: { body: { content: { "application/json": { schema: NewBarrierBody } }, required: true } },
      responses: {
        201: json(BarrierRecord, "Created"),
        409: json(ErrorBody, "The tenant already has a barrier with this name"),
        ...AUTH_ERRORS,
      },
    }),
    async (c) => {
      const { tenantId, by } = caller(c);
      const body = c.req.valid("json");
      const b = await deps.barriers.create(tenantId, { name: body.name, description: body.description, createdBy: by });
      return c.json(barrierOut(b), 201);
    },
  );

  app.openapi(
    createRoute({
      ...base,
      method: "get",
      path: "/v1/admin/barriers",
      summary: "The tenant's information barriers, oldest first (owners)",
      responses: { 200: json(z.array(BarrierRecord), "Barriers"), ...AUTH_ERRORS },
    }),
    async (c) => c.json((await deps.barriers.list(caller(c).tenantId)).map(barrierOut), 200),
  );

  app.openapi(
    createRoute({
      ...base,
      method: "get",
      path: "/v1/admin/barriers/{barrier_id}",
      summary: "One barrier with the identities that crossed it (owners)",
      request: { params: BarrierIdParam, query: HistoryQuery },
      responses: { 200: json(BarrierDetail, "Barrier"), 404: json(ErrorBody, "No such barrier"), ...AUTH_ERRORS },
    }),
    async (c) => {
      const { tenantId } = caller(c);
      const { barrier_id } = c.req.valid("param");
      const b = await deps.barriers.get(tenantId, barrier_id);
      if (!b) throw new AppError("not_found", `No barrier ${barrier_id}`);
      const includeRevoked = c.req.valid("query").include_revoked;
      const crossings = await deps.barriers.crossings(tenantId, barrier_id, { includeRevoked });
      return c.json({ ...barrierOut(b), crossed_by: crossings.map(crossingOut) }, 200);
    },
  );

  app.openapi(
    createRoute({
      ...base,
      method: "post",
      path: "/v1/admin/barriers/{barrier_id}/crossings",
      summary: "Record that an identity crossed the barrier (owners; idempotent)",
      request: {
        params: BarrierIdParam,
        body: { content: { "application/json": { schema: CrossingBody } }, required: true },
      },
      responses: {
        201: json(CrossingRecord, "Crossed"),
        200: json(CrossingRecord, "Already crossed: the existing crossing"),
        404: json(ErrorBody, "No such barrier, or no such identity in the tenant"),
        ...AUTH_ERRORS,
      },
    }),
    async (c) => {
      const { tenantId, by } = caller(c);
      const { barrier_id } = c.req.valid("param");
      const { identity_id } = c.req.valid("json");
      const r = await deps.barriers.cross(tenantId, barrier_id, identity_id, by);
      c.get("log").logger.info({ barrier_id, identity_id, by, created: r.created }, "barrier crossed");
      return c.json(crossingOut(r.crossing), r.created ? 201 : 200);
    },
  );

  app.openapi(
    createRoute({
      ...base,
      method: "delete",
      path: "/v1/admin/barriers/{barrier_id}/crossings/{identity_id}",
      summary: "Revoke a crossing; the identity's next search no longer sees the barrier's documents (owners)",
      request: { params: CrossingParam },
      responses: {
        204: { description: "Revoked" },
        404: json(ErrorBody, "No such barrier, or the identity has not crossed it"),
        ...AUTH_ERRORS,
      },
    }),
    async (c) => {
      const { tenantId, by } = caller(c);
      const { barrier_id, identity_id } = c.req.valid("param");
      if (!(await deps.barriers.revoke(tenantId, barrier_id, identity_id, by))) {
        throw new AppError("not_found", `Identity ${identity_id} has not crossed barrier ${barrier_id}`);
      }
      c.get("log").logger.info({ barrier_id, identity_id, by }, "barrier crossing revoked");
      return c.body(null, 204);
    },
  );
}
