/**
 * The news stream on the cluster profile: two service instances sharing Postgres and
 * Redis, real WebSocket clients on each. An article published on either instance reaches
 * the subscribers of both, exactly once.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { engineUrl, freshPostgresDatabase } from "../engines.ts";
import { startTestService, type TestService } from "../harness.ts";
import { NewsClient } from "../news-client.ts";
import { makeArticle } from "../news-fixtures.ts";
import { deleteRedisPrefix } from "../redis.ts";
import { type Served, serve } from "../serve.ts";
import { waitFor } from "../wait.ts";

const pg = engineUrl("postgres");
const redis = engineUrl("redis");

if (pg && redis) {
  describe("news stream across two instances (Postgres + Redis)", () => {
    let db: Awaited<ReturnType<typeof freshPostgresDatabase>>;
    let a: TestService;
    let b: TestService;
    let httpA: Served;
    let httpB: Served;
    let key: string;
    const prefix = `cairn-t${crypto.randomUUID().slice(0, 8)}`;

    beforeAll(async () => {
      db = await freshPostgresDatabase(pg);
      const env = { DATABASE_URL: db.url, REDIS_URL: redis, CAIRN_REDIS_PREFIX: prefix };
      a = await startTestService(env);
      // The same tenant on both: one control plane, as in a real cluster.
      b = await startTestService(env, { tenantSlug: (await a.service.store.getTenant(a.tenantId))?.slug });
      httpA = serve(a.service);
      httpB = serve(b.service);
      key = await a.apiKey("cluster-news@example.com", "enterprise");
    }, 60_000);
    afterAll(async () => {
      await httpA?.stop();
      await httpB?.stop();
      await a?.close();
      await b?.close();
      await db?.drop();
      await deleteRedisPrefix(redis, `${prefix}:`);
    });

    const connect = async (served: Served, filter: object) => {
      const c = await NewsClient.connect(`${served.wsUrl}/v1/news/stream`, { "x-api-key": key });
      await c.next("connected");
      await c.setFilter(filter);
      return c;
    };

    test("published on either instance, received on both, once each, in order per publisher", async () => {
      const onA = await connect(httpA, { tickers: ["AAPL"] });
      const onB = await connect(httpB, { tickers: ["AAPL"] });
      const allOnB = await connect(httpB, {});
      const x = makeArticle({ company_tickers: ["AAPL"], title: "published on A" });
      const y = makeArticle({ company_tickers: ["AAPL", "MSFT"], title: "published on B" });
      const miss = makeArticle({ company_tickers: ["MSFT"], title: "no AAPL" });
      await a.service.newsHub.publish(x);
      await a.service.newsHub.publish(miss);
      // x must reach B over Redis before B publishes, for the order below to be defined.
      expect((await onB.next("article")).data.title).toBe("published on A");
      await b.service.newsHub.publish(y);
      expect((await onA.next("article")).data.title).toBe("published on A");
      for (const c of [onA, onB]) expect((await c.next("article")).data.title).toBe("published on B");
      // Order holds per publishing instance; B's own article may overtake A's via Redis.
      await waitFor("three articles on B", () => allOnB.articles().length === 3);
      const titles = allOnB.articles().map((f) => f.data.title);
      expect([...titles].sort()).toEqual(["no AAPL", "published on A", "published on B"]);
      expect(titles.indexOf("published on A")).toBeLessThan(titles.indexOf("no AAPL"));

      // Fences: a's own broadcast of x comes back to a before b's later broadcast does,
      // so once the fence from b has arrived on A, any duplicate of x would have too.
      const fence = makeArticle({ company_tickers: ["AAPL"], title: "fence" });
      await b.service.newsHub.publish(fence);
      for (const c of [onA, onB]) {
        expect((await c.next("article")).data.title).toBe("fence");
        expect(c.articles().map((f) => f.data.title)).toEqual(["published on A", "published on B", "fence"]);
        expect(c.articles().map((f) => f.seq)).toEqual([1, 2, 3]);
      }
      expect(a.service.newsHub.stats()).toMatchObject({ published: 2, received: 2 });
      expect(b.service.newsHub.stats()).toMatchObject({ published: 2, received: 2 });
      for (const c of [onA, onB, allOnB]) await c.close();
    });

    test("the same article ingested by both instances is delivered once everywhere", async () => {
      const onA = await connect(httpA, {});
      const onB = await connect(httpB, {});
      const x = makeArticle({ title: "ingested twice" });
      await Promise.all([a.service.newsHub.publish(x), b.service.newsHub.publish({ ...x })]);
      const fence = makeArticle({ title: "fence 2" });
      await a.service.newsHub.publish(fence);
      for (const c of [onA, onB]) {
        await waitFor("the fence", () => c.articles().some((f) => f.data.title === "fence 2"));
        expect(c.articles().map((f) => f.data.title)).toEqual(["ingested twice", "fence 2"]);
      }
      for (const c of [onA, onB]) await c.close();
    });
  });
}
