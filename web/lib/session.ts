/**
 * Credentials of the signed-in user (docs/dashboard.md). The JWT and the dashboard's own
 * API key live in sessionStorage (this tab only, gone when it closes); the admin key lives
 * in memory only (gone on reload). Sign-out revokes the dashboard's API key if it made one.
 */
export interface Session {
  jwt: string | null;
  apiKey: string | null;
  /** The id of the key the dashboard created for itself (revoked at sign-out). */
  apiKeyId: string | null;
  adminKey: string | null;
}

const KEY = "cairn.session";
let adminKey: string | null = null;

export function session(): Session {
  const raw = sessionStorage.getItem(KEY);
  const s = raw ? (JSON.parse(raw) as Omit<Session, "adminKey">) : { jwt: null, apiKey: null, apiKeyId: null };
  return { ...s, adminKey };
}

export function saveSession(s: Partial<Session>): void {
  const cur = session();
  if (s.adminKey !== undefined) adminKey = s.adminKey;
  const { adminKey: _ignored, ...rest } = { ...cur, ...s };
  sessionStorage.setItem(KEY, JSON.stringify(rest));
}

export function clearSession(): void {
  sessionStorage.removeItem(KEY);
  adminKey = null;
}
