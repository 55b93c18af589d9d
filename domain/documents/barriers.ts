/**
 * Information barriers (spec 4.6 `barrier_id`): a barrier belongs to one tenant; an identity
 * that has *crossed* it may see the documents uploaded behind it. Crossings are recorded and
 * revoked through the admin API (http/routes/barriers) and are the source of truth: search
 * reads `crossedBarriers` fresh for every request (no cache), so a revocation takes effect on
 * the caller's next search. Revoked crossings are kept (revoked_at) as the audit trail.
 */

export interface Barrier {
  barrier_id: string;
  tenant_id: string;
  name: string;
  description: string;
  created_at: string;
  /** Identity id of the creator. */
  created_by: string;
  /** Identities that have crossed it now. */
  crossings: number;
}

export interface BarrierCrossing {
  barrier_id: string;
  identity_id: string;
  crossed_at: string;
  crossed_by: string;
  revoked_at: string | null;
  revoked_by: string | null;
}

export interface BarrierStore {
  /** 409 (conflict) when the tenant already has a barrier with this name. */
  create(tenantId: string, input: { name: string; description: string; createdBy: string }): Promise<Barrier>;
  get(tenantId: string, barrierId: string): Promise<Barrier | null>;
  /** The tenant's barriers, oldest first. */
  list(tenantId: string): Promise<Barrier[]>;
  /**
   * Records that `identityId` (a user of the tenant) crossed the barrier. Idempotent: an
   * active crossing is returned as is with `created: false`. 404 for an unknown barrier or
   * an identity that is not a user of the tenant.
   */
  cross(
    tenantId: string,
    barrierId: string,
    identityId: string,
    by: string,
  ): Promise<{ crossing: BarrierCrossing; created: boolean }>;
  /** Ends the active crossing; false when there was none. */
  revoke(tenantId: string, barrierId: string, identityId: string, by: string): Promise<boolean>;
  /** Crossings of one barrier, newest first; revoked ones only when asked. */
  crossings(tenantId: string, barrierId: string, opts?: { includeRevoked?: boolean }): Promise<BarrierCrossing[]>;
  /** Barrier ids the identity has crossed now — what AccessContext.barriers is built from. */
  crossedBarriers(tenantId: string, identityId: string): Promise<string[]>;
}
