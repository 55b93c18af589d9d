import { describe, expect, test } from "bun:test";
import type { ToolOperation } from "./catalogue.ts";
import { type RestReply, toolResult } from "./results.ts";

const op: ToolOperation = {
  method: "get",
  path: "/v1/x",
  pathParams: [],
  queryParams: [],
  body: "none",
  bodyProps: [],
  arrayResult: true,
  binary: null,
};
const limits = { maxBytes: 1024, maxBinaryBytes: 64 };
const json = (v: unknown, status = 200): RestReply => ({
  status,
  contentType: "application/json",
  body: new TextEncoder().encode(JSON.stringify(v)),
  filename: null,
});

describe("tool results", () => {
  test("an array past the budget is paged: every item exactly once, with an explicit marker", () => {
    const items = Array.from({ length: 50 }, (_, i) => ({ i, pad: "x".repeat(60) }));
    const seen: unknown[] = [];
    let offset: number | null = 0;
    let pages = 0;
    while (offset !== null) {
      const r = toolResult(op, json(items), offset, limits);
      const s = r.structuredContent as { items: unknown[]; page: { next_offset: number | null; total: number } };
      expect(s.page.total).toBe(50);
      expect(Buffer.byteLength(JSON.stringify(s))).toBeLessThanOrEqual(1024);
      if (s.page.next_offset !== null) {
        expect(r.content.at(-1)).toEqual({
          type: "text",
          text: expect.stringContaining(`result_offset=${s.page.next_offset}`) as unknown as string,
        });
      }
      seen.push(...s.items);
      offset = s.page.next_offset;
      pages++;
    }
    expect(seen).toEqual(items);
    expect(pages).toBeGreaterThan(3);
  });

  test("an object past the budget keeps its shape; the longest string is cut and the cut is named", () => {
    const body = { title: "t", markdown: "m".repeat(5000), n: 1 };
    const r = toolResult({ ...op, arrayResult: false }, json(body), 0, limits);
    const s = r.structuredContent as typeof body;
    expect(Object.keys(s)).toEqual(["title", "markdown", "n"]);
    expect(s.title).toBe("t");
    expect(s.markdown).toMatch(/^m+…\[truncated \d+ of 5000 characters\]$/);
    expect(Buffer.byteLength(JSON.stringify(s))).toBeLessThanOrEqual(1024);
    const truncated = r._meta?.["cairn/truncated"] as { cuts: { path: string }[] };
    expect(truncated.cuts[0]?.path).toBe("markdown");
  });

  test("a refusal is a tool error carrying the REST body unchanged", () => {
    const detail = [{ loc: ["query", "limit"], msg: "m", type: "less_than_equal", input: "41", ctx: { le: 40 } }];
    const r = toolResult(op, json({ detail }, 422), 0, limits);
    expect(r.isError).toBe(true);
    expect(r.structuredContent).toBeUndefined();
    expect(JSON.parse((r.content[0] as { text: string }).text)).toEqual({ detail });
  });

  test("a binary body is an embedded base64 resource; past the limit, a pointer to the REST download", () => {
    const bytes = new Uint8Array([0x50, 0x4b, 3, 4, 255]);
    const reply = { status: 200, contentType: "application/vnd.x; q=1", body: bytes, filename: "a.xlsx" };
    const r = toolResult({ ...op, binary: "application/vnd.x" }, reply, 0, limits);
    expect(r.content[1]).toEqual({
      type: "resource",
      resource: { uri: "cairn:///a.xlsx", mimeType: "application/vnd.x", blob: Buffer.from(bytes).toString("base64") },
    });
    const big = toolResult(op, { ...reply, body: new Uint8Array(100) }, 0, limits);
    expect(big.content).toHaveLength(1);
    expect((big.content[0] as { text: string }).text).toContain("REST GET /v1/x");
  });
});
