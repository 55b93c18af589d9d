/**
 * Caller-written Cypher, checked and rewritten for one tenant (docs/graph.md "Fragments").
 *
 * Callers write Cypher over the unprefixed model (./model.ts): `(s:Company)-[:SUBSIDIARY_OF]->(e)`.
 * A real lexer (strings, backtick identifiers, comments, parameters, brackets) turns the text
 * into tokens; the checker refuses anything that is not a read-only query over the model, and
 * the rewriter re-emits the tokens with every label and relationship type replaced by the
 * tenant's (`<prefix>_Company`). Comments are dropped. What is refused:
 * - write and admin clauses and procedure calls (CREATE, MERGE, DELETE, DETACH, SET, REMOVE,
 *   DROP, CALL, LOAD, FOREACH, USE, UNION, INSERT, ...), namespaced functions (`db.x()`,
 *   `apoc.x()`), `;`, and anything outside the model's labels and types;
 * - characters the lexer does not know: a backslash or a non-ASCII character outside a
 *   string literal (no unicode escapes in names), a backtick name that is not a plain name;
 * - a node pattern that could reach outside the tenant: every path pattern must hold at
 *   least one node that carries a model label (rewritten to the tenant's) or a variable
 *   bound earlier (the entity `e`, or a node of an accepted pattern). All the nodes of a
 *   path are connected by relationships, and the tenant's relationships join only the
 *   tenant's nodes, so one anchored node keeps the whole path in the tenant. Label
 *   wildcards and negations (`%`, `!`, `&`), `IS` labels and variable-length relationships
 *   are refused.
 */
import { AppError, type ValidationIssue } from "../../errors.ts";
import { GRAPH_NODES, isNodeLabel, isRelType, type NodeLabel, prefixedName } from "./model.ts";
import type { CheckedGraphFeature, CheckedReadQuery } from "./ports.ts";

type Loc = (string | number)[];

interface Token {
  kind: "ident" | "qident" | "string" | "number" | "param" | "punct";
  /** Source text (re-emitted as is, except labels). */
  text: string;
  /** ident/qident: the name; param: its name; punct: the text. */
  value: string;
  /** Offset in the source. */
  at: number;
  /** Whitespace or a comment came before it. */
  ws: boolean;
}

class CypherError extends Error {
  constructor(
    message: string,
    readonly at: number,
  ) {
    super(message);
  }
}

const NAME_RE = /^[A-Za-z_][A-Za-z0-9_]*$/;
const PUNCT = new Set([..."()[]{},.:|=<>+-*/%^!&?"]);
const MULTI_PUNCT = ["<>", "<=", ">=", "=~", "..", "+="];

/** Clauses and words that write, call procedures, administer or leave the query. */
const FORBIDDEN = new Set([
  "CREATE",
  "MERGE",
  "DELETE",
  "DETACH",
  "SET",
  "REMOVE",
  "DROP",
  "CALL",
  "LOAD",
  "FOREACH",
  "USE",
  "UNION",
  "INSERT",
  "YIELD",
  "SHOW",
  "TERMINATE",
  "GRANT",
  "DENY",
  "REVOKE",
  "ALTER",
  "RENAME",
  "START",
  "STOP",
  "ENABLE",
  "COPY",
  "EXPORT",
  "IMPORT",
  "ATTACH",
  "INSTALL",
  "BEGIN",
  "COMMIT",
  "ROLLBACK",
  "CHECKPOINT",
  "PERIODIC",
  "PROFILE",
  "EXPLAIN",
]);

export function tokenize(src: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  let ws = false;
  const n = src.length;
  while (i < n) {
    const c = src[i] as string;
    if (c === " " || c === "\t" || c === "\n" || c === "\r") {
      ws = true;
      i++;
      continue;
    }
    if (c === "/" && src[i + 1] === "/") {
      while (i < n && src[i] !== "\n") i++;
      ws = true;
      continue;
    }
    if (c === "/" && src[i + 1] === "*") {
      const end = src.indexOf("*/", i + 2);
      if (end < 0) throw new CypherError("unterminated comment", i);
      i = end + 2;
      ws = true;
      continue;
    }
    const start = i;
    if (c === "'" || c === '"') {
      i++;
      while (i < n && src[i] !== c) {
        if (src[i] === "\\") i++;
        i++;
      }
      if (i >= n) throw new CypherError("unterminated string", start);
      i++;
      out.push({ kind: "string", text: src.slice(start, i), value: "", at: start, ws });
    } else if (c === "`") {
      let name = "";
      i++;
      for (;;) {
        if (i >= n) throw new CypherError("unterminated backtick name", start);
        if (src[i] === "`") {
          if (src[i + 1] === "`") {
            name += "`";
            i += 2;
            continue;
          }
          i++;
          break;
        }
        name += src[i];
        i++;
      }
      if (!NAME_RE.test(name)) throw new CypherError(`backtick name must be a plain name: ${name.slice(0, 40)}`, start);
      out.push({ kind: "qident", text: `\`${name}\``, value: name, at: start, ws });
    } else if (c === "$") {
      i++;
      while (i < n && /[A-Za-z0-9_]/.test(src[i] as string)) i++;
      const name = src.slice(start + 1, i);
      if (!NAME_RE.test(name) && !/^[0-9]+$/.test(name)) throw new CypherError("invalid parameter", start);
      out.push({ kind: "param", text: src.slice(start, i), value: name, at: start, ws });
    } else if (/[0-9]/.test(c)) {
      while (i < n && /[0-9A-Za-z_]/.test(src[i] as string)) i++;
      if (src[i] === "." && /[0-9]/.test(src[i + 1] ?? "")) {
        i++;
        while (i < n && /[0-9A-Za-z_]/.test(src[i] as string)) i++;
      }
      if (/[eE]$/.test(src.slice(start, i)) && (src[i] === "-" || src[i] === "+")) {
        i++;
        while (i < n && /[0-9]/.test(src[i] as string)) i++;
      }
      out.push({ kind: "number", text: src.slice(start, i), value: src.slice(start, i), at: start, ws });
    } else if (/[A-Za-z_]/.test(c)) {
      while (i < n && /[A-Za-z0-9_]/.test(src[i] as string)) i++;
      const name = src.slice(start, i);
      out.push({ kind: "ident", text: name, value: name, at: start, ws });
    } else if (c === ";") {
      throw new CypherError("';' is not allowed: one statement only", i);
    } else if (PUNCT.has(c)) {
      const two = src.slice(i, i + 2);
      const p = MULTI_PUNCT.includes(two) ? two : c;
      i += p.length;
      out.push({ kind: "punct", text: p, value: p, at: start, ws });
    } else {
      const shown = c.charCodeAt(0) < 0x20 || c.charCodeAt(0) > 0x7e ? `U+${c.charCodeAt(0).toString(16)}` : c;
      throw new CypherError(`character ${shown} is not allowed outside a string`, i);
    }
    ws = false;
  }
  return out;
}

const isP = (t: Token | undefined, v: string): boolean => t?.kind === "punct" && t.value === v;
const isKw = (t: Token | undefined, v: string): boolean => t?.kind === "ident" && t.value.toUpperCase() === v;
const isName = (t: Token | undefined): boolean => t?.kind === "ident" || t?.kind === "qident";

interface Analysis {
  tokens: Token[];
  /** Indexes of tokens that name a label or relationship type. */
  labels: Set<number>;
}

/**
 * Checks a token stream: forbidden words, parameters, brackets, labels, and that every path
 * pattern is anchored. `bound` holds the variables in scope before the text (e.g. `e`).
 */
function analyse(tokens: Token[], bound: Set<string>, params: ReadonlySet<string> | null): Analysis {
  // Brackets balance; for each open bracket, its partner.
  const partner = new Map<number, number>();
  const stack: number[] = [];
  for (const [i, t] of tokens.entries()) {
    if (t.kind !== "punct") continue;
    if (t.value === "(" || t.value === "[" || t.value === "{") stack.push(i);
    else if (t.value === ")" || t.value === "]" || t.value === "}") {
      const open = stack.pop();
      const want = t.value === ")" ? "(" : t.value === "]" ? "[" : "{";
      if (open === undefined || tokens[open]?.value !== want) throw new CypherError(`unbalanced '${t.value}'`, t.at);
      partner.set(open, i);
    }
  }
  if (stack.length > 0) throw new CypherError("unbalanced brackets", tokens[stack[0] as number]?.at ?? 0);

  const labels = new Set<number>();
  // Innermost open bracket at each token.
  const inner: (string | null)[] = [];
  const open: string[] = [];
  for (const t of tokens) {
    inner.push(open.at(-1) ?? null);
    if (t.kind === "punct" && (t.value === "(" || t.value === "[" || t.value === "{")) open.push(t.value);
    else if (t.kind === "punct" && (t.value === ")" || t.value === "]" || t.value === "}")) open.pop();
  }

  for (const [i, t] of tokens.entries()) {
    const prev = tokens[i - 1];
    const next = tokens[i + 1];
    if (t.kind === "ident") {
      const up = t.value.toUpperCase();
      const propertyKey = isP(prev, ".");
      if (!propertyKey && FORBIDDEN.has(up)) {
        throw new CypherError(`${up} is not allowed: graph queries are read-only, without procedure calls`, t.at);
      }
      if (propertyKey && isP(next, "(")) throw new CypherError("namespaced functions are not allowed", t.at);
      if (up === "IS" && !isKw(next, "NULL") && !isKw(next, "NOT")) {
        throw new CypherError("only IS NULL and IS NOT NULL are allowed after IS", t.at);
      }
    }
    if (t.kind === "param" && params && !params.has(t.value)) {
      throw new CypherError(`unknown parameter $${t.value}`, t.at);
    }
    if (t.kind === "punct" && (t.value === "!" || t.value === "&" || t.value === "%")) {
      // `!=` is not Cypher (`<>` is); these only build label expressions.
      throw new CypherError(`'${t.value}' is not allowed`, t.at);
    }
    if (isP(t, ":")) {
      // A map key's colon: `{name: ...}` / `{a: 1, name: ...}`.
      const mapKey = inner[i] === "{" && isName(prev) && (isP(tokens[i - 2], "{") || isP(tokens[i - 2], ","));
      if (mapKey) continue;
      let j = i + 1;
      for (;;) {
        const name = tokens[j];
        if (!isName(name)) throw new CypherError("a label or relationship type must follow ':'", tokens[i]?.at ?? 0);
        const v = (name as Token).value;
        if (!isNodeLabel(v) && !isRelType(v)) {
          throw new CypherError(`unknown label or relationship type ${v.slice(0, 64)}`, (name as Token).at);
        }
        labels.add(j);
        // `:A|B` and `:A|:B` (relationship type alternatives, label disjunction).
        if (isP(tokens[j + 1], "|")) {
          j += isP(tokens[j + 2], ":") ? 3 : 2;
          continue;
        }
        break;
      }
    }
  }

  // Node patterns and path patterns.
  const nodeAt = (i: number): { end: number; vars: string[]; labelled: boolean } | null => {
    if (!isP(tokens[i], "(")) return null;
    const close = partner.get(i) as number;
    let j = i + 1;
    const vars: string[] = [];
    if (isName(tokens[j]) && !isKw(tokens[j], "WHERE")) {
      vars.push((tokens[j] as Token).value);
      j++;
    }
    let labelled = false;
    if (isP(tokens[j], ":")) {
      labelled = true;
      j++;
      while (j < close && (labels.has(j) || isP(tokens[j], "|") || isP(tokens[j], ":"))) j++;
    }
    if (isP(tokens[j], "{")) j = (partner.get(j) as number) + 1;
    if (isKw(tokens[j], "WHERE")) j = close;
    return j === close ? { end: close, vars, labelled } : null;
  };
  /** A relationship pattern starting at i (`-[..]->`, `<-[..]-`, `--`, `-->`, `<--`): its end and variable. */
  const relAt = (i: number): { end: number; vars: string[] } | null => {
    let j = i;
    if (isP(tokens[j], "<")) j++;
    if (!isP(tokens[j], "-")) return null;
    j++;
    const vars: string[] = [];
    if (isP(tokens[j], "[")) {
      const close = partner.get(j) as number;
      if (isName(tokens[j + 1])) vars.push((tokens[j + 1] as Token).value);
      for (let k = j + 1; k < close; k++) {
        if (isP(tokens[k], "*"))
          throw new CypherError("variable-length relationships are not allowed", tokens[k]?.at ?? 0);
        if (isP(tokens[k], "{") || isKw(tokens[k], "WHERE")) break;
      }
      j = close + 1;
    } else if (!isP(tokens[j], "-")) {
      return null;
    }
    if (!isP(tokens[j], "-")) return null;
    j++;
    if (isP(tokens[j], ">")) j++;
    return { end: j - 1, vars };
  };

  const consumed = new Set<number>();
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i] as Token;
    if (t.kind === "ident" && isKw(t, "AS") && isName(tokens[i + 1])) bound.add((tokens[i + 1] as Token).value);
    if (consumed.has(i)) continue;
    const first = nodeAt(i);
    if (!first) continue;
    const vars = [...first.vars];
    let anchored = first.labelled || first.vars.some((v) => bound.has(v));
    let end = first.end;
    for (;;) {
      const rel = relAt(end + 1);
      if (!rel) break;
      const node = nodeAt(rel.end + 1);
      if (!node) throw new CypherError("a relationship pattern must end in a node pattern", tokens[rel.end]?.at ?? 0);
      consumed.add(rel.end + 1);
      vars.push(...rel.vars, ...node.vars);
      anchored ||= node.labelled || node.vars.some((v) => bound.has(v));
      end = node.end;
    }
    if (!anchored) {
      throw new CypherError(
        "every pattern must start from e, a variable bound before, or a labelled node (no scans outside the tenant)",
        t.at,
      );
    }
    for (const v of vars) bound.add(v);
    // A path variable: `p = (..)-..`.
    if (isP(tokens[i - 1], "=") && isName(tokens[i - 2])) bound.add((tokens[i - 2] as Token).value);
  }
  return { tokens, labels };
}

/** Re-emits tokens; labels become the tenant's, backtick-quoted. */
function emit(tokens: Token[], labels: Set<number>, prefix: string | null, from = 0, to = tokens.length): string {
  let s = "";
  for (let i = from; i < to; i++) {
    const t = tokens[i] as Token;
    if (s !== "" && t.ws) s += " ";
    s += labels.has(i) && prefix ? `\`${prefixedName(prefix, t.value)}\`` : t.text;
  }
  return s;
}

/** Index of the last RETURN outside any bracket, or -1. */
function finalReturn(tokens: Token[]): number {
  let depth = 0;
  let at = -1;
  for (const [i, t] of tokens.entries()) {
    if (t.kind === "punct" && "([{".includes(t.value)) depth++;
    else if (t.kind === "punct" && ")]}".includes(t.value)) depth--;
    else if (depth === 0 && isKw(t, "RETURN")) at = i;
  }
  return at;
}

function topLevelCommas(tokens: Token[], from: number): number {
  let depth = 0;
  let n = 0;
  for (let i = from; i < tokens.length; i++) {
    const t = tokens[i] as Token;
    if (t.kind === "punct" && "([{".includes(t.value)) depth++;
    else if (t.kind === "punct" && ")]}".includes(t.value)) depth--;
    else if (depth === 0 && isP(t, ",")) n++;
  }
  return n;
}

function issue(loc: Loc, msg: string, input: unknown, ctx: Record<string, unknown> = {}): ValidationIssue {
  const shown = typeof input === "string" && input.length > 200 ? `${input.slice(0, 200)}…` : input;
  return { loc: loc.map(String), msg, type: "value_error", input: shown, ctx };
}

function fail(loc: Loc, err: unknown, input: string): never {
  if (err instanceof CypherError) throw AppError.validation([issue(loc, err.message, input, { position: err.at })]);
  throw err;
}

const FEATURE_STARTS = new Set(["MATCH", "OPTIONAL", "WITH", "UNWIND", "RETURN"]);
const READ_STARTS = new Set(["MATCH", "OPTIONAL", "WITH", "UNWIND"]);
const MAX_TEXT = 4000;

/** The key property of a model label (Company -> cik); null for an unknown label. */
export function graphKeyOf(label: string): { property: string } | null {
  return isNodeLabel(label) ? { property: GRAPH_NODES[label].key } : null;
}

/** graphKeyOf that throws the validation error at `loc` (the label field). */
export function graphKeyAt(label: string, loc: Loc): string {
  const k = graphKeyOf(label);
  if (!k) throw AppError.validation([issue(loc, `label must be one of ${Object.keys(GRAPH_NODES).join(", ")}`, label)]);
  return k.property;
}

interface FeatureParts {
  analysis: Analysis;
  /** Index of the final RETURN and the end of its expression (an `AS name` excluded). */
  ret: number;
  exprEnd: number;
}

function featureParts(fragment: string): FeatureParts {
  if (fragment.length > MAX_TEXT) throw new CypherError(`at most ${MAX_TEXT} characters`, MAX_TEXT);
  const tokens = tokenize(fragment);
  if (tokens.length === 0) throw new CypherError("the fragment is empty", 0);
  const analysis = analyse(tokens, new Set(["e"]), new Set(["key"]));
  const first = tokens[0] as Token;
  if (first.kind !== "ident" || !FEATURE_STARTS.has(first.value.toUpperCase())) {
    throw new CypherError("the fragment must start with MATCH, OPTIONAL MATCH, WITH, UNWIND or RETURN", first.at);
  }
  const ret = finalReturn(tokens);
  if (ret < 0) throw new CypherError("the fragment must end in RETURN <one expression>", fragment.length);
  let exprEnd = tokens.length;
  const last = tokens[tokens.length - 1];
  if (isKw(tokens[tokens.length - 2], "AS") && isName(last)) exprEnd = tokens.length - 2;
  for (let i = ret + 1; i < exprEnd; i++) {
    const t = tokens[i] as Token;
    if (["ORDER", "SKIP", "LIMIT", "AS"].includes(t.value.toUpperCase()) && t.kind === "ident") {
      throw new CypherError("the fragment must end in RETURN <one expression> [AS name]", t.at);
    }
  }
  let from = ret + 1;
  if (isKw(tokens[from], "DISTINCT")) from++;
  if (from >= exprEnd) throw new CypherError("RETURN needs an expression", tokens[ret]?.at ?? 0);
  if (isP(tokens[from], "*"))
    throw new CypherError("RETURN * is not allowed: return one expression", tokens[from]?.at ?? 0);
  if (topLevelCommas(tokens, from) > 0)
    throw new CypherError("the fragment must return exactly one column", tokens[ret]?.at ?? 0);
  return { analysis, ret, exprEnd };
}

/**
 * Checks a dataset's graph feature (spec 2.6 graph_features); `loc` is the feature's
 * location (e.g. ["body","graph_features",0]), errors point at its fields.
 */
export function checkGraphFeature(
  f: { label: string; cypher_fragment: string; output_column: string },
  loc: Loc,
): CheckedGraphFeature {
  const keyProperty = graphKeyAt(f.label, [...loc, "label"]);
  if (typeof f.cypher_fragment !== "string") {
    throw AppError.validation([issue([...loc, "cypher_fragment"], "must be a string", f.cypher_fragment)]);
  }
  try {
    featureParts(f.cypher_fragment);
  } catch (e) {
    fail([...loc, "cypher_fragment"], e, f.cypher_fragment);
  }
  if (typeof f.output_column !== "string" || !/^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(f.output_column)) {
    throw AppError.validation([
      issue([...loc, "output_column"], "output_column must be a name of letters, digits and _", f.output_column),
    ]);
  }
  return { label: f.label, keyProperty, fragment: f.cypher_fragment, output_column: f.output_column };
}

/** A feature as one tenant's engine runs it. */
export interface TenantFeatureQuery {
  /** The tenant's entity label, e.g. `t_…_Company` (unquoted). */
  entityLabel: string;
  keyProperty: string;
  /** The rewritten fragment, its final RETURN aliased `__value`; runs with `e` bound. */
  body: string;
  /** The whole per-entity statement: `MATCH (e:…) WHERE e.<key> = $key WITH e <body>`. */
  perKey: string;
}

/** Rewrites a checked feature for a tenant prefix (`tenantPrefix(tenantId)`). */
export function rewriteFor(prefix: string, checked: CheckedGraphFeature): TenantFeatureQuery {
  if (!isNodeLabel(checked.label)) throw new AppError("internal", "graph feature label is not in the model");
  const label = checked.label as NodeLabel;
  if (GRAPH_NODES[label].key !== checked.keyProperty) throw new AppError("internal", "graph feature key mismatch");
  let parts: FeatureParts;
  try {
    parts = featureParts(checked.fragment);
  } catch (e) {
    fail(["cypher_fragment"], e, checked.fragment);
  }
  const { analysis, exprEnd } = parts;
  const body = `${emit(analysis.tokens, analysis.labels, prefix, 0, exprEnd)} AS __value`;
  const entityLabel = prefixedName(prefix, label);
  const perKey = `MATCH (e:\`${entityLabel}\`) WHERE e.${checked.keyProperty} = $key WITH e ${body}`;
  return { entityLabel, keyProperty: checked.keyProperty, body, perKey };
}

export type { CheckedReadQuery };

function readParts(cypher: string): { analysis: Analysis; limitAt: number } {
  if (cypher.length > MAX_TEXT) throw new CypherError(`at most ${MAX_TEXT} characters`, MAX_TEXT);
  const tokens = tokenize(cypher);
  const analysis = analyse(tokens, new Set(), null);
  const first = tokens[0];
  if (first?.kind !== "ident" || !READ_STARTS.has(first.value.toUpperCase())) {
    throw new CypherError("a query must start with MATCH, OPTIONAL MATCH, WITH or UNWIND", first?.at ?? 0);
  }
  const ret = finalReturn(tokens);
  if (ret < 0) throw new CypherError("a query must end in RETURN ...", cypher.length);
  // A trailing `LIMIT <n>` is capped; any other LIMIT is refused.
  let limitAt = -1;
  let depth = 0;
  for (let i = ret + 1; i < tokens.length; i++) {
    const t = tokens[i] as Token;
    if (t.kind === "punct" && "([{".includes(t.value)) depth++;
    else if (t.kind === "punct" && ")]}".includes(t.value)) depth--;
    else if (depth === 0 && isKw(t, "LIMIT")) {
      const n = tokens[i + 1];
      if (n?.kind !== "number" || i + 2 !== tokens.length || !/^[0-9]+$/.test(n.value)) {
        throw new CypherError("LIMIT must be a whole number at the end of the query", t.at);
      }
      limitAt = i;
    }
  }
  return { analysis, limitAt };
}

/** Checks a whole read-only query (MATCH ... RETURN ... [ORDER BY] [SKIP] [LIMIT n]); throws validation at `loc`. */
export function checkReadQuery(cypher: string, loc: Loc): CheckedReadQuery {
  try {
    readParts(cypher);
  } catch (e) {
    fail(loc, e, cypher);
  }
  return { cypher };
}

/** The query for a tenant, with its LIMIT at most `limit`. */
export function rewriteReadFor(prefix: string, checked: CheckedReadQuery, limit: number): string {
  if (!Number.isInteger(limit) || limit < 1) throw new AppError("internal", "read limit must be a positive integer");
  let parts: ReturnType<typeof readParts>;
  try {
    parts = readParts(checked.cypher);
  } catch (e) {
    fail(["cypher"], e, checked.cypher);
  }
  const { analysis, limitAt } = parts;
  if (limitAt < 0) return `${emit(analysis.tokens, analysis.labels, prefix)} LIMIT ${limit}`;
  const asked = Number((analysis.tokens[limitAt + 1] as Token).value);
  return `${emit(analysis.tokens, analysis.labels, prefix, 0, limitAt)} LIMIT ${Math.min(asked, limit)}`;
}
