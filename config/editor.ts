/** Editor collaboration (docs/collab.md) and the outgoing mail of e-mail sharing. */
import { z } from "zod";
import { optionalSecret, optionalUrl } from "./env.ts";

export const collabEnv = z.object({
  CAIRN_COLLAB_SECRET: optionalSecret(16),
  /** Collaboration rooms: save this long after the last change (docs/collab.md)... */
  CAIRN_COLLAB_DEBOUNCE_MS: z.coerce.number().int().min(0).max(600_000).default(2_000),
  /** ...but never later than this after the first unsaved change. */
  CAIRN_COLLAB_MAX_WAIT_MS: z.coerce.number().int().min(0).max(3_600_000).default(10_000),
  /** Grace after the last client leaves before a room is flushed and unloaded. */
  CAIRN_COLLAB_UNLOAD_MS: z.coerce.number().int().min(1).max(3_600_000).default(1_000),
  /** Set when the collaboration server runs apart: it loads, stores and authorises through this API. */
  CAIRN_COLLAB_API_URL: optionalUrl(["http", "https"]),
  /** Outgoing mail for POST /v1/share/email; unset = e-mail sharing answers 503. */
  CAIRN_SMTP_URL: optionalUrl(["smtp", "smtps"]),
  /** From address of shared mail; a bare address or `Name <address>`. */
  CAIRN_MAIL_FROM: z
    .string()
    .trim()
    .regex(/^(?:[^<>\r\n]{0,100}<[^\s<>@]+@[^\s<>@]+>|[^\s<>@]+@[^\s<>@]+)$/, "must be an address or Name <address>")
    .default("Cairn <no-reply@cairn.local>"),
});

export type CollabEnv = z.infer<typeof collabEnv>;

export interface CollabConfig {
  readonly collabSecret: string | undefined;
  /** Collaboration rooms (docs/collab.md); apiUrl set = persistence and auth over HTTP. */
  readonly collab: { debounceMs: number; maxWaitMs: number; unloadMs: number; apiUrl: string | undefined };
  /** SMTP server for e-mail sharing; null = not configured. */
  readonly mail: { url: string; from: string } | null;
}

export function collabConfig(e: CollabEnv): CollabConfig {
  return {
    collabSecret: e.CAIRN_COLLAB_SECRET,
    collab: {
      debounceMs: e.CAIRN_COLLAB_DEBOUNCE_MS,
      maxWaitMs: Math.max(e.CAIRN_COLLAB_MAX_WAIT_MS, e.CAIRN_COLLAB_DEBOUNCE_MS),
      unloadMs: e.CAIRN_COLLAB_UNLOAD_MS,
      apiUrl: e.CAIRN_COLLAB_API_URL,
    },
    mail: e.CAIRN_SMTP_URL ? { url: e.CAIRN_SMTP_URL, from: e.CAIRN_MAIL_FROM } : null,
  };
}
