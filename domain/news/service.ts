/**
 * News as the API offers it (spec 4.4, 4.5): enriched articles by id and as filtered
 * history, and the opening of a live stream. Articles are installation-wide, so no call
 * is tenant-scoped. No I/O here: the store and the socket upgrade are ports (ports.ts)
 * that composition wires.
 */
import { AppError } from "../errors.ts";
import type { NewsPage, NewsQuery, NewsStore, NewsStreamClient, NewsStreamGate } from "./ports.ts";
import { toIsoOffset } from "./text.ts";
import type { Article } from "./types.ts";

export interface NewsServiceDeps {
  store: NewsStore;
  stream: NewsStreamGate;
}

export class NewsService {
  constructor(private readonly deps: NewsServiceDeps) {}

  /**
   * History, newest ingested first. `from` and `to` may be any ISO 8601 instant: stored
   * published_at values are one exact format, so they are brought to it, and text
   * comparison in the store is then time order (one that does not parse is dropped).
   */
  list(query: NewsQuery): Promise<NewsPage> {
    return this.deps.store.list({
      ...query,
      from: query.from ? (toIsoOffset(query.from) ?? undefined) : undefined,
      to: query.to ? (toIsoOffset(query.to) ?? undefined) : undefined,
    });
  }

  /** One article; not_found when no article has that id. */
  async get(articleId: string): Promise<Article> {
    const article = await this.deps.store.get(articleId);
    if (!article) throw new AppError("not_found", "No news article with that id");
    return article;
  }

  /**
   * Hands an authenticated WebSocket handshake over to the stream sockets (spec 4.5).
   * upgrade_required when the handshake is refused (no server to upgrade on, or bad
   * WebSocket headers); once it succeeds the socket layer owns the connection.
   */
  openStream(server: unknown, request: Request, who: NewsStreamClient): void {
    if (!this.deps.stream.upgrade(server, request, who)) {
      throw new AppError("upgrade_required", "The WebSocket handshake was refused (check its headers)", undefined, {
        Upgrade: "websocket",
      });
    }
  }
}
