/**
 * The collaboration server's ports over HTTP, for a collaboration deployment apart from
 * the API (CAIRN_COLLAB_API_URL): persistence through the internal
 * `PUT /v1/editor/documents/{doc_id}/yjs` (X-Collab-Secret, base64 state) and
 * `GET /v1/editor/documents/{doc_id}/yjs` (same secret; answers {yjs_state: base64 | null}),
 * authorisation through the `POST /v1/editor/hocuspocus/auth` webhook. Refusals come back
 * as AppError with the API's code, so sockets answer exactly as in-process.
 */
import type { CollabAuthorizer, CollabGrant, CollabPersistence } from "../../domain/editor/ports.ts";
import type { EditorRole, UpdatedBy } from "../../domain/editor/types.ts";
import { AppError, type ErrorCode } from "../../domain/errors.ts";

export interface HttpCollabOptions {
  /** The API's base URL, e.g. https://api.example.com */
  baseUrl: string;
  /** The installation's collaboration secret (X-Collab-Secret). */
  secret: string;
  timeoutMs?: number;
  fetch?: typeof fetch;
}

const STATUS_CODES: Record<number, ErrorCode> = {
  400: "bad_request",
  401: "unauthenticated",
  403: "forbidden",
  404: "not_found",
  409: "conflict",
  413: "payload_too_large",
  422: "validation",
  429: "rate_limited",
};

async function failure(res: Response, what: string): Promise<AppError> {
  let detail = "";
  try {
    const body = (await res.json()) as { detail?: unknown };
    detail = typeof body.detail === "string" ? body.detail : JSON.stringify(body.detail ?? "");
  } catch {
    detail = res.statusText;
  }
  return new AppError(STATUS_CODES[res.status] ?? "unavailable", `${what}: HTTP ${res.status} ${detail}`.trim());
}

abstract class HttpPort {
  protected readonly base: string;
  protected readonly fetch: typeof fetch;
  protected readonly timeoutMs: number;

  constructor(protected readonly opts: HttpCollabOptions) {
    this.base = opts.baseUrl.replace(/\/+$/, "");
    this.fetch = opts.fetch ?? fetch;
    this.timeoutMs = opts.timeoutMs ?? 10_000;
  }

  protected call(path: string, init: RequestInit): Promise<Response> {
    return this.fetch(`${this.base}${path}`, { ...init, signal: AbortSignal.timeout(this.timeoutMs) });
  }
}

export class HttpCollabPersistence extends HttpPort implements CollabPersistence {
  async load(docId: string): Promise<Uint8Array | null> {
    const res = await this.call(`/v1/editor/documents/${encodeURIComponent(docId)}/yjs`, {
      method: "GET",
      headers: { "X-Collab-Secret": this.opts.secret },
    });
    if (!res.ok) throw await failure(res, `loading document ${docId}`);
    const body = (await res.json()) as { yjs_state?: string | null };
    if (body.yjs_state === null || body.yjs_state === undefined || body.yjs_state === "") return null;
    return new Uint8Array(Buffer.from(body.yjs_state, "base64"));
  }

  async store(docId: string, state: Uint8Array, by: UpdatedBy): Promise<void> {
    const res = await this.call(`/v1/editor/documents/${encodeURIComponent(docId)}/yjs`, {
      method: "PUT",
      headers: { "X-Collab-Secret": this.opts.secret, "Content-Type": "application/json" },
      body: JSON.stringify({
        yjs_state: Buffer.from(state.buffer, state.byteOffset, state.byteLength).toString("base64"),
        updated_by_type: by.updated_by_type,
        updated_by_id: by.updated_by_id,
      }),
    });
    if (!res.ok) throw await failure(res, `storing document ${docId}`);
    await res.body?.cancel();
  }
}

export class HttpCollabAuthorizer extends HttpPort implements CollabAuthorizer {
  async authorize(token: string, documentName: string): Promise<CollabGrant> {
    const res = await this.call("/v1/editor/hocuspocus/auth", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ token, documentName, requestParameters: {} }),
    });
    if (!res.ok) throw await failure(res, "authorising the connection");
    const body = (await res.json()) as {
      read_only: boolean;
      role: EditorRole;
      tenant_id: string;
      user: { id: number };
    };
    return { readOnly: body.read_only, role: body.role, tenantId: body.tenant_id, userId: body.user.id };
  }
}
