/**
 * Bounds and scrubs what an error body may carry back to the client. A validation issue's
 * `input` is an excerpt of the bad value, never the body: strings are cut, containers are
 * summarised a few levels deep, credential-like fields and URL userinfo are redacted. The
 * whole problem document stays under PROBLEM_MAX_BYTES whatever the request held, so an
 * attacker cannot turn a large or deep body into a large or expensive answer.
 */
import type { AppError, ValidationIssue } from "../domain/errors.ts";

/** Upper bound of a serialised error body (UTF-8 bytes). */
export const PROBLEM_MAX_BYTES = 8 * 1024;
/** At most this many issues are reported; the rest are summarised in one last item. */
const MAX_ISSUES = 20;
const MAX_STRING = 100;
const MAX_ITEMS = 5;
const MAX_DEPTH = 2;
const REDACTED = "[redacted]";

/** Field names whose values are credentials (write-only everywhere). */
const SECRET_KEY_RE = /secret|passw|token|api[-_]?key|access[-_]?key|credential|authori[sz]ation|private[-_]?key/i;
/**
 * scheme://user:password@host or scheme://token@host. The scheme is bounded (and must not
 * follow a scheme character) so a long run of letters is scanned once, not once per start
 * position: an unbounded `[a-z][a-z0-9+.-]*` made this quadratic on a 200 KB string.
 */
const URL_USERINFO_RE = /(?<![a-z0-9+.-])([a-z][a-z0-9+.-]{0,31}:\/\/)[^/?#@\s]*@/gi;

export function isSecretKey(key: string): boolean {
  return SECRET_KEY_RE.test(key);
}

/** Removes userinfo from every URL in a string: `https://u:p@h` -> `https://[redacted]@h`. */
export function stripUserinfo(text: string): string {
  return text.replace(URL_USERINFO_RE, `$1${REDACTED}@`);
}

function cutString(s: string, max = MAX_STRING): string {
  const clean = stripUserinfo(s);
  return clean.length > max ? `${clean.slice(0, max)}…` : clean;
}

/**
 * A bounded, redacted copy of any value. Iterative callers are not needed: depth is capped
 * at MAX_DEPTH, so recursion is at most a few frames whatever the input nests to.
 */
export function excerpt(value: unknown, depth = 0): unknown {
  if (typeof value === "string") return cutString(value);
  if (value === null || typeof value !== "object") {
    return typeof value === "bigint" || typeof value === "symbol" || typeof value === "function"
      ? String(value)
      : value;
  }
  if (Array.isArray(value)) {
    if (depth >= MAX_DEPTH) return `[array of ${value.length}]`;
    const head = value.slice(0, MAX_ITEMS).map((v) => excerpt(v, depth + 1));
    return value.length > MAX_ITEMS ? [...head, `… ${value.length - MAX_ITEMS} more`] : head;
  }
  const keys = Object.keys(value);
  if (depth >= MAX_DEPTH) return `{object with ${keys.length} keys}`;
  const out: Record<string, unknown> = {};
  for (const key of keys.slice(0, MAX_ITEMS)) {
    const v = (value as Record<string, unknown>)[key];
    out[cutString(key)] = isSecretKey(key) && v !== null && v !== undefined ? REDACTED : excerpt(v, depth + 1);
  }
  if (keys.length > MAX_ITEMS) out["…"] = `${keys.length - MAX_ITEMS} more keys`;
  return out;
}

/** The input of an issue at `loc`: redacted outright when the field itself is a credential. */
export function issueInput(loc: readonly string[], input: unknown): unknown {
  const field = loc.at(-1);
  if (field !== undefined && isSecretKey(field) && input !== null && input !== undefined) return REDACTED;
  return excerpt(input);
}

function boundIssue(issue: ValidationIssue): ValidationIssue {
  const loc = issue.loc.slice(0, 16).map((p) => cutString(String(p)));
  const ctx: Record<string, unknown> = {};
  // ctx keys are our own vocabulary (a parser's "token" is a word, not a credential): only
  // their values are excerpted.
  for (const [k, v] of Object.entries(issue.ctx ?? {}).slice(0, MAX_ITEMS)) ctx[k] = excerpt(v, 1);
  // Messages are ours and may be a sentence long; a pattern quoted in one is still bounded.
  return { loc, msg: cutString(issue.msg, 500), type: cutString(issue.type), input: issueInput(loc, issue.input), ctx };
}

const byteLength = (v: unknown) => Buffer.byteLength(JSON.stringify(v));

/**
 * The section 7 items made safe to send: each bounded and redacted, at most MAX_ISSUES, and
 * inputs dropped (null) from the end if the total would still pass PROBLEM_MAX_BYTES.
 */
export function boundIssues(issues: readonly ValidationIssue[]): ValidationIssue[] {
  const out = issues.slice(0, MAX_ISSUES).map(boundIssue);
  if (issues.length > MAX_ISSUES) {
    out.push({
      loc: ["body"],
      msg: `${issues.length - MAX_ISSUES} more errors not shown`,
      type: "too_many_errors",
      input: null,
      ctx: { total: issues.length },
    });
  }
  for (let i = out.length - 1; i >= 0 && byteLength({ detail: out }) > PROBLEM_MAX_BYTES - 64; i--) {
    const item = out[i] as ValidationIssue;
    out[i] = { ...item, input: null, ctx: {} };
  }
  while (out.length > 1 && byteLength({ detail: out }) > PROBLEM_MAX_BYTES - 64) out.pop();
  return out;
}

/** A `{detail: string}` message cut to a sane length, with URL credentials removed. */
export function boundDetail(detail: string): string {
  const clean = stripUserinfo(detail);
  return clean.length > 1000 ? `${clean.slice(0, 1000)}…` : clean;
}

/**
 * An AppError as the response it becomes: status, the headers it implies and the bounded
 * body. The one rule for Hono's error handler (http/app.ts) and the hot path alike.
 */
export function appErrorProblem(err: AppError): {
  status: number;
  headers: Record<string, string>;
  body: { detail: string | ValidationIssue[] };
} {
  const headers: Record<string, string> = { ...err.headers };
  // A refused body is left unread: close the connection rather than drain it.
  if (err.code === "payload_too_large") headers.Connection = "close";
  // Every 503 says when to come back, so clients back off instead of hammering.
  if (err.status === 503 && !err.headers?.["Retry-After"]) headers["Retry-After"] = "30";
  if (err.code === "unauthenticated") headers["WWW-Authenticate"] = 'Bearer realm="cairn", ApiKey header="X-API-Key"';
  // Never the body back: inputs excerpted and redacted, the document bounded in size.
  const body = err.toBody();
  const detail = typeof body.detail === "string" ? boundDetail(body.detail) : boundIssues(body.detail);
  return { status: err.status, headers, body: { detail } };
}
