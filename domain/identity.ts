/** Who is calling. Every authenticated request carries exactly one Identity. */
import type { User } from "./ports.ts";

export type AuthScheme = "jwt" | "api_key" | "api_key_and_jwt" | "admin_key" | "collab_secret" | "none";

export type Identity =
  | {
      kind: "user";
      /** How the caller proved it: a bearer JWT, an API key, or both (editor REST). */
      via: "jwt" | "api_key" | "api_key_and_jwt";
      user: User;
      tenantId: string;
      roles: readonly string[];
      barriers: readonly string[];
      apiKeyId: string | null;
    }
  | { kind: "admin" }
  | { kind: "collab" }
  | { kind: "anonymous" };

export type UserIdentity = Extract<Identity, { kind: "user" }>;

export function userIdentity(user: User, via: UserIdentity["via"], apiKeyId: string | null = null): UserIdentity {
  return { kind: "user", via, user, tenantId: user.tenant_id, roles: user.roles, barriers: user.barriers, apiKeyId };
}
