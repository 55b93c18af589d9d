/**
 * The control-plane store over a SqlClient. One implementation serves both adapters
 * (bun:sqlite and PostgreSQL); dialect differences live in the migrations and the
 * SqlClient, so the contract suite exercises the same code on both engines.
 */
import type {
  ApiKeyRecord,
  ControlPlaneStore,
  Migration,
  NewTenant,
  NewUser,
  ProvisioningState,
  SqlClient,
  Tenant,
  TenantPatch,
  UsageIncrement,
  UsageWriteResult,
  User,
} from "../../domain/ports.ts";
import type { UserTier } from "../../domain/user/tiers.ts";
import { migrate } from "../sql/migrate.ts";
import { CONTROL_PLANE_MIGRATIONS } from "./migrations.ts";
import { FreshUserCache } from "./user-cache.ts";

interface TenantRow {
  tenant_id: string;
  slug: string;
  display_name: string;
  tier: Tenant["tier"];
  region: string;
  provisioning_state: Tenant["provisioning_state"];
  is_active: number | boolean;
  provisioned_at: string;
  state_changed_at: string;
  completed_steps: string;
  failed_steps: string;
  last_error: string | null;
}

interface UserRow {
  id: number;
  tenant_id: string;
  email: string;
  name: string;
  tier: UserTier;
  email_verified: number | boolean;
  roles: string;
  barriers: string;
  created_at: string;
}

interface KeyRow {
  id: string;
  user_id: number;
  prefix: string;
  label: string;
  created_at: string;
  last_used_at: string | null;
}

const KEY_COLS = "id, user_id, prefix, label, created_at, last_used_at";

function toTenant(r: TenantRow): Tenant {
  return {
    ...r,
    is_active: Boolean(r.is_active),
    completed_steps: JSON.parse(r.completed_steps) as string[],
    failed_steps: JSON.parse(r.failed_steps) as string[],
  };
}

function toUser(r: UserRow): User {
  return {
    id: Number(r.id),
    tenant_id: r.tenant_id,
    email: r.email,
    name: r.name,
    tier: r.tier,
    email_verified: Boolean(r.email_verified),
    roles: JSON.parse(r.roles) as string[],
    barriers: JSON.parse(r.barriers) as string[],
    created_at: r.created_at,
  };
}

function toKey(r: KeyRow): ApiKeyRecord {
  return { ...r, user_id: Number(r.user_id) };
}

const now = () => new Date().toISOString();

/** SET clauses for a tenant patch; a state change also stamps state_changed_at. */
function tenantSets(patch: TenantPatch): { sets: string[]; params: (string | boolean | null)[] } {
  const sets: string[] = [];
  const params: (string | boolean | null)[] = [];
  for (const [k, v] of Object.entries(patch)) {
    if (v === undefined) continue;
    sets.push(`${k} = ?`);
    params.push(Array.isArray(v) ? JSON.stringify(v) : (v as string | boolean | null));
  }
  sets.push("state_changed_at = ?");
  params.push(now());
  return { sets, params };
}

export class SqlControlPlaneStore implements ControlPlaneStore {
  /**
   * User rows by id and by e-mail, exactly as fresh as a read (user-cache.ts): every bearer
   * request looks its user up, and the read was the largest cost of GET /v1/user/me. Made on
   * first use, once the database file and its WAL exist; null where the engine cannot tell
   * commits without a round trip (PostgreSQL).
   */
  private userCache: FreshUserCache | null | undefined;

  constructor(readonly sql: SqlClient) {}

  private users(): FreshUserCache | null {
    if (this.userCache === undefined) this.userCache = FreshUserCache.over(this.sql);
    return this.userCache;
  }

  async migrate(extra: Migration[] = []): Promise<void> {
    await migrate(this.sql, [...CONTROL_PLANE_MIGRATIONS, ...extra]);
  }

  async ping(): Promise<void> {
    await this.sql.get("SELECT 1 AS ok");
  }

  close(): Promise<void> {
    return this.sql.close();
  }

  async getSetting(key: string): Promise<string | null> {
    const row = await this.sql.get<{ value: string }>("SELECT value FROM settings WHERE key = ?", [key]);
    return row?.value ?? null;
  }

  async putSettingIfAbsent(key: string, value: string): Promise<string> {
    await this.sql.run("INSERT INTO settings (key, value, created_at) VALUES (?, ?, ?) ON CONFLICT (key) DO NOTHING", [
      key,
      value,
      now(),
    ]);
    return (await this.getSetting(key)) ?? value;
  }

  async createTenant(t: NewTenant): Promise<Tenant> {
    const at = now();
    const id = t.tenant_id ?? crypto.randomUUID();
    await this.sql.run(
      `INSERT INTO tenants (tenant_id, slug, display_name, tier, region, provisioning_state, is_active,
        provisioned_at, state_changed_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        id,
        t.slug,
        t.display_name,
        t.tier,
        t.region,
        t.provisioning_state ?? "provisioning",
        t.is_active ?? false,
        at,
        at,
      ],
    );
    return (await this.getTenant(id)) as Tenant;
  }

  async getTenant(tenantId: string): Promise<Tenant | null> {
    const r = await this.sql.get<TenantRow>("SELECT * FROM tenants WHERE tenant_id = ?", [tenantId]);
    return r ? toTenant(r) : null;
  }

  async getTenantBySlug(slug: string): Promise<Tenant | null> {
    const r = await this.sql.get<TenantRow>("SELECT * FROM tenants WHERE slug = ?", [slug]);
    return r ? toTenant(r) : null;
  }

  async listTenants(): Promise<Tenant[]> {
    const rows = await this.sql.all<TenantRow>("SELECT * FROM tenants ORDER BY provisioned_at, slug");
    return rows.map(toTenant);
  }

  async updateTenant(tenantId: string, patch: TenantPatch): Promise<Tenant> {
    const { sets, params } = tenantSets(patch);
    const r = await this.sql.run(`UPDATE tenants SET ${sets.join(", ")} WHERE tenant_id = ?`, [...params, tenantId]);
    if (r.changes === 0) throw new Error(`tenant ${tenantId} does not exist`);
    const t = await this.getTenant(tenantId);
    if (!t) throw new Error(`tenant ${tenantId} does not exist`);
    return t;
  }

  async transitionTenant(tenantId: string, from: ProvisioningState[], patch: TenantPatch): Promise<Tenant | null> {
    const { sets, params } = tenantSets(patch);
    if (from.length === 0) return null;
    const marks = from.map(() => "?").join(", ");
    const r = await this.sql.run(
      `UPDATE tenants SET ${sets.join(", ")} WHERE tenant_id = ? AND provisioning_state IN (${marks})`,
      [...params, tenantId, ...from],
    );
    return r.changes === 0 ? null : this.getTenant(tenantId);
  }

  async ensureTenantRoles(tenantId: string, roles: { role: string; description: string }[]): Promise<void> {
    const at = now();
    for (const r of roles) {
      await this.sql.run(
        `INSERT INTO tenant_roles (tenant_id, role, description, created_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (tenant_id, role) DO NOTHING`,
        [tenantId, r.role, r.description, at],
      );
    }
  }

  async listTenantRoles(tenantId: string): Promise<{ role: string; description: string }[]> {
    return this.sql.all("SELECT role, description FROM tenant_roles WHERE tenant_id = ? ORDER BY role", [tenantId]);
  }

  async getTenantSetting(tenantId: string, key: string): Promise<string | null> {
    const row = await this.sql.get<{ value: string }>(
      "SELECT value FROM tenant_settings WHERE tenant_id = ? AND key = ?",
      [tenantId, key],
    );
    return row?.value ?? null;
  }

  async putTenantSetting(tenantId: string, key: string, value: string): Promise<void> {
    await this.sql.run(
      `INSERT INTO tenant_settings (tenant_id, key, value, updated_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (tenant_id, key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
      [tenantId, key, value, now()],
    );
  }

  async deleteTenantSetting(tenantId: string, key: string): Promise<boolean> {
    const r = await this.sql.run("DELETE FROM tenant_settings WHERE tenant_id = ? AND key = ?", [tenantId, key]);
    return r.changes > 0;
  }

  async createUser(u: NewUser): Promise<User> {
    const row = await this.sql.get<UserRow>(
      `INSERT INTO users (tenant_id, email, name, tier, email_verified, roles, barriers, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING *`,
      [
        u.tenant_id,
        u.email.toLowerCase(),
        u.name,
        u.tier,
        u.email_verified ?? false,
        JSON.stringify(u.roles ?? []),
        JSON.stringify(u.barriers ?? []),
        now(),
      ],
    );
    return toUser(row as UserRow);
  }

  getUser(id: number): Promise<User | null> {
    const read = async () => {
      const r = await this.sql.get<UserRow>("SELECT * FROM users WHERE id = ?", [id]);
      return r ? toUser(r) : null;
    };
    return this.users()?.lookup(id, read) ?? read();
  }

  getUserByEmail(email: string): Promise<User | null> {
    const lower = email.toLowerCase();
    const read = async () => {
      const r = await this.sql.get<UserRow>("SELECT * FROM users WHERE email = ?", [lower]);
      return r ? toUser(r) : null;
    };
    return this.users()?.lookup(`email:${lower}`, read) ?? read();
  }

  async updateUser(
    id: number,
    patch: Partial<Pick<User, "name" | "tier" | "email_verified" | "roles" | "barriers">>,
  ): Promise<User> {
    const sets: string[] = [];
    const params: (string | boolean)[] = [];
    for (const [k, v] of Object.entries(patch)) {
      if (v === undefined) continue;
      sets.push(`${k} = ?`);
      params.push(Array.isArray(v) ? JSON.stringify(v) : (v as string | boolean));
    }
    if (sets.length > 0) await this.sql.run(`UPDATE users SET ${sets.join(", ")} WHERE id = ?`, [...params, id]);
    const u = await this.getUser(id);
    if (!u) throw new Error(`user ${id} does not exist`);
    return u;
  }

  async createApiKey(input: {
    userId: number;
    hash: string;
    prefix: string;
    label: string;
    maxKeys: number;
  }): Promise<ApiKeyRecord | null> {
    // Count and insert in one transaction so two concurrent creations cannot both pass the limit.
    return this.sql.transaction(async (tx) => {
      if (tx.dialect === "postgres") {
        await tx.run("SELECT id FROM users WHERE id = ? FOR UPDATE", [input.userId]);
      }
      const c = await tx.get<{ n: number }>("SELECT COUNT(*) AS n FROM api_keys WHERE user_id = ?", [input.userId]);
      if (Number(c?.n ?? 0) >= input.maxKeys) return null;
      const id = crypto.randomUUID();
      await tx.run(
        "INSERT INTO api_keys (id, user_id, key_hash, prefix, label, created_at) VALUES (?, ?, ?, ?, ?, ?)",
        [id, input.userId, input.hash, input.prefix, input.label, now()],
      );
      const row = await tx.get<KeyRow>(`SELECT ${KEY_COLS} FROM api_keys WHERE id = ?`, [id]);
      return toKey(row as KeyRow);
    });
  }

  async findUserByApiKeyHash(hash: string): Promise<{ key: ApiKeyRecord; user: User } | null> {
    // One round trip: this runs on every API-key request.
    const row = await this.sql.get<
      UserRow & { k_id: string; k_prefix: string; k_label: string; k_created_at: string; k_last_used_at: string | null }
    >(
      `SELECT u.*, k.id AS k_id, k.prefix AS k_prefix, k.label AS k_label, k.created_at AS k_created_at,
              k.last_used_at AS k_last_used_at
       FROM api_keys k JOIN users u ON u.id = k.user_id WHERE k.key_hash = ?`,
      [hash],
    );
    if (!row) return null;
    const key: ApiKeyRecord = {
      id: row.k_id,
      user_id: Number(row.id),
      prefix: row.k_prefix,
      label: row.k_label,
      created_at: row.k_created_at,
      last_used_at: row.k_last_used_at,
    };
    return { key, user: toUser(row) };
  }

  async listApiKeys(userId: number): Promise<ApiKeyRecord[]> {
    const rows = await this.sql.all<KeyRow>(
      `SELECT ${KEY_COLS} FROM api_keys WHERE user_id = ? ORDER BY created_at, id`,
      [userId],
    );
    return rows.map(toKey);
  }

  async deleteApiKey(userId: number, keyId: string): Promise<boolean> {
    const r = await this.sql.run("DELETE FROM api_keys WHERE id = ? AND user_id = ?", [keyId, userId]);
    return r.changes > 0;
  }

  async touchApiKeys(keyIds: string[], at: string): Promise<void> {
    if (keyIds.length === 0) return;
    const marks = keyIds.map(() => "?").join(", ");
    await this.sql.run(`UPDATE api_keys SET last_used_at = ? WHERE id IN (${marks})`, [at, ...keyIds]);
  }

  async addUsage(increments: UsageIncrement[]): Promise<UsageWriteResult> {
    const orphaned: UsageIncrement[] = [];
    if (increments.length === 0) return { orphaned };
    await this.sql.transaction(async (tx) => {
      for (const inc of increments) {
        // Only for a user that still exists: a deleted user's late counts would otherwise
        // fail the whole batch on the foreign key, every retry, forever. A delete that
        // races this statement (Postgres) still fails the batch once; the retry skips it.
        const r = await tx.run(
          `INSERT INTO usage_daily (user_id, day, count)
           SELECT CAST(? AS INTEGER), ?, CAST(? AS INTEGER) WHERE EXISTS (SELECT 1 FROM users WHERE id = ?)
           ON CONFLICT (user_id, day) DO UPDATE SET count = usage_daily.count + excluded.count`,
          [inc.userId, inc.day, inc.count, inc.userId],
        );
        if (r.changes === 0) orphaned.push(inc);
      }
    });
    return { orphaned };
  }

  async getUsage(userId: number, day: string): Promise<{ today: number; this_month: number }> {
    const month = day.slice(0, 7);
    const row = await this.sql.get<{ today: number | null; month: number | null }>(
      `SELECT SUM(CASE WHEN day = ? THEN count ELSE 0 END) AS today, SUM(count) AS month
       FROM usage_daily WHERE user_id = ? AND day >= ? AND day <= ?`,
      [day, userId, `${month}-01`, `${month}-31`],
    );
    return { today: Number(row?.today ?? 0), this_month: Number(row?.month ?? 0) };
  }
}
