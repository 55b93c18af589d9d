/**
 * Refuses JSON nested past MAX_JSON_DEPTH before anything parses it recursively. JSON.parse,
 * zod and the serialiser of an error body all recurse per level, so a 100k-deep body used to
 * end in a stack overflow (500). A linear scan of the raw text (already bounded by the body
 * limit) counts brackets outside strings.
 *
 * The scan runs when the body is first parsed (the route's validator, after auth), not here
 * up front: reading eagerly would make the server buffer bodies for callers it then refuses.
 */
import type { Context, MiddlewareHandler } from "hono";
import { AppError } from "../domain/errors.ts";
import type { AppEnv } from "./context.ts";

export const MAX_JSON_DEPTH = 64;

const JSON_TYPE_RE = /^application\/([\w.-]+\+)?json\s*(;|$)/i;

/** True once the text opens more than `max` arrays/objects at once (strings skipped). */
export function jsonDepthExceeds(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (inString) {
      if (ch === 0x5c)
        i++; // backslash: skip the escaped character
      else if (ch === 0x22) inString = false;
    } else if (ch === 0x22) inString = true;
    else if (ch === 0x5b || ch === 0x7b) {
      if (++depth > max) return true;
    } else if (ch === 0x5d || ch === 0x7d) depth--;
  }
  return false;
}

const depthError = () =>
  AppError.validation([
    {
      loc: ["body"],
      msg: `JSON nested deeper than ${MAX_JSON_DEPTH} levels`,
      type: "json_invalid",
      input: null,
      ctx: { max_depth: MAX_JSON_DEPTH },
    },
  ]);

/**
 * Requests whose body was refused for its depth. Hono's validator turns any error of
 * c.req.json() into a generic "Malformed JSON" 400; onError looks here to answer precisely.
 */
const refused = new WeakSet<object>();

/** The depth refusal for this request, if its JSON body was refused for nesting. */
export function jsonDepthRefusal(c: Context<AppEnv>): AppError | null {
  return refused.has(c.req) ? depthError() : null;
}

export const limitJsonDepth: MiddlewareHandler<AppEnv> = async (c, next) => {
  const type = c.req.header("content-type");
  if (!c.req.raw.body || !type || !JSON_TYPE_RE.test(type)) return next();
  const req = c.req;
  const parse = req.json.bind(req);
  req.json = async <T>(): Promise<T> => {
    if (jsonDepthExceeds(await req.text(), MAX_JSON_DEPTH)) {
      refused.add(req);
      throw depthError();
    }
    return parse<T>();
  };
  await next();
};
