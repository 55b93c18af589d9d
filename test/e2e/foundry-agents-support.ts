/**
 * Helpers of the Foundry agent suites: a predictor implementing the agents' own port (the
 * score of a row is its `x`; registry id "undeployed" is refused like a model that is not
 * deployed), and a local webhook receiver that answers 500 to its first `failFirst` posts.
 */
import { AppError } from "../../domain/errors.ts";
import type { AgentPredictor } from "../../domain/foundry/agents/ports.ts";
import type { JsonValue } from "../../domain/ports.ts";

export interface CountingPredictor extends AgentPredictor {
  calls: { registryId: string; rows: number }[];
}

export function rowScorePredictor(): CountingPredictor {
  const calls: { registryId: string; rows: number }[] = [];
  return {
    calls,
    predict: async (_t, registryId, rows) => {
      if (registryId === "undeployed") throw new AppError("conflict", "model not deployed");
      calls.push({ registryId, rows: rows.length });
      return {
        predictions: rows.map((r) => {
          const x = Number(r.x ?? 0);
          return { score: x, label: x >= 0.5 ? 1 : 0 };
        }),
      };
    },
  };
}

export interface WebhookReceiver {
  url: string;
  /** Every post received, in order, with the status it was answered. */
  posts: { status: number; body: { text: string; blocks?: JsonValue[] } }[];
  close(): void;
}

export function startWebhookReceiver(failFirst = 0): WebhookReceiver {
  const posts: WebhookReceiver["posts"] = [];
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch: async (req) => {
      const body = (await req.json()) as WebhookReceiver["posts"][number]["body"];
      const status = posts.length < failFirst ? 500 : 200;
      posts.push({ status, body });
      return new Response(status === 200 ? "ok" : "boom", { status });
    },
  });
  return { url: `http://127.0.0.1:${server.port}/hook`, posts, close: () => server.stop(true) };
}
