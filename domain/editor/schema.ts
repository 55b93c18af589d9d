/**
 * The rich-text schema of editor documents: Tiptap's StarterKit, the schema the web editor
 * and `@tiptap/core`'s Collaboration extension use, so doc_ast, the Y.Doc and every client
 * agree on node and mark names. `parseDocAst` turns untrusted JSON into a checked
 * ProseMirror node or section-7 issues that point at the offending part of the tree.
 */
import { getSchema } from "@tiptap/core";
import { Fragment, type Mark, type NodeType, type Node as PmNode, type Schema } from "@tiptap/pm/model";
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
  const checker = new DocAstChecker(editorSchema());
  if (isObject(input) && input.type !== checker.schema.topNodeType.name && typeof input.type === "string") {
    checker.issue(
      [...root, "type"],
      `The root node must be '${checker.schema.topNodeType.name}'`,
      input.type,
      "literal_error",
      {
        expected: `'${checker.schema.topNodeType.name}'`,
      },
    );
    return { ok: false, issues: checker.issues };
  }
  const node = checker.build(input, root, 0);
  if (!node || checker.issues.length > 0) return { ok: false, issues: checker.issues };
  return { ok: true, node };
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

type RawNode = Record<string, unknown> & { type: string };

/** One walk over untrusted doc_ast: builds the node and collects the issues (at most MAX_ISSUES). */
class DocAstChecker {
  readonly issues: ValidationIssue[] = [];

  constructor(readonly schema: Schema) {}

  issue(loc: string[], msg: string, value: unknown, type = "value_error", ctx: Record<string, unknown> = {}): void {
    if (this.issues.length < MAX_ISSUES) this.issues.push({ loc, msg, type, input: value ?? null, ctx });
  }

  build(raw: unknown, loc: string[], depth: number): PmNode | null {
    const nodeType = this.nodeTypeOf(raw, loc, depth);
    if (!nodeType) return null;
    const node = raw as RawNode;
    const marks = this.marksOf(node.marks, loc);
    if (nodeType.isText) return this.textNode(node, loc, marks);
    if (node.text !== undefined)
      this.issue([...loc, "text"], "Only text nodes carry text", node.text, "extra_forbidden");
    const attrs = this.attrsOf("node", node.type, nodeType.spec.attrs ?? {}, node.attrs, loc);
    const children = this.childrenOf(node, nodeType, loc, depth);
    if (!children || !attrs || !marks) return null;
    const fragment = Fragment.fromArray(children);
    if (!nodeType.validContent(fragment)) {
      this.issue(
        [...loc, "content"],
        `Invalid content for node '${node.type}' (expected ${nodeType.spec.content ?? "no content"})`,
        children.map((c) => c.type.name),
      );
      return null;
    }
    try {
      return nodeType.create(attrs, fragment, marks);
    } catch (err) {
      this.issue(loc, (err as Error).message, null);
      return null;
    }
  }

  /** The node's type once its shape is checked (a dictionary, not too deep, a known type), else null. */
  private nodeTypeOf(raw: unknown, loc: string[], depth: number): NodeType | null {
    if (!isObject(raw)) {
      this.issue(loc, "Input should be a valid dictionary", raw, "dict_type");
      return null;
    }
    if (depth > MAX_DOC_DEPTH) {
      this.issue(loc, `The document is nested deeper than ${MAX_DOC_DEPTH} levels`, null);
      return null;
    }
    if (typeof raw.type !== "string") {
      this.issue(
        [...loc, "type"],
        raw.type === undefined ? "Field required" : "Input should be a valid string",
        raw.type,
        raw.type === undefined ? "missing" : "string_type",
      );
      return null;
    }
    const nodeType = this.schema.nodes[raw.type];
    if (!nodeType) {
      this.issue([...loc, "type"], `Unknown node type '${raw.type}'`, raw.type, "enum", {
        expected: Object.keys(this.schema.nodes),
      });
      return null;
    }
    for (const key of Object.keys(raw)) {
      if (!["type", "attrs", "content", "marks", "text"].includes(key)) {
        this.issue([...loc, key], "Extra inputs are not permitted", raw[key], "extra_forbidden");
      }
    }
    return nodeType;
  }

  private textNode(raw: RawNode, loc: string[], marks: readonly Mark[] | null): PmNode | null {
    if (typeof raw.text !== "string" || raw.text.length === 0) {
      this.issue(
        [...loc, "text"],
        "A text node needs non-empty text",
        raw.text,
        raw.text === undefined ? "missing" : "value_error",
      );
      return null;
    }
    if (raw.content !== undefined)
      this.issue([...loc, "content"], "A text node has no content", raw.content, "extra_forbidden");
    if (raw.attrs !== undefined)
      this.issue([...loc, "attrs"], "A text node has no attributes", raw.attrs, "extra_forbidden");
    return marks ? this.schema.text(raw.text, marks) : null;
  }

  /** The checked children, or null when one of them (or the content field) is refused. */
  private childrenOf(raw: RawNode, nodeType: NodeType, loc: string[], depth: number): PmNode[] | null {
    let children: PmNode[] | null = [];
    if (raw.content !== undefined && raw.content !== null) {
      if (!Array.isArray(raw.content)) {
        this.issue([...loc, "content"], "Input should be a valid list", raw.content, "list_type");
        children = null;
      } else {
        raw.content.forEach((child, i) => {
          const node = this.build(child, [...loc, "content", String(i)], depth + 1);
          if (!node) children = null;
          else children?.push(node);
          if (node && !nodeType.allowsMarks(node.marks)) {
            this.issue([...loc, "content", String(i), "marks"], `Marks not allowed inside '${raw.type}'`, null);
            children = null;
          }
        });
      }
    }
    return children;
  }

  private attrsOf(
    kind: "node" | "mark",
    typeName: string,
    spec: Record<string, unknown>,
    raw: unknown,
    loc: string[],
  ): Record<string, AttrValue> | null {
    if (raw === undefined || raw === null) return {};
    if (!isObject(raw)) {
      this.issue([...loc, "attrs"], "Input should be a valid dictionary", raw, "dict_type");
      return null;
    }
    let ok = true;
    const out: Record<string, AttrValue> = {};
    for (const [name, value] of Object.entries(raw)) {
      const at = [...loc, "attrs", name];
      if (!(name in spec)) {
        this.issue(at, `Unknown attribute '${name}' for ${kind} type '${typeName}'`, value, "extra_forbidden");
        ok = false;
        continue;
      }
      if (value !== null && !["string", "number", "boolean"].includes(typeof value)) {
        this.issue(at, "Attribute values must be a string, number, boolean or null", value);
        ok = false;
        continue;
      }
      const rule = ATTR_RULES[`${typeName}.${name}`];
      const problem = value === null && name !== "level" ? null : rule?.(value as AttrValue);
      if (problem) {
        this.issue(at, `Input should be ${problem}`, value);
        ok = false;
        continue;
      }
      out[name] = value as AttrValue;
    }
    return ok ? out : null;
  }

  private marksOf(raw: unknown, loc: string[]): readonly Mark[] | null {
    if (raw === undefined || raw === null) return [];
    if (!Array.isArray(raw)) {
      this.issue([...loc, "marks"], "Input should be a valid list", raw, "list_type");
      return null;
    }
    let ok = true;
    let marks: readonly Mark[] = [];
    raw.forEach((m, i) => {
      const at = [...loc, "marks", String(i)];
      if (!isObject(m) || typeof m.type !== "string") {
        this.issue([...at, "type"], "A mark needs a string type", isObject(m) ? m.type : m, "missing");
        ok = false;
        return;
      }
      const markType = this.schema.marks[m.type];
      if (!markType) {
        this.issue([...at, "type"], `Unknown mark type '${m.type}'`, m.type, "enum", {
          expected: Object.keys(this.schema.marks),
        });
        ok = false;
        return;
      }
      const attrs = this.attrsOf("mark", m.type, markType.spec.attrs ?? {}, m.attrs, at);
      if (!attrs) {
        ok = false;
        return;
      }
      marks = markType.create(attrs).addToSet(marks);
    });
    return ok ? marks : null;
  }
}

/** The document's doc_ast for an empty Y.Doc: one empty paragraph, as Tiptap starts one. */
export function emptyDoc(): PmNode {
  const doc = editorSchema().topNodeType.createAndFill();
  if (!doc) throw new Error("the editor schema cannot fill an empty document");
  return doc;
}
