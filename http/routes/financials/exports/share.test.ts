import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestService, type TestService } from "../../../../test/harness.ts";
import { addressesOf, startTestSmtp, type TestSmtp } from "../../../../test/smtp.ts";

let smtp: TestSmtp;
let svc: TestService;
let key: string;
beforeAll(async () => {
  smtp = await startTestSmtp();
  svc = await startTestService({ CAIRN_SMTP_URL: smtp.url, CAIRN_MAIL_FROM: "Cairn Shares <shares@cairn.test>" });
  key = await svc.apiKey("sharer@example.com", "enterprise");
});
afterAll(async () => {
  await svc.close();
  await smtp.close();
});

const share = (body: unknown, apiKey = key) =>
  svc.request("/v1/share/email", {
    method: "POST",
    headers: { "x-api-key": apiKey, "content-type": "application/json" },
    body: JSON.stringify(body),
  });

const valid = { to: ["pm@example.com"], subject: "Apple margins", message: "Gross margin keeps rising." };

describe("POST /v1/share/email", () => {
  test("202: the message reaches the SMTP server with recipients, subject, body and reply-to", async () => {
    const before = smtp.received.length;
    const res = await share({ ...valid, to: ["pm@example.com", "cio@example.com"] });
    expect(res.status).toBe(202);
    const body = (await res.json()) as { message_id: string; accepted: string[]; rejected: string[] };
    expect(body.accepted).toEqual(["pm@example.com", "cio@example.com"]);
    expect(body.rejected).toEqual([]);
    const got = smtp.received[before]!;
    expect(got.parsed.messageId).toBe(body.message_id);
    expect(got.envelope.to).toEqual(["pm@example.com", "cio@example.com"]);
    expect(got.envelope.from).toBe("shares@cairn.test");
    expect(got.parsed.from?.text).toBe('"Cairn Shares" <shares@cairn.test>');
    expect(addressesOf(got.parsed.to)).toEqual(["pm@example.com", "cio@example.com"]);
    expect(got.parsed.replyTo?.value[0]?.address).toBe("sharer@example.com");
    expect(got.parsed.subject).toBe("Apple margins");
    expect(got.parsed.text).toStartWith("Gross margin keeps rising.\n\n--\nShared by ");
    expect(got.parsed.text).toContain("sharer@example.com");
    expect(got.parsed.attachments).toEqual([]);
  });

  test("recipients the server refuses are reported; all refused is 422", async () => {
    const partly = await share({ ...valid, to: ["pm@example.com", "gone@reject.test"] });
    expect(partly.status).toBe(202);
    expect(await partly.json()).toMatchObject({ accepted: ["pm@example.com"], rejected: ["gone@reject.test"] });
    const none = await share({ ...valid, to: ["gone@reject.test"] });
    expect(none.status).toBe(422);
    const body = (await none.json()) as { detail: { loc: string[] }[] };
    expect(body.detail[0]?.loc).toEqual(["body", "to"]);
  });

  test("header injection and malformed input are refused before anything is sent", async () => {
    const before = smtp.received.length;
    const cases: [unknown, string[]][] = [
      [{ ...valid, subject: "Hi\r\nBcc: victim@example.com" }, ["body", "subject"]],
      [{ ...valid, subject: "Hi\nX-Evil: 1" }, ["body", "subject"]],
      [{ ...valid, subject: "line\u2028separator" }, ["body", "subject"]],
      [{ ...valid, to: ["pm@example.com\r\nBcc: victim@example.com"] }, ["body", "to", "0"]],
      [{ ...valid, to: ["Evil <pm@example.com>"] }, ["body", "to", "0"]],
      [{ ...valid, to: [] }, ["body", "to"]],
      [{ ...valid, to: Array.from({ length: 21 }, (_, i) => `u${i}@example.com`) }, ["body", "to"]],
      [{ ...valid, to: ["a@example.com", "A@example.com"] }, ["body", "to", "1"]],
      [{ ...valid, subject: "" }, ["body", "subject"]],
      [{ ...valid, subject: "x".repeat(201) }, ["body", "subject"]],
      [{ ...valid, bcc: ["x@example.com"] }, ["body", "bcc"]],
      [{ ...valid, attachment: { kind: "pdf" } }, ["body", "attachment", "kind"]],
      [{ ...valid, attachment: { kind: "financials", cik: "AAPL" } }, ["body", "attachment", "cik"]],
      [{ ...valid, attachment: { kind: "comps", ciks: ["320193"] } }, ["body", "attachment", "ciks"]],
      [
        { ...valid, attachment: { kind: "comps", ciks: ["1", "2"], metrics: ["nope"] } },
        ["body", "attachment", "metrics", "0"],
      ],
    ];
    for (const [body, loc] of cases) {
      const res = await share(body);
      expect({ status: res.status, body }).toEqual({ status: 422, body });
      const detail = ((await res.json()) as { detail: { loc: string[] }[] }).detail;
      expect(detail.map((d) => d.loc)).toContainEqual(loc);
    }
    expect(smtp.received.length).toBe(before);
  });

  test("needs an API key; a bearer token alone is 401", async () => {
    const token = await svc.token("sharer@example.com");
    const res = await svc.request("/v1/share/email", {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify(valid),
    });
    expect(res.status).toBe(401);
    expect((await share(valid, "cairn_00000000_nope")).status).toBe(401);
  });

  test("rate-limited like every user route", async () => {
    const free = await svc.apiKey("free-sharer@example.com", "free");
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await share({ to: [] }, free)).status);
    expect(statuses).toEqual([422, 422, 422, 422, 422, 429]);
  });
});

describe("POST /v1/share/email without a mail server", () => {
  test("503 when CAIRN_SMTP_URL is not set", async () => {
    const bare = await startTestService();
    try {
      const res = await bare.request("/v1/share/email", {
        method: "POST",
        headers: { "x-api-key": await bare.apiKey("u@example.com"), "content-type": "application/json" },
        body: JSON.stringify(valid),
      });
      expect(res.status).toBe(503);
      expect(await res.json()).toEqual({ detail: "E-mail is not configured on this installation" });
    } finally {
      await bare.close();
    }
  });
});
