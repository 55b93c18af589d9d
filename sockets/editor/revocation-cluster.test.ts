/**
 * Issue 13 across instances (Postgres + Redis): a sharing change made through instance A's
 * REST API re-checks the editor connections open on instance B, over the collab-access
 * pub/sub channel: B downgrades or closes them, and leaves everybody else's alone.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { engineUrl } from "../../test/engines.ts";
import { type ClusterPair, startClusterPair } from "../../test/fixtures/cluster.ts";
import { addParagraph, docXml, hocuspocusClient } from "../../test/fixtures/editor-server.ts";
import type { TestService } from "../../test/harness.ts";
import { type Served, serve } from "../../test/serve.ts";
import { waitFor } from "../../test/wait.ts";

const pg = engineUrl("postgres");
const redis = engineUrl("redis");

interface Creds {
  id: number;
  key: string;
  jwt: string;
}

if (pg && redis) {
  describe("editor access changes across two instances (Postgres + Redis)", () => {
    let pair: ClusterPair;
    let a: TestService;
    let b: TestService;
    let sb: Served;
    const cleanups: (() => void)[] = [];

    beforeAll(async () => {
      pair = await startClusterPair(pg, redis, "revoke", {
        CAIRN_COLLAB_DEBOUNCE_MS: "20",
        CAIRN_COLLAB_UNLOAD_MS: "50",
      });
      ({ a, b } = pair);
      sb = serve(b.service);
    }, 60_000);
    afterAll(async () => {
      for (const c of cleanups.splice(0)) c();
      await sb?.stop();
      await pair?.close();
    });

    const person = async (email: string): Promise<Creds> => {
      const u = await a.user(email, "enterprise", ["editor"]);
      return { id: u.id, key: await a.apiKey(email), jwt: await a.token(email) };
    };
    const onA = (c: Creds, method: string, path: string, body?: unknown) =>
      a.request(path, {
        method,
        headers: { "x-api-key": c.key, authorization: `Bearer ${c.jwt}`, "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    const roomXmlOnB = (docId: string) => {
      const room = b.service.collabRooms.peek(docId);
      return room ? docXml(room.doc) : "";
    };

    test("a downgrade and a removal made on A reach the connection on B; the other editor on B goes on", async () => {
      const owner = await person("owner@rc.test");
      const bob = await person("bob@rc.test");
      const cat = await person("cat@rc.test");
      const created = await onA(owner, "POST", "/v1/editor/documents", { title: "Across" });
      expect(created.status).toBe(201);
      const docId = ((await created.json()) as { doc_id: string }).doc_id;
      for (const u of [bob, cat]) {
        expect(
          (await onA(owner, "PUT", `/v1/editor/documents/${docId}/members/${u.id}`, { role: "editor" })).status,
        ).toBe(200);
      }
      const url = `${sb.wsUrl}/v1/editor/collab`;
      const bb = hocuspocusClient(url, docId, bob.jwt);
      const cc = hocuspocusClient(url, docId, cat.jwt);
      const closes: number[] = [];
      bb.provider.on("close", ({ event }: { event: { code: number } }) => closes.push(event.code));
      cc.provider.on("close", ({ event }: { event: { code: number } }) => closes.push(-event.code));
      cleanups.push(bb.destroy, cc.destroy);
      await bb.synced();
      await cc.synced();
      expect(bb.events.authenticated).toBe("read-write");

      const viewer = await onA(owner, "PUT", `/v1/editor/documents/${docId}/members/${bob.id}`, { role: "viewer" });
      expect(viewer.status).toBe(200);
      await waitFor("B tells bob he is read-only", () => bb.events.authenticated === "readonly");
      addParagraph(bb.doc, "bob as viewer");
      bb.provider.setAwarenessField("mark", "after-downgrade");
      await waitFor("cat sees bob's mark", () =>
        [...(cc.provider.awareness?.getStates().values() ?? [])].some((s) => s.mark === "after-downgrade"),
      );
      expect(roomXmlOnB(docId)).not.toContain("bob as viewer");

      expect((await onA(owner, "DELETE", `/v1/editor/documents/${docId}/members/${bob.id}`)).status).toBe(204);
      await waitFor("B closed bob's socket", () => closes.length > 0);
      expect(closes).toEqual([4403]);
      addParagraph(cc.doc, "cat goes on");
      await waitFor("cat still writes on B", () => roomXmlOnB(docId).includes("cat goes on"));
      expect(closes).toEqual([4403]);
    });
  });
}
