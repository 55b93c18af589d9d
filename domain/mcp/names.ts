/**
 * Tool names from method and path (spec 4.10: "a tool named by its method and path"), within
 * the protocol's rule for names: 1 to 64 characters of [A-Za-z0-9_-] (docs/mcp.md).
 *
 * `GET /v1/financials/{cik}/ratios` -> `get_v1_financials_cik_ratios`: the method in lower
 * case, then the path's segments in order with the braces of a parameter dropped, every
 * character outside the set becoming `_`, runs of `_` collapsed. A name that would pass 64
 * characters keeps its first 55 and ends in `_` plus 8 hex digits of a hash of the whole
 * `METHOD path`, so it stays stable and distinct.
 */

export const MAX_TOOL_NAME = 64;
const NAME_RE = /^[A-Za-z0-9_-]{1,64}$/;

export function isToolName(name: string): boolean {
  return NAME_RE.test(name);
}

/** FNV-1a over the text: 8 hex digits, the same in every process (no salt). */
export function shortHash(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(16).padStart(8, "0");
}

/** The readable name of one operation, before collisions are resolved. */
export function baseToolName(method: string, path: string): string {
  const raw = `${method.toLowerCase()}_${path.replace(/[{}]/g, "")}`
    .replace(/[^A-Za-z0-9_-]/g, "_")
    .replace(/_+/g, "_")
    .replace(/_$/, "");
  if (raw.length <= MAX_TOOL_NAME) return raw;
  return `${raw.slice(0, MAX_TOOL_NAME - 9)}_${shortHash(`${method.toUpperCase()} ${path}`)}`;
}

/**
 * Names for a set of operations. Two operations whose readable names coincide (say
 * `/v1/companies/{cik}` and a literal `/v1/companies/cik`) both get `_` plus the hash of their
 * own `METHOD path` (cut to fit), so neither name depends on which route was declared first.
 */
export function toolNames(ops: readonly { method: string; path: string }[]): string[] {
  const base = ops.map((o) => baseToolName(o.method, o.path));
  const count = new Map<string, number>();
  for (const b of base) count.set(b, (count.get(b) ?? 0) + 1);
  return base.map((b, i) => {
    if (count.get(b) === 1) return b;
    const op = ops[i] as { method: string; path: string };
    return `${b.slice(0, MAX_TOOL_NAME - 9)}_${shortHash(`${op.method.toUpperCase()} ${op.path}`)}`;
  });
}
