import { describe, expect, test } from "bun:test";
import * as Y from "yjs";
import { parseDocAst } from "./schema.ts";
import { type DocAst, YDOC_FIELD } from "./types.ts";
import { applyDocAst, docAstOf, docAstOfState, mergeStates } from "./ydoc.ts";

const para = (text: string) => ({ type: "paragraph", content: [{ type: "text", text }] });
const docOf = (...texts: string[]) => ({ type: "doc", content: texts.map(para) });

function node(ast: unknown) {
  const r = parseDocAst(ast);
  if (!r.ok) throw new Error(JSON.stringify(r.issues));
  return r.node;
}

/** A Y.Doc holding `ast`, built the way a PATCH writes (used as the "server" copy). */
function serverDoc(ast: unknown): Y.Doc {
  const doc = new Y.Doc();
  doc.transact(() => applyDocAst(doc, node(ast)));
  return doc;
}

function sync(a: Y.Doc, b: Y.Doc) {
  Y.applyUpdate(b, Y.encodeStateAsUpdate(a, Y.encodeStateVector(b)));
  Y.applyUpdate(a, Y.encodeStateAsUpdate(b, Y.encodeStateVector(a)));
}

const textAt = (doc: Y.Doc, i: number) =>
  ((doc.getXmlFragment(YDOC_FIELD).get(i) as Y.XmlElement).get(0) as Y.XmlText) ?? null;

describe("applyDocAst (updateYFragment, minimal diff)", () => {
  test("a PATCH and concurrent client edits in other blocks and in the same block all survive", () => {
    const server = serverDoc(docOf("Alpha", "Beta", "Gamma"));
    const client = new Y.Doc();
    sync(server, client);
    const alphaBefore = server.getXmlFragment(YDOC_FIELD).get(0);

    // The client types while the agent's PATCH is being applied (neither has seen the other).
    textAt(client, 0).insert(5, " one");
    textAt(client, 1).insert(0, "X");
    textAt(client, 2).insert(5, "!");

    let updates = 0;
    server.on("update", () => updates++);
    server.transact(() => applyDocAst(server, node(docOf("Alpha", "Beta two", "Gamma"))), "rest");
    expect(updates).toBe(1); // one transaction, one update for collaborators
    // Unchanged blocks are the same Y types (not deleted and re-inserted).
    expect(server.getXmlFragment(YDOC_FIELD).get(0)).toBe(alphaBefore);

    sync(server, client);
    const expected = docOf("Alpha one", "XBeta two", "Gamma!");
    expect(docAstOf(server)).toEqual(expected);
    expect(docAstOf(client)).toEqual(expected);
  });

  test("marks, attributes and structure changes round-trip through the Y.Doc", () => {
    const ast = {
      type: "doc",
      content: [
        { type: "heading", attrs: { level: 3 }, content: [{ type: "text", text: "H" }] },
        {
          type: "paragraph",
          content: [
            { type: "text", text: "bold", marks: [{ type: "bold" }] },
            { type: "text", text: " plain" },
          ],
        },
        {
          type: "orderedList",
          attrs: { start: 3, type: null },
          content: [{ type: "listItem", content: [para("one")] }],
        },
      ],
    };
    const canonical = node(ast).toJSON() as DocAst;
    const doc = serverDoc(docOf("old"));
    doc.transact(() => applyDocAst(doc, node(ast)));
    expect(docAstOf(doc)).toEqual(canonical);
    expect(docAstOfState(Y.encodeStateAsUpdate(doc))).toEqual(canonical);
  });

  test("an empty Y.Doc reads as one empty paragraph", () => {
    expect(docAstOf(new Y.Doc())).toEqual({ type: "doc", content: [{ type: "paragraph" }] });
  });

  test("mergeStates keeps both sides and is idempotent", () => {
    const base = serverDoc(docOf("one"));
    const a = new Y.Doc();
    Y.applyUpdate(a, Y.encodeStateAsUpdate(base));
    textAt(a, 0).insert(3, " A");
    const first = mergeStates(Y.encodeStateAsUpdate(base), Y.encodeStateAsUpdate(a));
    expect(first.docAst).toEqual(docOf("one A"));
    // A stale writer (the base) does not erase A's edit.
    const second = mergeStates(first.state, Y.encodeStateAsUpdate(base));
    expect(second.docAst).toEqual(docOf("one A"));
    expect(Buffer.compare(second.state, first.state)).toBe(0);
  });
});
