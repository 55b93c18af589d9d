/**
 * Per-tenant namespaces in every engine (ARCHITECTURE "Isolation by design"). The
 * provisioning pipeline drives each engine through this port: create if absent, then
 * verify; a smoke test writes, reads back and deletes a probe record.
 */

export interface TenantRef {
  tenantId: string;
  slug: string;
}

export type NamespaceEngine = "document_index" | "lakehouse" | "timeseries" | "graph";

export interface NamespacePort {
  readonly engine: NamespaceEngine;
  /** The namespace name for a tenant (index name, Iceberg namespace, table prefix, label prefix). */
  namespaceOf(t: TenantRef): string;
  /** Creates the namespace when absent, then verifies it. Idempotent; returns its name. */
  ensureNamespace(t: TenantRef): Promise<string>;
  /** True when the namespace exists and is usable. */
  namespaceExists(t: TenantRef): Promise<boolean>;
  /** Removes the namespace and everything in it (tests and explicit purges only). */
  dropNamespace(t: TenantRef): Promise<void>;
  /** Writes a probe record, reads it back and deletes it; throws with the reason on failure. */
  smokeTest(t: TenantRef): Promise<void>;
  /** Every namespace this engine holds (tests prove "exactly one" with it). */
  listNamespaces(): Promise<string[]>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** Tenant slugs are URL-safe (`a-z0-9-`); engines that dislike hyphens get underscores. */
export function slugIdent(slug: string): string {
  return slug.replaceAll("-", "_");
}

/** `svc_tenant_{slug}` (spec 1.10), hyphens as underscores so Spark SQL needs no quoting. */
export function lakehouseNamespace(slug: string): string {
  return `svc_tenant_${slugIdent(slug)}`;
}

/** `client-docs-{tenant_id}` (spec 1.10). */
export function documentIndexName(tenantId: string): string {
  return `client-docs-${tenantId}`;
}

/** Prefix for a tenant's time-series tables and graph labels: `t_<32 hex of the tenant UUID>`. */
export function tenantPrefix(tenantId: string): string {
  return `t_${tenantId.replaceAll("-", "").toLowerCase()}`;
}
