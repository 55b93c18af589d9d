/** The MCP server (docs/mcp.md): where it is mounted, how tools/list pages and how big a result may be. */
import { z } from "zod";

export const mcpEnv = z.object({
  /**
   * Base path of the docs and the tool-protocol server (spec 4.10 `{docs_url}/mcp`): "" mounts
   * it at /mcp, "/api" at /api/mcp. A path, not a URL: the host is whatever serves this app.
   */
  CAIRN_DOCS_URL: z
    .string()
    .trim()
    .regex(/^(\/[A-Za-z0-9._~-]+)*$/, "must be empty or a path like /api (no trailing slash)")
    .default(""),
  /**
   * Browser origins allowed to call the MCP route (comma-separated `scheme://host[:port]`). A
   * request with an Origin header that is neither listed nor a loopback origin is refused (403):
   * the transport's DNS-rebinding rule. Non-browser agents send no Origin and are unaffected.
   */
  CAIRN_MCP_ALLOWED_ORIGINS: z
    .string()
    .optional()
    .transform((v) =>
      (v ?? "")
        .split(",")
        .map((s) => s.trim().replace(/\/$/, ""))
        .filter(Boolean),
    )
    .refine((list) => list.every((o) => /^https?:\/\/[^/\s]+$/.test(o)), "each entry must be scheme://host[:port]"),
  /** Tools per tools/list page (the rest behind nextCursor). */
  CAIRN_MCP_PAGE_SIZE: z.coerce.number().int().min(1).max(1_000).default(50),
  /** A tool result's JSON is cut (with a marker and a way to get the rest) past this many bytes. */
  CAIRN_MCP_MAX_RESULT_BYTES: z.coerce
    .number()
    .int()
    .min(1_024)
    .max(16 * 1024 * 1024)
    .default(256 * 1024),
});

export type McpEnv = z.infer<typeof mcpEnv>;

export interface McpSettings {
  /** The route: `${docsUrl}/mcp`. */
  path: string;
  allowedOrigins: string[];
  pageSize: number;
  maxResultBytes: number;
}

export interface McpConfig {
  readonly mcp: McpSettings;
}

export function mcpConfig(e: McpEnv): McpConfig {
  return {
    mcp: {
      path: `${e.CAIRN_DOCS_URL}/mcp`,
      allowedOrigins: e.CAIRN_MCP_ALLOWED_ORIGINS,
      pageSize: e.CAIRN_MCP_PAGE_SIZE,
      maxResultBytes: e.CAIRN_MCP_MAX_RESULT_BYTES,
    },
  };
}
