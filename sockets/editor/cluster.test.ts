/**
 * Two service instances sharing Postgres and Redis serve one room consistently: updates
 * and awareness fan out through Redis pub/sub, a room loaded late on one instance catches
 * up with what the other holds but has not saved, and the stored state ends up complete.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import * as Y from "yjs";
import { engineUrl } from "../../test/engines.ts";
import { type ClusterPair, startClusterPair } from "../../test/fixtures/cluster.ts";
import { addParagraph, docXml, hocuspocusClient, yWebsocketClient } from "../../test/fixtures/editor-server.ts";
import type { TestService } from "../../test/harness.ts";
import { type Served, serve } from "../../test/serve.ts";
import { waitFor } from "../../test/wait.ts";

const pg = engineUrl("postgres");
const redis = engineUrl("redis");

if (pg && redis) {
  describe("collaboration across two instances (Postgres + Redis)", () => {
    let pair: ClusterPair;
    let a: TestService;
    let b: TestService;
    let sa: Served;
    let sb: Served;
    let jwt: string;
    let key: string;
    const cleanups: (() => void)[] = [];

    beforeAll(async () => {
      // A long debounce: a late room must get unsaved edits from the other instance.
      pair = await startClusterPair(pg, redis, "collab", {
        CAIRN_COLLAB_DEBOUNCE_MS: "60000",
        CAIRN_COLLAB_MAX_WAIT_MS: "60000",
        CAIRN_COLLAB_UNLOAD_MS: "50",
      });
      ({ a, b } = pair);
      sa = serve(a.service);
      sb = serve(b.service);
      await a.user("w@cluster.test", "enterprise", ["editor"]);
      key = await a.apiKey("w@cluster.test");
      jwt = await a.token("w@cluster.test");
    }, 60_000);
    afterAll(async () => {
      for (const c of cleanups.splice(0)) c();
      await sa?.stop();
      await sb?.stop();
      await pair?.close();
    });

    const createDoc = async () => {
      const res = await a.request("/v1/editor/documents", {
        method: "POST",
        headers: { "x-api-key": key, authorization: `Bearer ${jwt}`, "content-type": "application/json" },
        body: JSON.stringify({ title: "Shared" }),
      });
      expect(res.status).toBe(201);
      return ((await res.json()) as { doc_id: string }).doc_id;
    };

    test("clients on different instances edit one document; a late joiner gets unsaved edits; the store ends complete", async () => {
      const docId = await createDoc();
      const onA = hocuspocusClient(`${sa.wsUrl}/v1/editor/collab`, docId, jwt);
      const onB = yWebsocketClient(`${sb.wsUrl}/v1/editor/collab`, docId, jwt);
      cleanups.push(onA.destroy, onB.destroy);
      await onA.synced();
      await onB.synced();
      addParagraph(onA.doc, "written on A");
      addParagraph(onB.doc, "written on B");
      await waitFor("both instances' edits on both clients", () => {
        const x = docXml(onA.doc);
        return x === docXml(onB.doc) && x.includes("on A") && x.includes("on B");
      });

      // Awareness crosses instances too.
      onA.provider.setAwarenessField("user", { name: "Ada" });
      await waitFor("B's client sees Ada", () =>
        [...onB.provider.awareness.getStates().values()].some(
          (s) => (s.user as { name?: string } | undefined)?.name === "Ada",
        ),
      );

      // B's client leaves and B's room unloads (saving both edits). A keeps editing, with a
      // one-minute debounce: nothing of that is stored. A client joining on B gets it anyway,
      // from A's memory (the reloaded room asks the other instances for what it lacks).
      onB.destroy();
      await waitFor("B's room unloaded", () => b.service.collabRooms.peek(docId) === undefined);
      addParagraph(onA.doc, "after B left");
      await Bun.sleep(50);
      const late = hocuspocusClient(`${sb.wsUrl}/v1/editor/collab`, docId, jwt);
      cleanups.push(late.destroy);
      await late.synced();
      await waitFor("the late client catches up", () => docXml(late.doc) === docXml(onA.doc));
      expect(docXml(late.doc)).toContain("after B left");

      // Everyone leaves: each room saves before it unloads; the store holds every edit.
      const final = docXml(onA.doc);
      onA.destroy();
      late.destroy();
      await waitFor(
        "both rooms unloaded",
        () => !a.service.collabRooms.peek(docId) && !b.service.collabRooms.peek(docId),
      );
      const state = await b.service.deps.editor.loadState(docId);
      const doc = new Y.Doc();
      Y.applyUpdate(doc, state ?? new Uint8Array([0, 0]));
      expect(docXml(doc)).toBe(final);
    });
  });
}
