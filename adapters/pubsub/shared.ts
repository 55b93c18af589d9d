/** What both PubSub adapters share: the error events they report and the default sink. */

export type PubSubErrorEvent =
  /** A listener threw; delivery to the other listeners went on. */
  | { phase: "listener"; channel: string; error: unknown }
  /** Redis only: a connection reported an error (ioredis reconnects and resubscribes). */
  | { phase: "connection"; error: unknown };

/** The default sink when the composition root passes none: never swallowed, never console.log. */
export function reportToStderr(event: PubSubErrorEvent): void {
  const error = event.error instanceof Error ? event.error.message : String(event.error);
  process.stderr.write(`${JSON.stringify({ level: "error", msg: "pubsub error", ...event, error })}\n`);
}
