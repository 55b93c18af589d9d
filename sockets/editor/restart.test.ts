/**
 * The real process: `bun main.ts` on a data directory, clients editing over the socket,
 * SIGTERM while they are still connected (the shutdown flush saves what the debounce had
 * not), a second process on the same directory: the documents come back exactly.
 */
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as Y from "yjs";
import { addParagraph, docXml, hocuspocusClient, yWebsocketClient } from "../../test/fixtures/editor-server.ts";
import { startTestService } from "../../test/harness.ts";
import { spawnService } from "../../test/serve.ts";
import { waitFor } from "../../test/wait.ts";

const dataDir = mkdtempSync(join(tmpdir(), "cairn-collab-proc-"));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

async function boot() {
  const { proc, wsUrl } = await spawnService({
    CAIRN_DATA_DIR: dataDir,
    // Nothing is saved by the debounce during the test: only the shutdown flush can.
    CAIRN_COLLAB_DEBOUNCE_MS: "600000",
    CAIRN_COLLAB_MAX_WAIT_MS: "600000",
  });
  return { proc, ws: `${wsUrl}/v1/editor/collab` };
}

test("SIGTERM flushes open rooms; a new process serves the same documents", async () => {
  // Seed a tenant, a user and a document on the directory, then let the process own it.
  const seed = await startTestService({}, { dataDir });
  await seed.user("writer@proc.test", "enterprise", ["editor"]);
  const key = await seed.apiKey("writer@proc.test");
  const jwt = await seed.token("writer@proc.test");
  const made = await seed.request("/v1/editor/documents", {
    method: "POST",
    headers: { "x-api-key": key, authorization: `Bearer ${jwt}`, "content-type": "application/json" },
    body: JSON.stringify({ title: "Process restart" }),
  });
  expect(made.status).toBe(201);
  const docId = ((await made.json()) as { doc_id: string }).doc_id;
  await seed.service.close();

  const first = await boot();
  const a = hocuspocusClient(first.ws, docId, jwt);
  const b = yWebsocketClient(first.ws, docId, jwt);
  await a.synced();
  await b.synced();
  addParagraph(a.doc, "from hocuspocus");
  addParagraph(b.doc, "from y-websocket");
  await waitFor(
    "both edits on both clients",
    () =>
      docXml(a.doc) === docXml(b.doc) && docXml(a.doc).includes("hocuspocus") && docXml(a.doc).includes("websocket"),
  );
  await waitFor("acknowledged", () => !a.provider.hasUnsyncedChanges);
  const expected = docXml(a.doc);
  const sv = Y.encodeStateVector(a.doc);
  first.proc.kill("SIGTERM");
  expect(await first.proc.exited).toBe(0);
  a.destroy();
  b.destroy();

  const second = await boot();
  try {
    const c = yWebsocketClient(second.ws, docId, jwt);
    await c.synced();
    expect(docXml(c.doc)).toBe(expected);
    expect(Y.encodeStateVector(c.doc)).toEqual(sv);
    c.destroy();
  } finally {
    second.proc.kill("SIGTERM");
    await second.proc.exited;
  }
});
