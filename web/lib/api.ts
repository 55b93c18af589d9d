/**
 * The API client: every call goes to the public API (/openapi.json) with the session's
 * credentials. Errors keep the contract's body (spec 7): validation details carry `loc`,
 * so a page can show each message next to its field.
 */
import { session } from "./session.ts";

export interface Issue {
  loc: (string | number)[];
  msg: string;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string | Issue[],
  ) {
    super(typeof detail === "string" ? detail : detail.map((i) => `${i.loc.slice(-1)[0]}: ${i.msg}`).join("; "));
  }
  /** The message for one field (last element of loc), or null. */
  forField(name: string): string | null {
    if (typeof this.detail === "string") return null;
    const hit = this.detail.find((i) => String(i.loc[i.loc.length - 1]) === name);
    return hit ? hit.msg : null;
  }
}

/** jwt: Bearer; key: X-API-Key; both: the editor routes want the two together (same tenant). */
export type Auth = "jwt" | "key" | "both" | "admin" | "none";

export interface CallOptions {
  auth?: Auth;
  method?: string;
  body?: unknown;
  query?: Record<string, string | number | undefined | null>;
  signal?: AbortSignal;
}

function headersFor(auth: Auth): Record<string, string> {
  const s = session();
  if (auth === "jwt") return s.jwt ? { Authorization: `Bearer ${s.jwt}` } : {};
  if (auth === "key") return s.apiKey ? { "X-API-Key": s.apiKey } : {};
  if (auth === "both") return { ...headersFor("jwt"), ...headersFor("key") };
  if (auth === "admin") return s.adminKey ? { "X-API-Key": s.adminKey } : {};
  return {};
}

export function url(path: string, query?: CallOptions["query"]): string {
  const u = new URL(path, location.origin);
  for (const [k, v] of Object.entries(query ?? {}))
    if (v !== undefined && v !== null && v !== "") u.searchParams.set(k, String(v));
  return u.pathname + u.search;
}

export async function call<T>(path: string, opts: CallOptions = {}): Promise<T> {
  const headers: Record<string, string> = headersFor(opts.auth ?? "jwt");
  let body: BodyInit | undefined;
  if (opts.body instanceof FormData) body = opts.body;
  else if (opts.body !== undefined) {
    headers["Content-Type"] = "application/json";
    body = JSON.stringify(opts.body);
  }
  const res = await fetch(url(path, opts.query), {
    method: opts.method ?? (body ? "POST" : "GET"),
    headers,
    body,
    signal: opts.signal,
  });
  if (res.status === 204) return undefined as T;
  const text = await res.text();
  const json = text ? safeJson(text) : null;
  if (!res.ok) {
    const detail = (json as { detail?: string | Issue[] } | null)?.detail ?? `HTTP ${res.status}`;
    throw new ApiError(res.status, detail);
  }
  return json as T;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return { detail: text.slice(0, 200) };
  }
}

/** Shows an error next to the form's fields (by name), the rest in `fallback`. */
export function showErrors(err: unknown, form: HTMLElement, fallback: HTMLElement): void {
  form.querySelectorAll(".field-error").forEach((el) => {
    el.textContent = "";
  });
  if (!(err instanceof ApiError)) {
    fallback.textContent = err instanceof Error ? err.message : String(err);
    return;
  }
  let placed = false;
  if (typeof err.detail !== "string") {
    for (const issue of err.detail) {
      const name = String(issue.loc[issue.loc.length - 1]);
      const input = form.querySelector<HTMLElement>(`[name="${CSS.escape(name)}"]`);
      const slot = input ? form.querySelector(`#${CSS.escape(input.id)}-err`) : null;
      if (slot) {
        slot.textContent = issue.msg;
        placed = true;
      }
    }
  }
  fallback.textContent = placed ? "" : `${err.status}: ${err.message}`;
}
