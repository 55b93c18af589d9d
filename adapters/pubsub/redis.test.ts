import { describe, expect, test } from "bun:test";
import { Redis } from "ioredis";
import { engineUrl, uniqueName } from "../../test/engines.ts";
import { waitFor } from "../../test/wait.ts";
import { RedisPubSub } from "./redis.ts";

// The shared behaviour is in test/contracts/pubsub.contract.ts; this covers Redis-only options.
const redisUrl = engineUrl("redis");
if (redisUrl) {
  describe("RedisPubSub", () => {
    test("with a caller-owned client: publishes through it, and close() leaves it open", async () => {
      const client = new Redis(redisUrl);
      const ps = new RedisPubSub({ client });
      const ch = uniqueName("cairn_ps");
      const got: string[] = [];
      await ps.subscribe(ch, (m) => void got.push(m));
      // Another connection publishing reaches the adapter's own subscriber connection.
      expect(await client.publish(ch, "from outside")).toBe(1);
      await waitFor("delivery", () => got.length === 1);
      await ps.publish(ch, "through the adapter");
      await waitFor("second delivery", () => got.length === 2);
      await ps.close();
      expect(await client.ping()).toBe("PONG");
      // Nobody listens any more: the subscriber connection is gone.
      expect(await client.publish(ch, "late")).toBe(0);
      await client.quit();
    });

    test("the last local unsubscribe releases the channel on the server", async () => {
      const admin = new Redis(redisUrl);
      const ps = new RedisPubSub({ url: redisUrl });
      const ch = uniqueName("cairn_ps");
      const count = async () => {
        const reply = (await admin.call("PUBSUB", "NUMSUB", ch)) as [string, number];
        return Number(reply[1]);
      };
      const off1 = await ps.subscribe(ch, () => {});
      const off2 = await ps.subscribe(ch, () => {});
      expect(await count()).toBe(1); // one SUBSCRIBE serves both listeners
      await off1();
      expect(await count()).toBe(1);
      await off2();
      expect(await count()).toBe(0);
      await ps.close();
      await admin.quit();
    });
  });
}
