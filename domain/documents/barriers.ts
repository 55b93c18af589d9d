/**
 * Information barriers (spec 4.6 `barrier_id`): a barrier belongs to one tenant; an identity
 * that has *crossed* it may see the documents uploaded behind it. Crossings are recorded and
 * revoked through the admin API (BarrierService in barriers-service.ts, over the BarrierStore
 * port in ports.ts) and are the source of truth: search reads `crossedBarriers` fresh for every request (no cache), so a revocation takes effect on
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
