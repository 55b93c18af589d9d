import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { AppError } from "../../domain/errors.ts";
import { addressesOf, startTestSmtp, type TestSmtp } from "../../test/smtp.ts";
import { SmtpMailer } from "./index.ts";

let smtp: TestSmtp;
beforeAll(async () => {
  smtp = await startTestSmtp();
});
afterAll(() => smtp.close());

describe("SmtpMailer against a real SMTP server", () => {
  test("delivers recipients, subject, body, reply-to and the attachment bytes", async () => {
    const mailer = new SmtpMailer({ url: smtp.url, from: "Cairn <no-reply@cairn.test>" });
    const content = new Uint8Array([0x50, 0x4b, 3, 4, 1, 2, 3]);
    const before = smtp.received.length;
    const sent = await mailer.send({
      to: ["a@example.com", "b@example.com"],
      replyTo: "analyst@example.com",
      subject: "Q3 comps — Apple vs Microsoft",
      text: "See attached.\nSecond line.",
      attachments: [{ filename: "comps.xlsx", contentType: "application/octet-stream", content }],
    });
    expect(sent.accepted).toEqual(["a@example.com", "b@example.com"]);
    expect(sent.rejected).toEqual([]);
    expect(sent.messageId).toMatch(/^<.+@.+>$/);
    const got = smtp.received[before]!;
    expect(got.envelope).toEqual({ from: "no-reply@cairn.test", to: ["a@example.com", "b@example.com"] });
    expect(got.parsed.subject).toBe("Q3 comps — Apple vs Microsoft");
    expect(got.parsed.text).toBe("See attached.\nSecond line.");
    expect(got.parsed.replyTo?.value[0]?.address).toBe("analyst@example.com");
    expect(addressesOf(got.parsed.to)).toEqual(["a@example.com", "b@example.com"]);
    expect(got.parsed.messageId).toBe(sent.messageId);
    expect(got.parsed.attachments[0]?.filename).toBe("comps.xlsx");
    expect([...new Uint8Array(got.parsed.attachments[0]!.content)]).toEqual([...content]);
    await mailer.close();
  });

  test("a partly refused envelope reports the refused recipients", async () => {
    const mailer = new SmtpMailer({ url: smtp.url, from: "no-reply@cairn.test" });
    const sent = await mailer.send({
      to: ["ok@example.com", "nobody@reject.test"],
      subject: "s",
      text: "t",
      attachments: [],
    });
    expect(sent.accepted).toEqual(["ok@example.com"]);
    expect(sent.rejected).toEqual(["nobody@reject.test"]);
  });

  test("every recipient refused is a validation error naming body.to", async () => {
    const seen: string[] = [];
    const mailer = new SmtpMailer({
      url: smtp.url,
      from: "no-reply@cairn.test",
      onError: (e) => seen.push(e.code ?? ""),
    });
    const err = await mailer
      .send({ to: ["x@reject.test"], subject: "s", text: "t", attachments: [] })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe("validation");
    expect((err as AppError).issues?.[0]?.loc).toEqual(["body", "to"]);
    expect(seen).toEqual(["EENVELOPE"]);
  });

  test("an unreachable server is 'unavailable', quickly", async () => {
    // Bind and release a port so nothing listens on it.
    const probe = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
    const port = probe.port;
    probe.stop(true);
    const mailer = new SmtpMailer({
      url: `smtp://127.0.0.1:${port}`,
      from: "no-reply@cairn.test",
      connectionTimeoutMs: 2000,
    });
    const started = performance.now();
    const err = await mailer
      .send({ to: ["a@example.com"], subject: "s", text: "t", attachments: [] })
      .catch((e: unknown) => e);
    expect((err as AppError).code).toBe("unavailable");
    expect(performance.now() - started).toBeLessThan(5000);
  });
});
