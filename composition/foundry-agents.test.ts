/**
 * The agents' outgoing channels against a real local HTTP server: a webhook that answers
 * too slowly is abandoned at the deadline, a non-2xx answer and a redirect are failures (the
 * redirect is not followed), an oversized body is never sent; without a mailer an e-mail
 * alert is "unavailable"; without a serving area every prediction is "model not deployed".
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { AppError } from "../domain/errors.ts";
import { predictorOf, webhookNotifier } from "./foundry-agents.ts";

let server: ReturnType<typeof Bun.serve>;
const hits: string[] = [];

beforeAll(() => {
  server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch: async (req) => {
      const path = new URL(req.url).pathname;
      hits.push(path);
      if (path === "/slow") await Bun.sleep(3_000);
      if (path === "/moved") return Response.redirect(`http://127.0.0.1:${server.port}/ok`, 302);
      if (path === "/fail") return new Response("no", { status: 503 });
      return new Response("ok");
    },
  });
});
afterAll(() => server.stop(true));

const url = (p: string) => `http://127.0.0.1:${server.port}${p}`;

describe("agent notification channels", () => {
  const notifier = webhookNotifier({ timeoutMs: 300, mailer: null });

  test("a 2xx answer is delivery; non-2xx, a redirect and a slow receiver are failures", async () => {
    expect(await notifier.webhook(url("/ok"), { text: "hi" })).toEqual({ status: 200 });
    await expect(notifier.webhook(url("/fail"), { text: "hi" })).rejects.toThrow("the webhook answered 503");
    await expect(notifier.webhook(url("/moved"), { text: "hi" })).rejects.toThrow("the webhook answered 302");
    const started = performance.now();
    await expect(notifier.webhook(url("/slow"), { text: "hi" })).rejects.toThrow();
    // Generous: the deadline is 300 ms, the receiver would take 3 s.
    expect(performance.now() - started).toBeLessThan(2_500);
    expect(hits.filter((h) => h === "/ok")).toHaveLength(1);
  });

  test("an oversized body is refused before anything is sent", async () => {
    const before = hits.length;
    await expect(notifier.webhook(url("/ok"), { text: "x".repeat(40_000) })).rejects.toThrow("too large");
    expect(hits.length).toBe(before);
  });

  test("e-mail without an SMTP server is unavailable; no serving area means no deployed model", async () => {
    const err = await notifier.email("a@b.test", "s", "t").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe("unavailable");
    const refused = await predictorOf({})
      .predict({ tenantId: "t", slug: "t" }, "reg", [{ x: 1 }])
      .catch((e: unknown) => e);
    expect((refused as AppError).code).toBe("conflict");
    expect((refused as AppError).message).toBe("model not deployed");
    const served = predictorOf({ serving: { predict: async () => ({ predictions: [{ score: 0.4 }] }) } });
    expect(await served.predict({ tenantId: "t", slug: "t" }, "reg", [{ x: 1 }])).toEqual({
      predictions: [{ score: 0.4 }],
    });
  });
});
