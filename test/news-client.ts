/**
 * A news-stream test client over Bun's standard WebSocket: records every frame and lets
 * a test await the next one of a kind, instead of sleeping.
 */
import type { ArticleWire, NewsFilter } from "../domain/news/types.ts";
import { waitFor } from "./wait.ts";

/** Bun's WebSocket takes handshake headers; the DOM typings (lib "DOM" is on) do not say so. */
const BunWebSocket = WebSocket as unknown as new (url: string, options: Bun.WebSocketOptions) => WebSocket;

export type NewsFrame =
  | { type: "connected"; message: string }
  | { type: "filter_applied"; filter: NewsFilter }
  | { type: "error"; message: string }
  | { type: "article"; seq: number; dropped: number; data: ArticleWire };

export class NewsClient {
  readonly frames: NewsFrame[] = [];
  closed: { code: number; reason: string } | null = null;
  private cursor = 0;

  private constructor(private readonly ws: WebSocket) {
    ws.addEventListener("message", (e) => {
      if (typeof e.data === "string") this.frames.push(JSON.parse(e.data) as NewsFrame);
    });
    ws.addEventListener("close", (e) => {
      this.closed = { code: e.code, reason: e.reason };
    });
  }

  /** Opens a connection; rejects when the server refuses the handshake. */
  static connect(url: string, headers: Record<string, string> = {}): Promise<NewsClient> {
    return new Promise((resolve, reject) => {
      const ws = new BunWebSocket(url, { headers });
      const client = new NewsClient(ws);
      ws.addEventListener("open", () => resolve(client), { once: true });
      ws.addEventListener("error", () => reject(new Error(`WebSocket handshake to ${url} failed`)), { once: true });
    });
  }

  get isOpen(): boolean {
    return this.ws.readyState === WebSocket.OPEN;
  }

  /** A string or bytes go as they are (text or binary frame); anything else as JSON text. */
  send(message: string | Uint8Array | object): void {
    if (typeof message === "string" || message instanceof Uint8Array) this.ws.send(message);
    else this.ws.send(JSON.stringify(message));
  }

  /** The next frame not yet taken, skipping frames of other types when `type` is given. */
  async next<T extends NewsFrame["type"]>(type?: T, timeoutMs = 5_000): Promise<Extract<NewsFrame, { type: T }>> {
    let found: NewsFrame | undefined;
    await waitFor(
      `a ${type ?? "any"} frame`,
      () => {
        while (this.cursor < this.frames.length) {
          const f = this.frames[this.cursor++] as NewsFrame;
          if (type === undefined || f.type === type) {
            found = f;
            return true;
          }
        }
        return false;
      },
      { timeoutMs },
    );
    return found as Extract<NewsFrame, { type: T }>;
  }

  /** Sends a filter and waits for its echo. */
  async setFilter(filter: object): Promise<NewsFilter> {
    this.send(filter);
    return (await this.next("filter_applied")).filter;
  }

  articles(): Extract<NewsFrame, { type: "article" }>[] {
    return this.frames.filter((f): f is Extract<NewsFrame, { type: "article" }> => f.type === "article");
  }

  close(): Promise<void> {
    this.ws.close();
    return waitFor("close", () => this.closed !== null);
  }
}
