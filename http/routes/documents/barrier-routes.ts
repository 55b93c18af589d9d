/**
 * Information barriers (spec 4.6 `barrier_id`; the API itself is not in the spec, see
 * docs/decisions.md): a tenant's owners create barriers and record or revoke that an
 * identity crossed one. Bearer JWT of a user with the `owner` role; the tenant is the
 * token's, so no request can reach another tenant's barriers. Search reads crossings fresh,
 * so a revocation applies to the identity's next search.
 */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { Barrier, BarrierCrossing } from "../../../domain/documents/barriers.ts";
import type { BarrierService } from "../../../domain/documents/barriers-service.ts";
import type { UserIdentity } from "../../../domain/identity.ts";
import { type Guards, SECURITY } from "../../auth/guards.ts";
import type { AppEnv } from "../../context.ts";
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

/** Owners only: the service refuses (403) any other caller before it reads anything. */
const adminOf = (barriers: BarrierService) => (c: { get(k: "identity"): unknown }) =>
  barriers.admin(c.get("identity") as UserIdentity);

const baseOf = (guards: Guards) => ({ security: SECURITY.jwt, middleware: guards.jwt, tags: ["Information barriers"] });

/** The barrier admin API: barriers first, then their crossings (the OpenAPI document's order). */
export function registerBarrierRoutes(app: OpenAPIHono<AppEnv>, barriers: BarrierService, guards: Guards): void {
  registerBarrierResources(app, barriers, guards);
  registerCrossingRoutes(app, barriers, guards);
}

/** Create, list and read barriers. */
function registerBarrierResources(app: OpenAPIHono<AppEnv>, barriers: BarrierService, guards: Guards): void {
  const base = baseOf(guards);
  const caller = adminOf(barriers);

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
      const body = c.req.valid("json");
      const b = await barriers.create(caller(c), { name: body.name, description: body.description });
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
    async (c) => c.json((await barriers.list(caller(c))).map(barrierOut), 200),
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
      const admin = caller(c);
      const { barrier_id } = c.req.valid("param");
      const includeRevoked = c.req.valid("query").include_revoked;
      const { barrier, crossings } = await barriers.detail(admin, barrier_id, { includeRevoked });
      return c.json({ ...barrierOut(barrier), crossed_by: crossings.map(crossingOut) }, 200);
    },
  );
}

/** Record and revoke crossings. */
function registerCrossingRoutes(app: OpenAPIHono<AppEnv>, barriers: BarrierService, guards: Guards): void {
  const base = baseOf(guards);
  const caller = adminOf(barriers);

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
      const admin = caller(c);
      const { barrier_id } = c.req.valid("param");
      const { identity_id } = c.req.valid("json");
      const r = await barriers.cross(admin, barrier_id, identity_id);
      c.get("log").logger.info({ barrier_id, identity_id, by: admin.by, created: r.created }, "barrier crossed");
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
      const admin = caller(c);
      const { barrier_id, identity_id } = c.req.valid("param");
      await barriers.revoke(admin, barrier_id, identity_id);
      c.get("log").logger.info({ barrier_id, identity_id, by: admin.by }, "barrier crossing revoked");
      return c.body(null, 204);
    },
  );
}
