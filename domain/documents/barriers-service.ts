/**
 * BarrierService: the information-barrier administration behind /v1/admin/barriers. Only a
 * user of the tenant with the owner role may manage barriers, and only its own tenant's (the
 * tenant comes from the verified identity, never from the request). Lookups that find
 * nothing become 404s here, so the routes only validate, call and respond.
 */
import { AppError } from "../errors.ts";
import type { UserIdentity } from "../identity.ts";
import type { Barrier, BarrierCrossing } from "./barriers.ts";
import type { BarrierStore } from "./ports.ts";

export const BARRIER_ADMIN_ROLE = "owner";

/** A caller allowed to manage its tenant's barriers; `by` is its identity id. */
export interface BarrierAdmin {
  tenantId: string;
  by: string;
}

export class BarrierService {
  constructor(private readonly store: BarrierStore) {}

  /** The caller, when it may manage barriers: a user of the tenant with the owner role (403 otherwise). */
  admin(identity: UserIdentity): BarrierAdmin {
    if (!identity.roles.includes(BARRIER_ADMIN_ROLE)) {
      throw new AppError("forbidden", `Managing information barriers requires the ${BARRIER_ADMIN_ROLE} role`);
    }
    return { tenantId: identity.tenantId, by: String(identity.user.id) };
  }

  /** 409 (conflict) when the tenant already has a barrier with this name. */
  create(admin: BarrierAdmin, input: { name: string; description: string }): Promise<Barrier> {
    return this.store.create(admin.tenantId, { name: input.name, description: input.description, createdBy: admin.by });
  }

  /** The tenant's barriers, oldest first. */
  list(admin: BarrierAdmin): Promise<Barrier[]> {
    return this.store.list(admin.tenantId);
  }

  /** One barrier with its crossings (revoked ones only when asked); 404 when the tenant has no such barrier. */
  async detail(
    admin: BarrierAdmin,
    barrierId: string,
    opts: { includeRevoked?: boolean | undefined },
  ): Promise<{ barrier: Barrier; crossings: BarrierCrossing[] }> {
    const barrier = await this.store.get(admin.tenantId, barrierId);
    if (!barrier) throw new AppError("not_found", `No barrier ${barrierId}`);
    const crossings = await this.store.crossings(admin.tenantId, barrierId, opts);
    return { barrier, crossings };
  }

  /** Records a crossing (idempotent: an active one comes back with `created: false`). */
  cross(
    admin: BarrierAdmin,
    barrierId: string,
    identityId: string,
  ): Promise<{ crossing: BarrierCrossing; created: boolean }> {
    return this.store.cross(admin.tenantId, barrierId, identityId, admin.by);
  }

  /** Ends the identity's active crossing; 404 when it has none. */
  async revoke(admin: BarrierAdmin, barrierId: string, identityId: string): Promise<void> {
    if (!(await this.store.revoke(admin.tenantId, barrierId, identityId, admin.by))) {
      throw new AppError("not_found", `Identity ${identityId} has not crossed barrier ${barrierId}`);
    }
  }
}
