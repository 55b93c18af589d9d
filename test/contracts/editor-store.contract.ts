/**
 * Contract of the editor document store and the service's CRDT persistence, run unchanged
 * against every SQL dialect by editor-store.test.ts: rows, members, visibility listing,
 * compare-and-set, bytes round-trip, and concurrent stale writers that must both survive.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import * as Y from "yjs";
import {
  EDITOR_REINDEX_QUEUE,
  type EditorDocumentStore,
  EditorService,
  YDOC_FIELD,
} from "../../domain/editor/index.ts";
import { AppError } from "../../domain/errors.ts";
import { userIdentity } from "../../domain/identity.ts";
import type { ControlPlaneStore, JobQueue, User } from "../../domain/ports.ts";

export interface EditorStoreHarness {
  cp: ControlPlaneStore;
  store: EditorDocumentStore;
  queue: JobQueue;
  cleanup(): Promise<void>;
}

const AT = "2026-01-01T00:00:00.000Z";
const EMPTY_AST = { type: "doc", content: [{ type: "paragraph" }] };

function paragraphs(doc: Y.Doc): string[] {
  return doc
    .getXmlFragment(YDOC_FIELD)
    .toArray()
    .map((el) =>
      (el as Y.XmlElement)
        .toArray()
        .map((t) => (t as Y.XmlText).toString())
        .join(""),
    );
}

function docWith(texts: string[]): Y.Doc {
  const doc = new Y.Doc();
  const frag = doc.getXmlFragment(YDOC_FIELD);
  frag.insert(
    0,
    texts.map((t) => {
      const p = new Y.XmlElement("paragraph");
      p.insert(0, [new Y.XmlText(t)]);
      return p;
    }),
  );
  return doc;
}

export function runEditorStoreContract(name: string, make: () => Promise<EditorStoreHarness>): void {
  describe(`editor document store (${name})`, () => {
    let h: EditorStoreHarness;
    let tenantA: string;
    let tenantB: string;
    let owner: User;
    let member: User;
    let stranger: User;
    let service: EditorService;

    beforeAll(async () => {
      h = await make();
      const mk = async (slug: string) =>
        (
          await h.cp.createTenant({
            slug: `${slug}-${crypto.randomUUID().slice(0, 6)}`,
            display_name: slug,
            tier: "enterprise",
            region: "local",
            provisioning_state: "active",
            is_active: true,
          })
        ).tenant_id;
      tenantA = await mk("ed-a");
      tenantB = await mk("ed-b");
      const user = (tenant: string, email: string) =>
        h.cp.createUser({ tenant_id: tenant, email, name: email, tier: "enterprise", roles: ["editor"] });
      const tag = crypto.randomUUID().slice(0, 6);
      owner = await user(tenantA, `owner-${tag}@a.test`);
      member = await user(tenantA, `member-${tag}@a.test`);
      stranger = await user(tenantB, `stranger-${tag}@b.test`);
      service = new EditorService({
        store: h.store,
        queue: h.queue,
        verifyToken: async () => {
          throw new AppError("unauthenticated", "not used here");
        },
        requireActiveTenant: async () => {},
        findUser: (id) => h.cp.getUser(id),
      });
    });
    afterAll(async () => {
      await h.cleanup();
    });

    const newDoc = async (tenant: string, ownerId: number, access: "none" | "viewer" | "editor" = "none") => {
      const docId = crypto.randomUUID();
      return h.store.create({
        doc_id: docId,
        tenant_id: tenant,
        title: `Doc ${docId.slice(0, 4)}`,
        owner_id: ownerId,
        general_access: access,
        state: null,
        doc_ast: EMPTY_AST,
        at: AT,
      });
    };

    test("create and get: metadata, doc_ast, version 1; another tenant sees nothing", async () => {
      const row = await newDoc(tenantA, owner.id);
      expect(row).toMatchObject({
        tenant_id: tenantA,
        owner_id: owner.id,
        general_access: "none",
        version: 1,
        created_at: AT,
        created_by: owner.id,
        updated_by_type: "user",
        updated_by_id: String(owner.id),
        doc_ast: EMPTY_AST,
      });
      expect(await h.store.get(tenantB, row.doc_id)).toBeNull();
      expect(await h.store.getMeta(tenantB, row.doc_id)).toBeNull();
      expect(await h.store.getForCollab(row.doc_id)).toEqual({ tenant_id: tenantA, state: null, version: 1 });
    });

    test("putContent is compare-and-set and round-trips bytes exactly (including 0x00 and 0xff)", async () => {
      const row = await newDoc(tenantA, owner.id);
      const bytes = new Uint8Array([0, 1, 2, 255, 0, 128]);
      const by = { updated_by_type: "agent", updated_by_id: "bot-7" };
      const ast = { type: "doc", content: [{ type: "paragraph", content: [{ type: "text", text: "é ✓" }] }] };
      expect(await h.store.putContent(row.doc_id, 1, { state: bytes, doc_ast: ast, by, at: AT })).toBe(2);
      expect(await h.store.putContent(row.doc_id, 1, { state: bytes, doc_ast: ast, by, at: AT })).toBeNull();
      const back = await h.store.getForCollab(row.doc_id);
      expect(back?.version).toBe(2);
      expect([...(back?.state ?? [])]).toEqual([...bytes]);
      expect(await h.store.get(tenantA, row.doc_id)).toMatchObject({ doc_ast: ast, ...by, version: 2 });
    });

    test("members: upsert, list, role lookup, delete", async () => {
      const row = await newDoc(tenantA, owner.id);
      await h.store.putMember(row.doc_id, { user_id: member.id, role: "viewer", granted_at: AT, granted_by: owner.id });
      await h.store.putMember(row.doc_id, { user_id: member.id, role: "editor", granted_at: AT, granted_by: owner.id });
      expect(await h.store.memberRole(row.doc_id, member.id)).toBe("editor");
      expect(await h.store.listMembers(row.doc_id)).toEqual([
        { user_id: member.id, role: "editor", granted_at: AT, granted_by: owner.id },
      ]);
      expect(await h.store.deleteMember(row.doc_id, member.id)).toBe(true);
      expect(await h.store.deleteMember(row.doc_id, member.id)).toBe(false);
      expect(await h.store.memberRole(row.doc_id, member.id)).toBeNull();
    });

    test("listVisible: owned, shared and tenant-open documents only, newest first, keyset pages", async () => {
      const t = await h.cp.createTenant({
        slug: `ed-l-${crypto.randomUUID().slice(0, 6)}`,
        display_name: "l",
        tier: "enterprise",
        region: "local",
        provisioning_state: "active",
        is_active: true,
      });
      const tag = crypto.randomUUID().slice(0, 6);
      const o = await h.cp.createUser({ tenant_id: t.tenant_id, email: `o-${tag}@l.test`, name: "o", tier: "pro" });
      const u = await h.cp.createUser({ tenant_id: t.tenant_id, email: `u-${tag}@l.test`, name: "u", tier: "pro" });
      const mine = await newDoc(t.tenant_id, u.id);
      const shared = await newDoc(t.tenant_id, o.id);
      await h.store.putMember(shared.doc_id, { user_id: u.id, role: "viewer", granted_at: AT, granted_by: o.id });
      const open = await newDoc(t.tenant_id, o.id, "editor");
      await newDoc(t.tenant_id, o.id); // private to o
      await newDoc(tenantA, u.id); // impossible in practice (u is not in tenantA) but must not leak across tenants
      // Distinct update times: shared newest, then open, then mine.
      await h.store.setTitle(t.tenant_id, mine.doc_id, "mine", "2026-01-02T00:00:00.000Z");
      await h.store.setTitle(t.tenant_id, open.doc_id, "open", "2026-01-03T00:00:00.000Z");
      await h.store.setTitle(t.tenant_id, shared.doc_id, "shared", "2026-01-04T00:00:00.000Z");
      const all = await h.store.listVisible({ tenantId: t.tenant_id, userId: u.id, limit: 10 });
      expect(all.map((d) => [d.title, d.member_role])).toEqual([
        ["shared", "viewer"],
        ["open", null],
        ["mine", null],
      ]);
      const first = await h.store.listVisible({ tenantId: t.tenant_id, userId: u.id, limit: 1 });
      const rest = await h.store.listVisible({
        tenantId: t.tenant_id,
        userId: u.id,
        limit: 10,
        after: { updated_at: first[0]!.updated_at, doc_id: first[0]!.doc_id },
      });
      expect(rest.map((d) => d.title)).toEqual(["open", "mine"]);
    });

    test("index generations: bump, mark only forward", async () => {
      const row = await newDoc(tenantA, owner.id);
      expect(await h.store.indexState(row.doc_id)).toEqual({ generation: 0, indexed: 0 });
      expect(await h.store.bumpIndexGeneration(row.doc_id)).toBe(1);
      expect(await h.store.bumpIndexGeneration(row.doc_id)).toBe(2);
      expect(await h.store.markIndexed(row.doc_id, 2)).toBe(true);
      expect(await h.store.markIndexed(row.doc_id, 1)).toBe(false);
      expect(await h.store.indexState(row.doc_id)).toEqual({ generation: 2, indexed: 2 });
    });

    test("storeState merges: two writers holding stale copies both keep their edits, whatever the order", async () => {
      const row = await newDoc(tenantA, owner.id);
      const base = docWith(["base"]);
      const by = { updated_by_type: "collab", updated_by_id: "room" };
      await service.storeState(row.doc_id, Y.encodeStateAsUpdate(base), by);
      // Two copies of the base that never see each other (two instances, or a room and a PATCH).
      const a = new Y.Doc();
      const b = new Y.Doc();
      Y.applyUpdate(a, Y.encodeStateAsUpdate(base));
      Y.applyUpdate(b, Y.encodeStateAsUpdate(base));
      ((a.getXmlFragment(YDOC_FIELD).get(0) as Y.XmlElement).get(0) as Y.XmlText).insert(4, " from A");
      const pb = new Y.XmlElement("paragraph");
      pb.insert(0, [new Y.XmlText("from B")]);
      b.getXmlFragment(YDOC_FIELD).insert(1, [pb]);
      // Stored concurrently: the compare-and-set retries whoever loses the race.
      await Promise.all([
        service.storeState(row.doc_id, Y.encodeStateAsUpdate(a), by),
        service.storeState(row.doc_id, Y.encodeStateAsUpdate(b), by),
      ]);
      const stored = await h.store.getForCollab(row.doc_id);
      const merged = new Y.Doc();
      Y.applyUpdate(merged, stored!.state!);
      expect(paragraphs(merged)).toEqual(["base from A", "from B"]);
      expect(stored!.version).toBe(4);
      const view = await h.store.get(tenantA, row.doc_id);
      expect(view?.doc_ast).toEqual({
        type: "doc",
        content: [
          { type: "paragraph", content: [{ type: "text", text: "base from A" }] },
          { type: "paragraph", content: [{ type: "text", text: "from B" }] },
        ],
      });
      // The same state again changes nothing: no version, no re-index.
      const again = await service.storeState(row.doc_id, Y.encodeStateAsUpdate(a), by);
      expect(again).toEqual({ doc_id: row.doc_id, version: 4, changed: false });
      expect((await h.store.indexState(row.doc_id))?.generation).toBe(3);
      const job = await h.queue.getJob(EDITOR_REINDEX_QUEUE, `editor-reindex-${row.doc_id}-g3`);
      expect(job?.data).toEqual({ doc_id: row.doc_id, tenant_id: tenantA, generation: 3 });
    });

    test("the collaboration persistence refuses unknown documents instead of starting empty ones", async () => {
      await expect(service.persistence.load(crypto.randomUUID())).rejects.toMatchObject({ code: "not_found" });
      await expect(
        service.persistence.store(crypto.randomUUID(), new Uint8Array([0, 0]), {
          updated_by_type: "collab",
          updated_by_id: "x",
        }),
      ).rejects.toMatchObject({ code: "not_found" });
      expect(await service.persistence.load((await newDoc(tenantA, owner.id)).doc_id)).toBeNull();
    });

    test("a user of another tenant has no role, whatever the document's general access", async () => {
      const row = await newDoc(tenantA, owner.id, "editor");
      const id = userIdentity(stranger, "api_key_and_jwt");
      await expect(service.get(id, row.doc_id)).rejects.toMatchObject({ code: "not_found" });
    });
  });
}
