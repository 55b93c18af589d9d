import { afterAll, describe, expect, test } from "bun:test";
import * as Y from "yjs";
import { applyDocAst, mergeStates, parseDocAst, YDOC_FIELD } from "../../domain/editor/index.ts";
import { CrdtMergePool } from "./merge-pool.ts";

function bigState(paragraphs: number): Uint8Array {
  const r = parseDocAst({
    type: "doc",
    content: Array.from({ length: paragraphs }, (_, i) => ({
      type: "paragraph",
      content: [{ type: "text", text: `Paragraph ${i} lorem ipsum dolor sit amet` }],
    })),
  });
  if (!r.ok) throw new Error("bad doc");
  const doc = new Y.Doc();
  doc.transact(() => applyDocAst(doc, r.node));
  return Y.encodeStateAsUpdate(doc);
}

describe("CrdtMergePool", () => {
  // Everything goes to the thread in these tests.
  const pool = new CrdtMergePool({ threads: 2, inlineMaxBytes: 0, maxQueued: 4 });
  afterAll(() => pool.close());

  test("merges on a thread with the same result as inline", async () => {
    const base = bigState(2_000);
    const doc = new Y.Doc();
    Y.applyUpdate(doc, base);
    ((doc.getXmlFragment(YDOC_FIELD).get(1_000) as Y.XmlElement).get(0) as Y.XmlText).insert(0, "EDIT ");
    const incoming = Y.encodeStateAsUpdate(doc);
    const viaThread = await pool.merge(base, incoming);
    const inline = mergeStates(base, incoming);
    expect(Buffer.compare(viaThread.state, inline.state)).toBe(0);
    expect(viaThread.docAst).toEqual(inline.docAst);
    const content = viaThread.docAst.content as { content: { text: string }[] }[];
    expect(content[1_000]?.content[0]?.text).toStartWith("EDIT Paragraph 1000");
  });

  test("a state that cannot be applied is refused with the reason; the thread keeps working", async () => {
    await expect(pool.merge(null, new Uint8Array([1, 200, 200, 200, 200, 200]))).rejects.toThrow();
    const ok = await pool.merge(null, bigState(3));
    expect((ok.docAst.content as unknown[]).length).toBe(3);
  });

  test("past maxQueued a merge is refused with 503 instead of queueing without end", async () => {
    const state = bigState(500);
    const results = await Promise.allSettled(Array.from({ length: 6 }, () => pool.merge(null, state)));
    const refused = results.filter((r) => r.status === "rejected");
    expect(refused.length).toBe(2);
    expect((refused[0] as PromiseRejectedResult).reason).toMatchObject({ code: "unavailable" });
  });
});
