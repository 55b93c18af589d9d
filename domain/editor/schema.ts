/**
 * The rich-text schema of editor documents: Tiptap's StarterKit, the schema the web editor
 * and `@tiptap/core`'s Collaboration extension use, so doc_ast, the Y.Doc and every client
 * agree on node and mark names. `parseDocAst` turns untrusted JSON into a checked
 * ProseMirror node or section-7 issues that point at the offending part of the tree.
 */
import { getSchema } from "@tiptap/core";
import { Fragment, type Mark, type Node as PmNode, type Schema } from "@tiptap/pm/model";
import StarterKit from "@tiptap/starter-kit";
import type { ValidationIssue } from "../errors.ts";

let cached: Schema | null = null;

/** Built once per process (a few ms). */
export function editorSchema(): Schema {
  cached ??= getSchema([StarterKit]);
  return cached;
}

/** Deeper trees are refused: every walk over a document is recursive. */
export const MAX_DOC_DEPTH = 64;
const MAX_ISSUES = 20;

/** Attribute values the Y.Doc can hold as XML attributes and every client reads back alike. */
type AttrValue = string | number | boolean | null;

/** Rules on attribute values the schema itself does not state. */
const ATTR_RULES: Record<string, (v: AttrValue) => string | null> = {
  "heading.level": (v) =>
    Number.isInteger(v) && (v as number) >= 1 && (v as number) <= 6 ? null : "an integer 1 to 6",
  "orderedList.start": (v) => (Number.isInteger(v) ? null : "an integer"),
  "link.href": (v) => (typeof v === "string" ? null : "a string"),
};

export type ParsedDocAst = { ok: true; node: PmNode } | { ok: false; issues: ValidationIssue[] };

/**
 * Checks `input` against the schema: a `doc` root, known node and mark types, known
 * attributes with primitive values, text nodes with non-empty text, marks allowed where
 * they are, and every node's content expression. `root` prefixes each issue's loc.
 */
export function parseDocAst(input: unknown, root: string[] = ["body", "doc_ast"]): ParsedDocAst {
  const schema = editorSchema();
  const issues: ValidationIssue[] = [];
  const issue = (
    loc: string[],
    msg: string,
    value: unknown,
    type = "value_error",
    ctx: Record<string, unknown> = {},
  ) => {
    if (issues.length < MAX_ISSUES) issues.push({ loc, msg, type, input: value ?? null, ctx });
  };

  const isObject = (v: unknown): v is Record<string, unknown> =>
    typeof v === "object" && v !== null && !Array.isArray(v);

  const attrsOf = (
    kind: "node" | "mark",
    typeName: string,
    spec: Record<string, unknown>,
    raw: unknown,
    loc: string[],
  ): Record<string, AttrValue> | null => {
    if (raw === undefined || raw === null) return {};
    if (!isObject(raw)) {
      issue([...loc, "attrs"], "Input should be a valid dictionary", raw, "dict_type");
      return null;
    }
    let ok = true;
    const out: Record<string, AttrValue> = {};
    for (const [name, value] of Object.entries(raw)) {
      const at = [...loc, "attrs", name];
      if (!(name in spec)) {
        issue(at, `Unknown attribute '${name}' for ${kind} type '${typeName}'`, value, "extra_forbidden");
        ok = false;
        continue;
      }
      if (value !== null && !["string", "number", "boolean"].includes(typeof value)) {
        issue(at, "Attribute values must be a string, number, boolean or null", value);
        ok = false;
        continue;
      }
      const rule = ATTR_RULES[`${typeName}.${name}`];
      const problem = value === null && name !== "level" ? null : rule?.(value as AttrValue);
      if (problem) {
        issue(at, `Input should be ${problem}`, value);
        ok = false;
        continue;
      }
      out[name] = value as AttrValue;
    }
    return ok ? out : null;
  };

  const marksOf = (raw: unknown, loc: string[]): readonly Mark[] | null => {
    if (raw === undefined || raw === null) return [];
    if (!Array.isArray(raw)) {
      issue([...loc, "marks"], "Input should be a valid list", raw, "list_type");
      return null;
    }
    let ok = true;
    let marks: readonly Mark[] = [];
    raw.forEach((m, i) => {
      const at = [...loc, "marks", String(i)];
      if (!isObject(m) || typeof m.type !== "string") {
        issue([...at, "type"], "A mark needs a string type", isObject(m) ? m.type : m, "missing");
        ok = false;
        return;
      }
      const markType = schema.marks[m.type];
      if (!markType) {
        issue([...at, "type"], `Unknown mark type '${m.type}'`, m.type, "enum", {
          expected: Object.keys(schema.marks),
        });
        ok = false;
        return;
      }
      const attrs = attrsOf("mark", m.type, markType.spec.attrs ?? {}, m.attrs, at);
      if (!attrs) {
        ok = false;
        return;
      }
      marks = markType.create(attrs).addToSet(marks);
    });
    return ok ? marks : null;
  };

  const build = (raw: unknown, loc: string[], depth: number): PmNode | null => {
    if (!isObject(raw)) {
      issue(loc, "Input should be a valid dictionary", raw, "dict_type");
      return null;
    }
    if (depth > MAX_DOC_DEPTH) {
      issue(loc, `The document is nested deeper than ${MAX_DOC_DEPTH} levels`, null);
      return null;
    }
    if (typeof raw.type !== "string") {
      issue(
        [...loc, "type"],
        raw.type === undefined ? "Field required" : "Input should be a valid string",
        raw.type,
        raw.type === undefined ? "missing" : "string_type",
      );
      return null;
    }
    const nodeType = schema.nodes[raw.type];
    if (!nodeType) {
      issue([...loc, "type"], `Unknown node type '${raw.type}'`, raw.type, "enum", {
        expected: Object.keys(schema.nodes),
      });
      return null;
    }
    for (const key of Object.keys(raw)) {
      if (!["type", "attrs", "content", "marks", "text"].includes(key)) {
        issue([...loc, key], "Extra inputs are not permitted", raw[key], "extra_forbidden");
      }
    }
    const marks = marksOf(raw.marks, loc);
    if (nodeType.isText) {
      if (typeof raw.text !== "string" || raw.text.length === 0) {
        issue(
          [...loc, "text"],
          "A text node needs non-empty text",
          raw.text,
          raw.text === undefined ? "missing" : "value_error",
        );
        return null;
      }
      if (raw.content !== undefined)
        issue([...loc, "content"], "A text node has no content", raw.content, "extra_forbidden");
      if (raw.attrs !== undefined)
        issue([...loc, "attrs"], "A text node has no attributes", raw.attrs, "extra_forbidden");
      return marks ? schema.text(raw.text, marks) : null;
    }
    if (raw.text !== undefined) issue([...loc, "text"], "Only text nodes carry text", raw.text, "extra_forbidden");
    const attrs = attrsOf("node", raw.type, nodeType.spec.attrs ?? {}, raw.attrs, loc);
    let children: PmNode[] | null = [];
    if (raw.content !== undefined && raw.content !== null) {
      if (!Array.isArray(raw.content)) {
        issue([...loc, "content"], "Input should be a valid list", raw.content, "list_type");
        children = null;
      } else {
        raw.content.forEach((child, i) => {
          const node = build(child, [...loc, "content", String(i)], depth + 1);
          if (!node) children = null;
          else children?.push(node);
          if (node && !nodeType.allowsMarks(node.marks)) {
            issue([...loc, "content", String(i), "marks"], `Marks not allowed inside '${raw.type}'`, null);
            children = null;
          }
        });
      }
    }
    if (!children || !attrs || !marks) return null;
    const fragment = Fragment.fromArray(children);
    if (!nodeType.validContent(fragment)) {
      issue(
        [...loc, "content"],
        `Invalid content for node '${raw.type}' (expected ${nodeType.spec.content ?? "no content"})`,
        children.map((c) => c.type.name),
      );
      return null;
    }
    try {
      return nodeType.create(attrs, fragment, marks);
    } catch (err) {
      issue(loc, (err as Error).message, null);
      return null;
    }
  };

  if (isObject(input) && input.type !== schema.topNodeType.name && typeof input.type === "string") {
    issue([...root, "type"], `The root node must be '${schema.topNodeType.name}'`, input.type, "literal_error", {
      expected: `'${schema.topNodeType.name}'`,
    });
    return { ok: false, issues };
  }
  const node = build(input, root, 0);
  if (!node || issues.length > 0) return { ok: false, issues };
  return { ok: true, node };
}

/** The document's doc_ast for an empty Y.Doc: one empty paragraph, as Tiptap starts one. */
export function emptyDoc(): PmNode {
  const doc = editorSchema().topNodeType.createAndFill();
  if (!doc) throw new Error("the editor schema cannot fill an empty document");
  return doc;
}
