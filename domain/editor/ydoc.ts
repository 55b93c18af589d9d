/**
 * The two representations of an editor document (spec 2.12) and the bridge between them:
 * the Y.Doc (CRDT, source of truth for the real-time editor) and doc_ast (ProseMirror JSON,
 * derived from the Y.Doc on the server). Nothing here rebuilds a Y.Doc from JSON: doc_ast is
 * applied to an existing Y.Doc as a minimal diff, so concurrent edits survive.
 */
import type { Node as PmNode } from "@tiptap/pm/model";
import { updateYFragment, yXmlFragmentToProseMirrorRootNode } from "y-prosemirror";
import * as Y from "yjs";
import { editorSchema, emptyDoc } from "./schema.ts";
import { type DocAst, YDOC_FIELD } from "./types.ts";

type BindingMeta = Parameters<typeof updateYFragment>[3];

/**
 * Rewrites the document's rich-text field to `node` with y-prosemirror's `updateYFragment`:
 * unchanged prefix and suffix blocks are kept, changed text is diffed character-wise. Call it
 * inside the caller's transaction (`doc.transact(..., origin)`) so collaborators get one update.
 */
export function applyDocAst(doc: Y.Doc, node: PmNode): void {
  const meta = { mapping: new Map(), isOMark: new Map() } as unknown as BindingMeta;
  updateYFragment(doc, doc.getXmlFragment(YDOC_FIELD), node, meta);
}

/**
 * doc_ast of a Y.Doc: the ProseMirror JSON Tiptap would show. Elements the schema does not
 * know are left out (y-prosemirror deletes them from the doc it reads, so read a copy when
 * the state must stay untouched). An empty fragment reads as one empty paragraph.
 */
export function docAstOf(doc: Y.Doc): DocAst {
  const node = yXmlFragmentToProseMirrorRootNode(doc.getXmlFragment(YDOC_FIELD), editorSchema());
  return (node.content.size === 0 ? emptyDoc() : node).toJSON() as DocAst;
}

/** A fresh Y.Doc holding `state` (null: empty). Throws on bytes that are not a Yjs update. */
export function docFromState(state: Uint8Array | null): Y.Doc {
  const doc = new Y.Doc();
  if (state && state.byteLength > 0) Y.applyUpdate(doc, state);
  return doc;
}

/** doc_ast of a stored state, read on a throwaway doc. */
export function docAstOfState(state: Uint8Array | null): DocAst {
  const doc = docFromState(state);
  try {
    return docAstOf(doc);
  } finally {
    doc.destroy();
  }
}

/**
 * Merges CRDT states: the result holds every update of both (Yjs updates commute and are
 * idempotent), re-encoded compactly. A writer holding a stale copy therefore never erases
 * updates another writer stored first. Returns the merged state and its doc_ast.
 */
export function mergeStates(stored: Uint8Array | null, incoming: Uint8Array): { state: Uint8Array; docAst: DocAst } {
  const doc = docFromState(stored);
  try {
    Y.applyUpdate(doc, incoming);
    // Encode before reading doc_ast: reading may drop elements the schema does not know,
    // which must not become part of the stored CRDT state.
    const state = Y.encodeStateAsUpdate(doc);
    return { state, docAst: docAstOf(doc) };
  } finally {
    doc.destroy();
  }
}

/** True when `bytes` decode as a Yjs update (v1). */
export function isYjsUpdate(bytes: Uint8Array): boolean {
  try {
    Y.decodeUpdate(bytes);
    return true;
  } catch {
    return false;
  }
}
