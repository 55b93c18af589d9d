/**
 * 405 for a path that exists under other methods (TRACE, or PUT on a GET-only route), with
 * the Allow header RFC 9110 asks for; unknown paths stay 404. The route table is Hono's own
 * (app.routes), compiled once on first use.
 */
interface RouteEntry {
  method: string;
  path: string;
}

function patternOf(path: string): RegExp {
  let re = "";
  for (const part of path.split("/").slice(1)) {
    re += "/";
    const param = /^:[\w-]+(\{(.+)\})?$/.exec(part);
    if (param) re += param[2] ? `(?:${param[2]})` : "[^/]+";
    else if (part === "*") re += ".*";
    else re += part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  }
  return new RegExp(`^${re || "/"}/?$`);
}

/** Methods the app serves at a path, from its route table; empty for an unknown path. */
export function methodsMatcher(routes: () => readonly RouteEntry[]): (path: string) => string[] {
  let compiled: { method: string; re: RegExp }[] | null = null;
  return (path) => {
    compiled ??= routes()
      .filter((r) => r.method !== "ALL" && r.path !== "*" && r.path !== "/*")
      .map((r) => ({ method: r.method.toUpperCase(), re: patternOf(r.path) }));
    const methods = new Set(compiled.filter((r) => r.re.test(path)).map((r) => r.method));
    if (methods.has("GET")) methods.add("HEAD");
    return [...methods].sort();
  };
}
