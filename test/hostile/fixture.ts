/**
 * Two tenants on one real server: the attacker (the docs fixture's tenant) and a neighbour
 * with its own provisioned document index, whose requests must keep being served normally
 * while the attacker's hostile uploads are refused. Raw-socket helpers for uploads a
 * `fetch` cannot make (a trickling body, a client that hangs up).
 */
import type { SqliteDocumentIndex } from "../../adapters/docindex/index.ts";
import { ensureUser, issueApiKey } from "../../cli/demo-seed.ts";
import type { TenantRef } from "../../domain/tenants/namespaces.ts";
import { type Caller, type DocsFixture, startDocsFixture } from "../fixtures/documents-app.ts";
import { type RawSocket, rawSocket } from "../raw-socket.ts";
import type { Served } from "../serve.ts";

export interface HostileFixture {
  fx: DocsFixture;
  served: Served;
  attacker: Caller;
  neighbour: Caller & { tenantId: string };
  /** The neighbour's tenant, as the document index names it. */
  neighbourRef: TenantRef;
  /** The neighbour's document search (BM25: no embedding model needed): its status and time. */
  neighbourSearch(): Promise<{ status: number; ms: number }>;
  /** Chunks in the attacker tenant's document index. */
  attackerRecords(): Promise<number>;
  close(): Promise<void>;
}

export async function startHostileFixture(env: Record<string, string> = {}): Promise<HostileFixture> {
  const fx = await startDocsFixture(env);
  const attacker = await fx.caller(`attacker-${crypto.randomUUID()}@example.com`, ["analyst"]);
  const { store } = fx.svc.service;
  const index = fx.svc.service.engines.documentIndex as SqliteDocumentIndex;
  const tenant = await store.createTenant({
    slug: `n-${crypto.randomUUID().slice(0, 8)}`,
    display_name: "Neighbour",
    tier: "enterprise",
    region: "local",
    provisioning_state: "active",
    is_active: true,
  });
  await index.ensureNamespace({ tenantId: tenant.tenant_id, slug: tenant.slug });
  const user = await ensureUser(
    store,
    tenant.tenant_id,
    `n-${crypto.randomUUID()}@example.com`,
    "enterprise",
    undefined,
    ["analyst"],
  );
  const key = await issueApiKey(store, user, "test");
  if (!key) throw new Error("no key");
  // As main.ts serves (idle timeout 60 s), so a slow upload is cut off by the upload route's
  // own rule, not by Bun's default 10 s idle timeout.
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    idleTimeout: 60,
    fetch: fx.svc.service.fetch,
    websocket: fx.svc.service.websocket,
  });
  const url = `http://127.0.0.1:${server.port}`;
  const served: Served = { server, url, wsUrl: url.replace(/^http/, "ws"), stop: () => server.stop(true) };
  const attackerTenant = await store.getTenant(fx.svc.tenantId);
  if (!attackerTenant) throw new Error("no tenant");
  return {
    fx,
    served,
    attacker,
    neighbour: { user, key, tenantId: tenant.tenant_id },
    neighbourRef: { tenantId: tenant.tenant_id, slug: tenant.slug },
    neighbourSearch: async () => {
      const t0 = performance.now();
      const res = await fetch(`${served.url}/v1/documents/search`, {
        method: "POST",
        headers: { "x-api-key": key, "content-type": "application/json" },
        body: JSON.stringify({ query: "quarterly revenue guidance", k: 5, mode: "bm25" }),
      });
      await res.arrayBuffer();
      return { status: res.status, ms: performance.now() - t0 };
    },
    attackerRecords: () => index.countRecords({ tenantId: attackerTenant.tenant_id, slug: attackerTenant.slug }),
    close: async () => {
      await served.stop();
      await fx.svc.close();
    },
  };
}

const BOUNDARY = "----cairnhostile";

/** The multipart body of an upload by `who` (fields first, then the file). */
export function multipartBody(tenantId: string, who: Caller, filename: string, file: Uint8Array): Buffer {
  const head =
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="tenant_id"\r\n\r\n${tenantId}\r\n` +
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="identity_id"\r\n\r\n${who.user.id}\r\n` +
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\n` +
    "Content-Type: application/octet-stream\r\n\r\n";
  return Buffer.concat([Buffer.from(head), Buffer.from(file), Buffer.from(`\r\n--${BOUNDARY}--\r\n`)]);
}

/** Opens a socket and sends an upload's request head for a body of `length` bytes. */
export async function rawUpload(served: Served, who: Caller, length: number): Promise<RawSocket> {
  const sock = await rawSocket(Number(served.server.port));
  await sock.write(
    `POST /v1/documents/upload HTTP/1.1\r\nHost: cairn.test\r\nX-API-Key: ${who.key}\r\n` +
      `Content-Type: multipart/form-data; boundary=${BOUNDARY}\r\nContent-Length: ${length}\r\n\r\n`,
  );
  return sock;
}

/** Polls `cond` every 20 ms until it holds or `ms` pass; returns whether it held. */
export async function until(cond: () => boolean | Promise<boolean>, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await cond()) return true;
    await Bun.sleep(20);
  }
  return cond();
}
