/** Shared set-up of the document route tests: a service, a provisioned index, users and helpers. */
import type { SqliteDocumentIndex } from "../../../adapters/docindex/index.ts";
import type { User } from "../../../domain/ports.ts";
import { issueApiKey } from "../../../pipelines/demo-seed.ts";
import { startTestService, type TestService } from "../../../test/harness.ts";

export interface Caller {
  user: User;
  key: string;
}

export interface DocsFixture {
  svc: TestService;
  caller(email: string, roles: string[]): Promise<Caller>;
  upload(who: Caller, file: File, fields?: Record<string, string>): Promise<Response>;
  search(who: Caller, body: Record<string, unknown>): Promise<Response>;
  answer(who: Caller, body: Record<string, unknown>): Promise<Response>;
  /** Creates a barrier in the tenant (the admin API's store); returns its id. */
  createBarrier(name: string): Promise<string>;
  /** Records that a user crossed a barrier, or revokes it, through the BarrierStore. */
  cross(who: Caller, barrierId: string): Promise<void>;
  revoke(who: Caller, barrierId: string): Promise<void>;
}

export async function startDocsFixture(env: Record<string, string> = {}): Promise<DocsFixture> {
  const svc = await startTestService(env);
  const { store } = svc.service.deps;
  const tenant = await store.getTenant(svc.tenantId);
  if (!tenant) throw new Error("no tenant");
  await (svc.service.engines.documentIndex as SqliteDocumentIndex).ensureNamespace({
    tenantId: tenant.tenant_id,
    slug: tenant.slug,
  });
  const caller = async (email: string, roles: string[]): Promise<Caller> => {
    const user = await svc.user(email, "enterprise", roles);
    const key = await issueApiKey(store, user, "test");
    if (!key) throw new Error("no key");
    return { user, key };
  };
  const json = (path: string) => (who: Caller, body: Record<string, unknown>) =>
    svc.request(path, {
      method: "POST",
      headers: { "x-api-key": who.key, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  return {
    svc,
    caller,
    upload: (who, file, fields = {}) => {
      const fd = new FormData();
      fd.append("file", file);
      const all = { tenant_id: svc.tenantId, identity_id: String(who.user.id), ...fields };
      for (const [k, v] of Object.entries(all)) fd.append(k, v);
      return svc.request("/v1/documents/upload", { method: "POST", headers: { "x-api-key": who.key }, body: fd });
    },
    search: json("/v1/documents/search"),
    answer: json("/v1/rag/answer/agent"),
    createBarrier: async (name) =>
      (await svc.service.deps.barriers.create(svc.tenantId, { name, description: "test", createdBy: "test" }))
        .barrier_id,
    cross: async (who, barrierId) => {
      await svc.service.deps.barriers.cross(svc.tenantId, barrierId, String(who.user.id), "test");
    },
    revoke: async (who, barrierId) => {
      await svc.service.deps.barriers.revoke(svc.tenantId, barrierId, String(who.user.id), "test");
    },
  };
}

export const textFile = (name: string, text: string) => new File([text], name, { type: "text/plain" });
