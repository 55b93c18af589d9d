/**
 * Maps zod issues to the validation body of spec section 7:
 * {detail: [{loc, msg, type, input, ctx}]}. Types and messages follow the widely
 * used pydantic vocabulary so clients that already parse it need nothing new.
 */
import type { z } from "zod";
import type { ValidationIssue } from "../domain/errors.ts";
import { issueInput } from "./problem.ts";

type ZodIssue = z.core.$ZodIssue;

const LOC_ROOT: Record<string, string> = {
  query: "query",
  param: "path",
  json: "body",
  form: "body",
  header: "header",
  cookie: "cookie",
};

function valueAt(data: unknown, path: PropertyKey[]): unknown {
  let cur: unknown = data;
  for (const key of path) {
    if (cur === null || typeof cur !== "object") return undefined;
    cur = (cur as Record<PropertyKey, unknown>)[key];
  }
  return cur;
}

function describe(issue: ZodIssue, input: unknown): { type: string; msg: string; ctx: Record<string, unknown> } {
  switch (issue.code) {
    case "invalid_type": {
      if (input === undefined) return { type: "missing", msg: "Field required", ctx: {} };
      const expected = issue.expected;
      if (expected === "number" || expected === "int") {
        const parsing = typeof input === "string";
        return parsing
          ? {
              type: "int_parsing",
              msg: "Input should be a valid integer, unable to parse string as an integer",
              ctx: {},
            }
          : { type: "int_type", msg: "Input should be a valid integer", ctx: {} };
      }
      if (expected === "boolean") return { type: "bool_parsing", msg: "Input should be a valid boolean", ctx: {} };
      if (expected === "array") return { type: "list_type", msg: "Input should be a valid list", ctx: {} };
      if (expected === "object") return { type: "dict_type", msg: "Input should be a valid dictionary", ctx: {} };
      return { type: `${expected}_type`, msg: `Input should be a valid ${expected}`, ctx: {} };
    }
    case "too_small": {
      const min = Number(issue.minimum);
      if (issue.origin === "string")
        return {
          type: "string_too_short",
          msg: `String should have at least ${min} character${min === 1 ? "" : "s"}`,
          ctx: { min_length: min },
        };
      if (issue.origin === "array" || issue.origin === "set")
        return { type: "too_short", msg: `List should have at least ${min} items`, ctx: { min_length: min } };
      return issue.inclusive
        ? { type: "greater_than_equal", msg: `Input should be greater than or equal to ${min}`, ctx: { ge: min } }
        : { type: "greater_than", msg: `Input should be greater than ${min}`, ctx: { gt: min } };
    }
    case "too_big": {
      const max = Number(issue.maximum);
      if (issue.origin === "string")
        return {
          type: "string_too_long",
          msg: `String should have at most ${max} character${max === 1 ? "" : "s"}`,
          ctx: { max_length: max },
        };
      if (issue.origin === "array" || issue.origin === "set")
        return { type: "too_long", msg: `List should have at most ${max} items`, ctx: { max_length: max } };
      return issue.inclusive
        ? { type: "less_than_equal", msg: `Input should be less than or equal to ${max}`, ctx: { le: max } }
        : { type: "less_than", msg: `Input should be less than ${max}`, ctx: { lt: max } };
    }
    case "invalid_value": {
      const values = issue.values.map((v) => `'${String(v)}'`);
      const expected = values.length > 1 ? `${values.slice(0, -1).join(", ")} or ${values.at(-1)}` : (values[0] ?? "");
      return { type: "enum", msg: `Input should be ${expected}`, ctx: { expected } };
    }
    case "invalid_format": {
      if (issue.format === "uuid" || issue.format === "guid")
        return { type: "uuid_parsing", msg: "Input should be a valid UUID", ctx: {} };
      if (issue.format === "date")
        return { type: "date_from_datetime_parsing", msg: "Input should be a valid date", ctx: {} };
      if (issue.format === "datetime")
        return { type: "datetime_parsing", msg: "Input should be a valid datetime", ctx: {} };
      if (issue.format === "email") return { type: "value_error", msg: "value is not a valid email address", ctx: {} };
      if (issue.format === "url") return { type: "url_parsing", msg: "Input should be a valid URL", ctx: {} };
      if (issue.format === "regex")
        return {
          type: "string_pattern_mismatch",
          msg: `String should match pattern '${issue.pattern ?? ""}'`,
          ctx: { pattern: issue.pattern ?? "" },
        };
      return { type: "value_error", msg: issue.message, ctx: { format: issue.format } };
    }
    case "not_multiple_of":
      return {
        type: "multiple_of",
        msg: `Input should be a multiple of ${String(issue.divisor)}`,
        ctx: { multiple_of: Number(issue.divisor) },
      };
    case "unrecognized_keys":
      return { type: "extra_forbidden", msg: "Extra inputs are not permitted", ctx: { keys: issue.keys } };
    default:
      return { type: "value_error", msg: issue.message, ctx: {} };
  }
}

/** Converts a zod error for one request part (query, param, json, ...) to section 7 items. */
export function toValidationIssues(issues: readonly ZodIssue[], target: string, data: unknown): ValidationIssue[] {
  const root = LOC_ROOT[target] ?? target;
  return issues.map((issue) => {
    const input = valueAt(data, issue.path);
    const { type, msg, ctx } = describe(issue, input);
    // input is an excerpt of the offending value (never the whole body), credentials redacted.
    if (issue.code === "unrecognized_keys") {
      const loc = [root, ...issue.keys];
      return { loc, msg, type, input: issueInput(loc, data), ctx };
    }
    const loc = [root, ...issue.path.map(String)];
    return { loc, msg, type, input: issueInput(loc, input ?? null), ctx };
  });
}
