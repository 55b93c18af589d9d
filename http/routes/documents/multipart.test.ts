/** Multipart edge cases of the upload route (issue 13): an unnamed part is a proper section 7 issue. */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { type Caller, type DocsFixture, startDocsFixture } from "../../../test/fixtures/documents-app.ts";

let fx: DocsFixture;
let alice: Caller;

beforeAll(async () => {
  fx = await startDocsFixture();
  alice = await fx.caller(`multipart-${crypto.randomUUID()}@example.com`, ["analyst"]);
});
afterAll(() => fx.svc.close());

const expectIssue = async (res: Response, loc: string[], type: string) => {
  expect(res.status).toBe(422);
  const body = (await res.json()) as { detail: Record<string, unknown>[] };
  expect(body.detail).toContainEqual(expect.objectContaining({ loc, type }));
  return body;
};

test("a part with an empty or no field name is a section 7 issue at loc ['body', ''], never null", async () => {
  for (const disposition of ['form-data; name=""', "form-data"]) {
    const b = "emptyname";
    const body =
      `--${b}\r\nContent-Disposition: form-data; name="tenant_id"\r\n\r\n${fx.svc.tenantId}\r\n` +
      `--${b}\r\nContent-Disposition: form-data; name="identity_id"\r\n\r\n${alice.user.id}\r\n` +
      `--${b}\r\nContent-Disposition: ${disposition}\r\n\r\nstray\r\n` +
      `--${b}\r\nContent-Disposition: form-data; name="file"; filename="n.txt"\r\n\r\nA short note.\r\n--${b}--\r\n`;
    const res = await fx.svc.request("/v1/documents/upload", {
      method: "POST",
      headers: { "x-api-key": alice.key, "content-type": `multipart/form-data; boundary=${b}` },
      body,
    });
    const problem = await expectIssue(res, ["body", ""], "extra_forbidden");
    expect(
      problem.detail.every((i) => Array.isArray(i.loc) && (i.loc as unknown[]).every((x) => typeof x === "string")),
    ).toBe(true);
  }
});
