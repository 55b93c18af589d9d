import { describe, expect, test } from "bun:test";
import type { ValidationIssue } from "../domain/errors.ts";
import { jsonDepthExceeds } from "./json-depth.ts";
import { boundIssues, excerpt, issueInput, PROBLEM_MAX_BYTES, stripUserinfo } from "./problem.ts";

describe("problem document bounds", () => {
  test("excerpts cut strings, summarise containers and redact credential fields", () => {
    expect(excerpt("y".repeat(1000))).toBe(`${"y".repeat(100)}…`);
    expect(excerpt([1, 2, 3, 4, 5, 6, 7])).toEqual([1, 2, 3, 4, 5, "… 2 more"]);
    expect(excerpt({ a: { b: { c: 1 } } })).toEqual({ a: { b: "{object with 1 keys}" } });
    expect(excerpt({ password: "p", api_key: "k", s3_secret_key_enc: "s", name: "n", token: null })).toEqual({
      password: "[redacted]",
      api_key: "[redacted]",
      s3_secret_key_enc: "[redacted]",
      name: "n",
      token: null,
    });
    expect(issueInput(["body", "client_secret"], "hunter2")).toBe("[redacted]");
    expect(issueInput(["body", "label"], "ok")).toBe("ok");
  });

  test("URL userinfo is removed wherever it appears, and only userinfo", () => {
    expect(stripUserinfo("see https://u:p@h.example/x and thrift://tok@h:9083")).toBe(
      "see https://[redacted]@h.example/x and thrift://[redacted]@h:9083",
    );
    expect(stripUserinfo("mail me at a@b.example, https://h.example/@x")).toBe(
      "mail me at a@b.example, https://h.example/@x",
    );
  });

  test("a thousand large issues still fit PROBLEM_MAX_BYTES and say how many were left out", () => {
    const issues: ValidationIssue[] = Array.from({ length: 1000 }, (_, i) => ({
      loc: ["body", `f${i}`],
      msg: "bad",
      type: "value_error",
      input: { blob: "z".repeat(10_000), list: Array.from({ length: 100 }, () => "q".repeat(500)) },
      ctx: { pattern: "p".repeat(10_000) },
    }));
    const out = boundIssues(issues);
    expect(Buffer.byteLength(JSON.stringify({ detail: out }))).toBeLessThanOrEqual(PROBLEM_MAX_BYTES);
    expect(out.length).toBeGreaterThan(1);
    expect(out.at(-1)?.type).toBe("too_many_errors");
  });
});

describe("JSON depth scan", () => {
  test("counts nesting outside strings only, escapes included", () => {
    expect(jsonDepthExceeds('{"a":[[1]]}', 3)).toBe(false);
    expect(jsonDepthExceeds('{"a":[[[1]]]}', 3)).toBe(true);
    expect(jsonDepthExceeds(`{"s":"${"[".repeat(1000)}"}`, 3)).toBe(false);
    expect(jsonDepthExceeds(`{"s":"\\"${"{".repeat(10)}"}`, 3)).toBe(false);
    expect(jsonDepthExceeds(`${"[".repeat(100_000)}${"]".repeat(100_000)}`, 64)).toBe(true);
  });
});
