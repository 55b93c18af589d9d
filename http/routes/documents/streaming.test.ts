/**
 * The upload body is streamed: a file past 50 MB is refused while it is still arriving (the
 * server stops reading and answers 413), and uploads beyond the per-instance bound are
 * refused with 503 + Retry-After before their body is read.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { MAX_UPLOAD_BYTES } from "../../../domain/documents/types.ts";
import { type Caller, type DocsFixture, startDocsFixture } from "../../../test/fixtures/documents-app.ts";
import { rawSocket } from "../../../test/raw-socket.ts";
import { HOSTILE_PENALTY_MS } from "./upload-route.ts";

const MB = 1024 * 1024;

/**
 * The request as the service sees it, with its body counted as the service reads it: the
 * 413 test asserts on how many bytes the server consumed, which no machine load changes.
 */
function counted(req: Request, read: { bytes: number }): Request {
  if (!req.body) return req;
  const body = req.body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        read.bytes += chunk.byteLength;
        controller.enqueue(chunk);
      },
    }),
  );
  // @ts-expect-error Bun accepts a streamed request body
  return new Request(req, { body, duplex: "half" });
}

describe("413 while streaming", () => {
  let fx: DocsFixture;
  let alice: Caller;
  let server: ReturnType<typeof Bun.serve>;
  const read = { bytes: 0 };

  beforeAll(async () => {
    fx = await startDocsFixture();
    alice = await fx.caller(`stream-${crypto.randomUUID()}@example.com`, ["analyst"]);
    server = Bun.serve({ port: 0, fetch: (req) => fx.svc.service.fetch(counted(req, read)) });
  });
  afterAll(async () => {
    server.stop(true);
    await fx.svc.close();
  });

  test("a 200 MB chunked upload is answered 413 once the server has read just past 50 MB", async () => {
    const boundary = "----cairnboundary";
    const head =
      `--${boundary}\r\nContent-Disposition: form-data; name="tenant_id"\r\n\r\n${fx.svc.tenantId}\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="identity_id"\r\n\r\n${alice.user.id}\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="huge.txt"\r\n` +
      "Content-Type: text/plain\r\n\r\n";
    const target = 200 * MB;
    const sock = await rawSocket(server.port as number);
    const framed = (data: Buffer | string) => {
      const b = typeof data === "string" ? Buffer.from(data) : data;
      return Buffer.concat([Buffer.from(`${b.length.toString(16)}\r\n`), b, Buffer.from("\r\n")]);
    };
    await sock.write(
      `POST /v1/documents/upload HTTP/1.1\r\nHost: cairn.test\r\nX-API-Key: ${alice.key}\r\n` +
        `Content-Type: multipart/form-data; boundary=${boundary}\r\nTransfer-Encoding: chunked\r\n\r\n`,
    );
    await sock.write(framed(head));
    const block = framed(Buffer.alloc(MB, "a".charCodeAt(0)));
    let sent = 0;
    // Write only as fast as the server reads; stop at the answer. The loop is bounded by
    // bytes (target), never by a clock.
    while (sent < target && (await sock.write(block))) sent += MB;
    const response = await sock.answer();
    sock.destroy();
    expect(response.startsWith("HTTP/1.1 413")).toBe(true);
    expect(response).toContain('{"detail":"The file exceeds the upload limit of 50 MB"}');
    // The server read past the limit (it had to, to know) and stopped within one read of it:
    // the head, 50 MB of file, and at most the chunk that crossed the line (1 MiB here).
    expect(read.bytes).toBeGreaterThan(MAX_UPLOAD_BYTES);
    expect(read.bytes).toBeLessThan(MAX_UPLOAD_BYTES + 2 * MB);
    // The client was stopped long before the end of its 200 MB (socket buffers hold a few MB).
    expect(sent).toBeLessThan(MAX_UPLOAD_BYTES + 40 * MB);
  }, 300_000);

  test("a file of exactly 50 MB is not refused for its size", async () => {
    // The 413 above (the body was read) refuses this tenant's uploads for a moment.
    await Bun.sleep(HOSTILE_PENALTY_MS + 100);
    // All spaces: it passes the size check, then has no text (422), which proves the 413 did not fire.
    const file = new File([new Uint8Array(MAX_UPLOAD_BYTES).fill(0x20)], "spaces.txt", { type: "text/plain" });
    const res = await fx.upload(alice, file);
    expect(res.status).toBe(422);
  }, 120_000);

  test("one byte more is 413", async () => {
    const file = new File([new Uint8Array(MAX_UPLOAD_BYTES + 1).fill(0x20)], "spaces.txt", { type: "text/plain" });
    const res = await fx.upload(alice, file);
    expect(res.status).toBe(413);
  }, 120_000);
});

describe("bounded uploads per instance", () => {
  let fx: DocsFixture;
  let alice: Caller;

  beforeAll(async () => {
    fx = await startDocsFixture({ CAIRN_UPLOAD_CONCURRENCY: "1", CAIRN_UPLOAD_QUEUE: "0" });
    alice = await fx.caller(`gate-${crypto.randomUUID()}@example.com`, ["analyst"]);
  });
  afterAll(() => fx.svc.close());

  test("a second upload while the only slot is busy is 503 with Retry-After; the slot is released after", async () => {
    const boundary = "gateboundary";
    const ctl: { push: (s: string) => void; finish: () => void } = { push: () => {}, finish: () => {} };
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        const enc = new TextEncoder();
        ctl.push = (s) => controller.enqueue(enc.encode(s));
        ctl.finish = () => controller.close();
      },
    });
    const slow = fx.svc.request("/v1/documents/upload", {
      method: "POST",
      headers: { "x-api-key": alice.key, "content-type": `multipart/form-data; boundary=${boundary}` },
      body,
      // @ts-expect-error Bun accepts a streamed request body
      duplex: "half",
    });
    ctl.push(`--${boundary}\r\nContent-Disposition: form-data; name="tenant_id"\r\n\r\n${fx.svc.tenantId}\r\n`);
    await Bun.sleep(50);

    const refused = await fx.upload(alice, new File(["hello"], "x.txt"));
    expect(refused.status).toBe(503);
    expect(refused.headers.get("retry-after")).toBe("5");

    ctl.push(`--${boundary}\r\nContent-Disposition: form-data; name="identity_id"\r\n\r\n${alice.user.id}\r\n`);
    ctl.push(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="e.txt"\r\n\r\n\r\n--${boundary}--\r\n`,
    );
    ctl.finish();
    const first = await slow;
    expect(first.status).toBe(422);
    expect(((await first.json()) as { detail: { type: string }[] }).detail[0]?.type).toBe("empty_file");

    const after = await fx.upload(alice, new File([""], "again.txt"));
    expect(after.status).toBe(422);
  });
});
