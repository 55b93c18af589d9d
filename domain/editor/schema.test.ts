import { describe, expect, test } from "bun:test";
import { MAX_DOC_DEPTH, parseDocAst } from "./schema.ts";

const p = (text: string, marks?: unknown[]) => ({
  type: "paragraph",
  content: [{ type: "text", text, ...(marks ? { marks } : {}) }],
});

describe("parseDocAst (Tiptap StarterKit schema)", () => {
  test("accepts StarterKit trees and fills default attributes", () => {
    const input = {
      type: "doc",
      content: [
        { type: "heading", attrs: { level: 2 }, content: [{ type: "text", text: "Title" }] },
        p("bold and link", [{ type: "bold" }, { type: "link", attrs: { href: "https://example.com" } }]),
        { type: "bulletList", content: [{ type: "listItem", content: [p("item")] }] },
        { type: "codeBlock", attrs: { language: "ts" }, content: [{ type: "text", text: "let x = 1" }] },
        {
          type: "paragraph",
          content: [{ type: "text", text: "a" }, { type: "hardBreak" }, { type: "text", text: "b" }],
        },
        { type: "horizontalRule" },
        { type: "blockquote", content: [p("quoted")] },
      ],
    };
    const r = parseDocAst(input);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const json = r.node.toJSON();
    expect(json.content[0]).toEqual({
      type: "heading",
      attrs: { level: 2 },
      content: [{ type: "text", text: "Title" }],
    });
    // Defaults filled: the link's target/rel/class/title attributes come from the schema.
    const link = json.content[1].content[0].marks.find((m: { type: string }) => m.type === "link");
    expect(link.attrs.href).toBe("https://example.com");
    expect(Object.keys(link.attrs).sort()).toEqual(["class", "href", "rel", "target", "title"]);
  });

  test("issues point into the tree with section 7 fields", () => {
    const r = parseDocAst({
      type: "doc",
      content: [p("ok"), { type: "table", content: [] }, { type: "paragraph", content: [{ type: "text", text: "" }] }],
    });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.issues).toEqual([
      {
        loc: ["body", "doc_ast", "content", "1", "type"],
        msg: "Unknown node type 'table'",
        type: "enum",
        input: "table",
        ctx: { expected: expect.any(Array) },
      },
      {
        loc: ["body", "doc_ast", "content", "2", "content", "0", "text"],
        msg: "A text node needs non-empty text",
        type: "value_error",
        input: "",
        ctx: {},
      },
    ]);
  });

  test.each([
    ["root must be doc", { type: "paragraph" }, ["body", "doc_ast", "type"], "literal_error"],
    ["missing type", { content: [] }, ["body", "doc_ast", "type"], "missing"],
    ["not an object", "hello", ["body", "doc_ast"], "dict_type"],
    ["empty doc (block+)", { type: "doc", content: [] }, ["body", "doc_ast", "content"], "value_error"],
    [
      "text directly in doc",
      { type: "doc", content: [{ type: "text", text: "x" }] },
      ["body", "doc_ast", "content"],
      "value_error",
    ],
    [
      "unknown mark",
      { type: "doc", content: [p("x", [{ type: "highlight" }])] },
      ["body", "doc_ast", "content", "0", "content", "0", "marks", "0", "type"],
      "enum",
    ],
    [
      "unknown attribute",
      { type: "doc", content: [{ type: "paragraph", attrs: { color: "red" } }] },
      ["body", "doc_ast", "content", "0", "attrs", "color"],
      "extra_forbidden",
    ],
    [
      "heading level 9",
      { type: "doc", content: [{ type: "heading", attrs: { level: 9 } }] },
      ["body", "doc_ast", "content", "0", "attrs", "level"],
      "value_error",
    ],
    [
      "object attribute",
      { type: "doc", content: [{ type: "codeBlock", attrs: { language: { x: 1 } } }] },
      ["body", "doc_ast", "content", "0", "attrs", "language"],
      "value_error",
    ],
    [
      "marks inside a code block",
      {
        type: "doc",
        content: [{ type: "codeBlock", content: [{ type: "text", text: "x", marks: [{ type: "bold" }] }] }],
      },
      ["body", "doc_ast", "content", "0", "content", "0", "marks"],
      "value_error",
    ],
    ["content not a list", { type: "doc", content: "x" }, ["body", "doc_ast", "content"], "list_type"],
    ["extra key", { type: "doc", content: [p("x")], foo: 1 }, ["body", "doc_ast", "foo"], "extra_forbidden"],
  ])("refuses: %s", (_name, input, loc, type) => {
    const r = parseDocAst(input);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.issues[0]).toMatchObject({ loc, type });
  });

  test(`refuses trees deeper than ${MAX_DOC_DEPTH} levels without overflowing the stack`, () => {
    let node: Record<string, unknown> = p("deep");
    for (let i = 0; i < 10_000; i++) node = { type: "blockquote", content: [node] };
    const r = parseDocAst({ type: "doc", content: [node] });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.issues[0]?.msg).toContain("nested deeper");
  });
});
