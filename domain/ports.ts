/**
 * The store, queue and counter interfaces every adapter implements. Each port has a
 * contract suite under test/contracts that runs unchanged against every adapter.
 */
import type { UserTier } from "./user/tiers.ts";

// ---------------------------------------------------------------------------
// Relational access shared by the control plane and the embedded job queue.

export type SqlDialect = "sqlite" | "postgres";
export type SqlParam = string | number | boolean | null | bigint | Uint8Array;

/**
 * A minimal SQL client. Statements use `?` placeholders; the Postgres adapter rewrites
 * them to `$n`. Booleans are bound as 0/1 on SQLite. Timestamps are ISO-8601 TEXT in
 * both dialects so ordering and comparison behave the same.
 */
export interface SqlClient {
  readonly dialect: SqlDialect;
  all<T = Record<string, unknown>>(sql: string, params?: SqlParam[]): Promise<T[]>;
  get<T = Record<string, unknown>>(sql: string, params?: SqlParam[]): Promise<T | undefined>;
  run(sql: string, params?: SqlParam[]): Promise<{ changes: number }>;
  /** Several statements separated by semicolons, no parameters (migrations). */
  exec(sql: string): Promise<void>;
  /** Runs fn inside one transaction; statements of other callers wait until it ends. */
  transaction<T>(fn: (tx: SqlClient) => Promise<T>): Promise<T>;
  close(): Promise<void>;
  /**
   * Where the engine can tell without a round trip: a watcher whose changed() is true
   * whenever anything was committed (by any connection) since its previous call. Lets a
   * cache stay exactly as fresh as a read; absent or null where the engine cannot.
   */
  changeWatcher?(): { changed(): boolean } | null;
}

export interface Migration {
  /** Unique id, namespaced by module, e.g. "cp:001_users". Applied in array order. */
  id: string;
  sqlite: string;
  postgres: string;
}

// ---------------------------------------------------------------------------
// Control plane: tenants, users, API keys, usage, installation settings.

export const TENANT_TIERS = ["pilot", "enterprise", "enterprise_plus"] as const;
export type TenantTier = (typeof TENANT_TIERS)[number];
export const PROVISIONING_STATES = ["provisioning", "active", "failed", "deprovisioned"] as const;
export type ProvisioningState = (typeof PROVISIONING_STATES)[number];

export interface Tenant {
  tenant_id: string;
  slug: string;
  display_name: string;
  tier: TenantTier;
  region: string;
  provisioning_state: ProvisioningState;
  is_active: boolean;
  provisioned_at: string;
  state_changed_at: string;
  completed_steps: string[];
  failed_steps: string[];
  last_error: string | null;
}

export interface NewTenant {
  tenant_id?: string;
  slug: string;
  display_name: string;
  tier: TenantTier;
  region: string;
  provisioning_state?: ProvisioningState;
  is_active?: boolean;
}

export type TenantPatch = Partial<
  Pick<
    Tenant,
    | "display_name"
    | "tier"
    | "region"
    | "provisioning_state"
    | "is_active"
    | "completed_steps"
    | "failed_steps"
    | "last_error"
  >
>;

export interface User {
  id: number;
  tenant_id: string;
  email: string;
  name: string;
  tier: UserTier;
  email_verified: boolean;
  /** Role slugs within the tenant (viewer, editor, owner, analyst, ...). */
  roles: string[];
  /** Information-barrier UUIDs this user has crossed. */
  barriers: string[];
  created_at: string;
}

export interface NewUser {
  tenant_id: string;
  email: string;
  name: string;
  tier: UserTier;
  email_verified?: boolean;
  roles?: string[];
  barriers?: string[];
}

export interface ApiKeyRecord {
  id: string;
  user_id: number;
  /** The first characters of the key, shown in the dashboard to tell keys apart. */
  prefix: string;
  label: string;
  created_at: string;
  last_used_at: string | null;
}

export interface UsageIncrement {
  userId: number;
  /** UTC day, YYYY-MM-DD. */
  day: string;
  count: number;
}

/** What addUsage did with a batch: every increment is either written or returned here. */
export interface UsageWriteResult {
  /**
   * Increments whose user no longer exists (deleted after the request was counted). They
   * are not written (there is nothing to count them against) and must not be retried.
   */
  orphaned: UsageIncrement[];
}

export interface ControlPlaneStore {
  readonly sql: SqlClient;
  /** Applies pending migrations (this module's and any registered by other modules). */
  migrate(extra?: Migration[]): Promise<void>;
  ping(): Promise<void>;
  close(): Promise<void>;

  /** Installation-wide settings (generated secrets). Returns the stored value (first writer wins). */
  getSetting(key: string): Promise<string | null>;
  putSettingIfAbsent(key: string, value: string): Promise<string>;

  createTenant(t: NewTenant): Promise<Tenant>;
  getTenant(tenantId: string): Promise<Tenant | null>;
  getTenantBySlug(slug: string): Promise<Tenant | null>;
  listTenants(): Promise<Tenant[]>;
  updateTenant(tenantId: string, patch: TenantPatch): Promise<Tenant>;
  /**
   * Applies the patch only while the tenant is in one of `from` states (compare-and-set);
   * returns the updated tenant, or null when the state did not match.
   */
  transitionTenant(tenantId: string, from: ProvisioningState[], patch: TenantPatch): Promise<Tenant | null>;

  /** Inserts the roles that are missing; existing ones are left as they are. */
  ensureTenantRoles(tenantId: string, roles: { role: string; description: string }[]): Promise<void>;
  listTenantRoles(tenantId: string): Promise<{ role: string; description: string }[]>;
  getTenantSetting(tenantId: string, key: string): Promise<string | null>;
  putTenantSetting(tenantId: string, key: string, value: string): Promise<void>;
  deleteTenantSetting(tenantId: string, key: string): Promise<boolean>;

  createUser(u: NewUser): Promise<User>;
  getUser(id: number): Promise<User | null>;
  getUserByEmail(email: string): Promise<User | null>;
  updateUser(
    id: number,
    patch: Partial<Pick<User, "name" | "tier" | "email_verified" | "roles" | "barriers">>,
  ): Promise<User>;

  /** Inserts a key unless the user already has maxKeys; returns null when at the limit. */
  createApiKey(input: {
    userId: number;
    hash: string;
    prefix: string;
    label: string;
    maxKeys: number;
  }): Promise<ApiKeyRecord | null>;
  findUserByApiKeyHash(hash: string): Promise<{ key: ApiKeyRecord; user: User } | null>;
  listApiKeys(userId: number): Promise<ApiKeyRecord[]>;
  deleteApiKey(userId: number, keyId: string): Promise<boolean>;
  touchApiKeys(keyIds: string[], at: string): Promise<void>;

  /**
   * Adds the increments in one transaction: all of them are written or none (an error).
   * Increments of users that no longer exist are skipped and returned, so one deleted user
   * cannot fail the batch.
   */
  addUsage(increments: UsageIncrement[]): Promise<UsageWriteResult>;
  getUsage(userId: number, day: string): Promise<{ today: number; this_month: number }>;
}

// ---------------------------------------------------------------------------
// Durable job queue.

export type JobStatus = "waiting" | "active" | "completed" | "failed" | "delayed";
export type JsonValue = string | number | boolean | null | JsonValue[] | { [k: string]: JsonValue };

export interface EnqueueOptions {
  /** Deduplicates: enqueueing an existing id returns the existing job. */
  jobId?: string;
  /** Total tries including the first (default 3). */
  attempts?: number;
  /** Exponential backoff base in ms: delay = base * 2^(attempt-1) (default 1000). */
  backoffMs?: number;
  delayMs?: number;
}

export interface JobInfo {
  id: string;
  queue: string;
  name: string;
  data: JsonValue;
  status: JobStatus;
  attemptsMade: number;
  maxAttempts: number;
  progress: JsonValue;
  result: JsonValue | null;
  error: string | null;
  createdAt: string;
  finishedAt: string | null;
}

export interface JobContext {
  readonly id: string;
  readonly name: string;
  readonly data: JsonValue;
  readonly attempt: number;
  progress(value: JsonValue): Promise<void>;
}

export type JobHandler = (job: JobContext) => Promise<JsonValue | undefined>;

export type JobEvent =
  | { type: "progress"; queue: string; jobId: string; progress: JsonValue }
  | { type: "completed"; queue: string; jobId: string; result: JsonValue | null }
  | { type: "failed"; queue: string; jobId: string; error: string; willRetry: boolean };

export interface JobWorker {
  /** Stops fetching, waits for in-flight jobs to finish, runs cleanups. */
  close(): Promise<void>;
}

export interface JobQueue {
  enqueue(queue: string, name: string, data: JsonValue, opts?: EnqueueOptions): Promise<JobInfo>;
  getJob(queue: string, id: string): Promise<JobInfo | null>;
  /** Pulls jobs while in-flight < concurrency. */
  work(queue: string, handler: JobHandler, opts?: { concurrency?: number }): JobWorker;
  onEvent(queue: string, listener: (e: JobEvent) => void): () => void;
  ping(): Promise<void>;
  close(): Promise<void>;
}

// ---------------------------------------------------------------------------
// Counters (rate limits) and cross-node fan-out.

export interface CounterStore {
  /**
   * Increments each key by 1 and returns the new values in order. A key that did not
   * exist starts at 0 and expires after its ttlMs.
   */
  incr(keys: { key: string; ttlMs: number }[]): Promise<number[]>;
  /**
   * In-process stores only: one key's incr() done synchronously, same rules. Lets the
   * rate limiter decide without two promise turns per request; absent on network stores.
   */
  incrNow?(key: string, ttlMs: number): number;
  get(key: string): Promise<number>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

export interface PubSub {
  publish(channel: string, message: string): Promise<void>;
  /** Resolves once the subscription is live; returns an unsubscribe function. */
  subscribe(channel: string, listener: (message: string) => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

/** Something /readyz pings: the control plane, the job queue, the counters. */
export interface Pingable {
  ping(): Promise<void>;
}
