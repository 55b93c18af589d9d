/**
 * Editor documents (spec 2.12, 4.7): the one service behind the REST routes, the auth
 * webhook and the collaboration server's persistence. `persistence` and `authorizer` are
 * the in-process implementations of the ports in ./ports.ts; `storeState` is the function
 * the internal PUT .../yjs calls, so both paths share every rule.
 */
import type { Node as PmNode } from "@tiptap/pm/model";
import * as Y from "yjs";
import { AppError } from "../errors.ts";
import type { UserIdentity } from "../identity.ts";
import type { JobQueue } from "../ports.ts";
import type {
  AccessChange,
  CollabAuthorizer,
  CollabGrant,
  CollabPersistence,
  EditorDocumentStore,
  LiveRooms,
  StateMerger,
} from "./ports.ts";
import { EDITOR_REINDEX_QUEUE, type ReindexJob } from "./reindex.ts";
import { atLeast, type Caller, canWriteInTenant, effectiveRole } from "./roles.ts";
import { StoredDocRooms } from "./stored-rooms.ts";
import type {
  DocAst,
  EditorDocumentMeta,
  EditorMember,
  EditorRole,
  GeneralAccess,
  ListedDocument,
  MemberRole,
  UpdatedBy,
} from "./types.ts";
import { type DocumentView, decodeCursor, encodeCursor, type MemberView, toView } from "./view.ts";
import { applyDocAst, docAstOf, mergeStates } from "./ydoc.ts";

export interface EditorServiceDeps {
  store: EditorDocumentStore;
  queue: JobQueue;
  /** Verifies a user JWT (401 on failure) and returns its identity. */
  verifyToken(token: string): Promise<UserIdentity>;
  /** Throws AppError tenant_inactive / not_found unless the tenant is active. */
  requireActiveTenant(tenantId: string): Promise<void>;
  /** A user of the tenant by id (members must belong to the document's tenant). */
  findUser(userId: number): Promise<{ id: number; tenant_id: string; email: string; name: string } | null>;
  /** Merges and derives off the event loop (default: inline, for tests and small setups). */
  merger?: StateMerger;
  onReindexError?(err: unknown, docId: string): void;
  /**
   * Told after a sharing change is stored, so open collaboration connections re-check their
   * role (issue 13: a revoked editor must stop writing at once). Must not throw.
   */
  onAccessChanged?(change: AccessChange): Promise<void>;
  now?(): Date;
}

/** How often a compare-and-set store is retried against concurrent writers before giving up. */
const STORE_ATTEMPTS = 8;
/** Re-index jobs wait this long, so a burst of stores is indexed once. */
const REINDEX_DELAY_MS = 1_000;

export const REST_PATCH_ORIGIN = "cairn:rest-patch";

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const notFound = () => new AppError("not_found", "Editor document not found");

function callerOf(id: UserIdentity): Caller {
  return { userId: id.user.id, tenantId: id.tenantId, roles: id.roles };
}

function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  return a.byteLength === b.byteLength && Buffer.compare(a, b) === 0;
}

export class EditorService {
  readonly persistence: CollabPersistence;
  readonly authorizer: CollabAuthorizer;
  private rooms: LiveRooms;

  constructor(private readonly deps: EditorServiceDeps) {
    this.persistence = {
      load: (docId) => this.loadState(docId),
      store: async (docId, state, by) => {
        await this.storeState(docId, state, by);
      },
    };
    this.authorizer = { authorize: (token, name) => this.authorize(token, name).then((r) => r.grant) };
    this.rooms = new StoredDocRooms(this.persistence);
  }

  /** Applies PATCHes to live rooms from now on (the room registry, once it exists). */
  useLiveRooms(rooms: LiveRooms): void {
    this.rooms = rooms;
  }

  /** Where PATCHes go now (the room registry, or the stored-state fallback). */
  get liveRooms(): LiveRooms {
    return this.rooms;
  }

  private now(): string {
    return (this.deps.now?.() ?? new Date()).toISOString();
  }

  // -------------------------------------------------------------------------
  // Roles

  private async roleOf(caller: Caller, meta: EditorDocumentMeta): Promise<EditorRole | null> {
    if (meta.tenant_id !== caller.tenantId) return null;
    const member =
      meta.owner_id === caller.userId ? null : await this.deps.store.memberRole(meta.doc_id, caller.userId);
    return effectiveRole(meta, member, caller);
  }

  /** The document and the caller's role, refusing below `need` (404 outside the tenant, 403 inside). */
  private async access(
    caller: Caller,
    docId: string,
    need: EditorRole,
    action: string,
  ): Promise<{ meta: EditorDocumentMeta; role: EditorRole }> {
    if (!UUID_RE.test(docId)) throw notFound();
    docId = docId.toLowerCase();
    const meta = await this.deps.store.getMeta(caller.tenantId, docId);
    if (!meta) throw notFound();
    const role = await this.roleOf(caller, meta);
    if (!role) throw new AppError("forbidden", "You have no access to this document");
    if (!atLeast(role, need)) throw new AppError("forbidden", `Your role on this document (${role}) cannot ${action}`);
    return { meta, role };
  }

  // -------------------------------------------------------------------------
  // REST

  async create(
    id: UserIdentity,
    input: { title: string; doc_ast?: PmNode; general_access?: GeneralAccess },
  ): Promise<DocumentView & { doc_ast: DocAst }> {
    const caller = callerOf(id);
    if (!canWriteInTenant(caller)) {
      throw new AppError("forbidden", "Creating documents needs the tenant's editor or owner role");
    }
    let state: Uint8Array | null = null;
    let docAst: DocAst;
    const doc = new Y.Doc();
    try {
      if (input.doc_ast) doc.transact(() => applyDocAst(doc, input.doc_ast as PmNode), REST_PATCH_ORIGIN);
      docAst = docAstOf(doc);
      if (input.doc_ast) state = Y.encodeStateAsUpdate(doc);
    } finally {
      doc.destroy();
    }
    const row = await this.deps.store.create({
      doc_id: crypto.randomUUID(),
      tenant_id: caller.tenantId,
      title: input.title,
      owner_id: caller.userId,
      general_access: input.general_access ?? "none",
      state,
      doc_ast: docAst,
      at: this.now(),
    });
    await this.enqueueReindex(row.doc_id, row.tenant_id);
    return { ...toView(row, "owner"), doc_ast: row.doc_ast };
  }

  async list(
    id: UserIdentity,
    q: { limit: number; cursor?: string },
  ): Promise<{ documents: DocumentView[]; next_cursor: string | null }> {
    const caller = callerOf(id);
    const after = q.cursor ? decodeCursor(q.cursor) : undefined;
    const rows = await this.deps.store.listVisible({
      tenantId: caller.tenantId,
      userId: caller.userId,
      limit: q.limit + 1,
      after,
    });
    const page = rows.slice(0, q.limit);
    const documents: DocumentView[] = [];
    for (const r of page) {
      const role = effectiveRole(r, (r as ListedDocument).member_role, caller);
      if (role) documents.push(toView(r, role));
    }
    const last = page.at(-1);
    return { documents, next_cursor: rows.length > q.limit && last ? encodeCursor(last) : null };
  }

  async get(id: UserIdentity, docId: string): Promise<DocumentView & { doc_ast: DocAst }> {
    const caller = callerOf(id);
    const { meta, role } = await this.access(caller, docId, "viewer", "read it");
    const row = await this.deps.store.get(caller.tenantId, meta.doc_id);
    if (!row) throw notFound();
    return { ...toView(row, role), doc_ast: row.doc_ast };
  }

  /**
   * Applies doc_ast to the document's Y.Doc as a minimal diff in one transaction (the live
   * room when one is open), then answers with the stored document, which includes any
   * concurrent edit of collaborators.
   */
  async patch(
    id: UserIdentity,
    docId: string,
    input: { doc_ast: PmNode; by?: Partial<UpdatedBy>; title?: string },
  ): Promise<DocumentView & { doc_ast: DocAst }> {
    const caller = callerOf(id);
    const { meta } = await this.access(caller, docId, "editor", "edit it");
    const by: UpdatedBy = {
      updated_by_type: input.by?.updated_by_type ?? "user",
      updated_by_id: input.by?.updated_by_id ?? String(caller.userId),
    };
    if (input.title !== undefined && input.title !== meta.title) {
      await this.deps.store.setTitle(caller.tenantId, meta.doc_id, input.title, this.now());
      // The title is indexed too; a content change below queues its own re-index.
      await this.enqueueReindex(meta.doc_id, meta.tenant_id);
    }
    await this.rooms.withDoc(meta.doc_id, REST_PATCH_ORIGIN, (doc) => applyDocAst(doc, input.doc_ast), by);
    return this.get(id, meta.doc_id);
  }

  async members(
    id: UserIdentity,
    docId: string,
  ): Promise<{ owner_id: number; general_access: GeneralAccess; members: MemberView[] }> {
    const caller = callerOf(id);
    const { meta } = await this.access(caller, docId, "viewer", "see its members");
    const members: MemberView[] = [];
    for (const m of await this.deps.store.listMembers(meta.doc_id)) {
      const u = await this.deps.findUser(m.user_id);
      members.push({ ...m, email: u?.email ?? "", name: u?.name ?? "" });
    }
    return { owner_id: meta.owner_id, general_access: meta.general_access, members };
  }

  async putMember(id: UserIdentity, docId: string, userId: number, role: MemberRole): Promise<MemberView> {
    const caller = callerOf(id);
    const { meta } = await this.access(caller, docId, "owner", "share it");
    const user = await this.deps.findUser(userId);
    if (!user || user.tenant_id !== caller.tenantId)
      throw new AppError("not_found", `No user ${userId} in this tenant`);
    if (userId === meta.owner_id) throw new AppError("conflict", "The owner already has every right on the document");
    const member: EditorMember = { user_id: userId, role, granted_at: this.now(), granted_by: caller.userId };
    await this.deps.store.putMember(meta.doc_id, member);
    await this.deps.onAccessChanged?.({ tenantId: meta.tenant_id, docId: meta.doc_id, userId });
    await this.enqueueReindex(meta.doc_id, meta.tenant_id);
    return { ...member, email: user.email, name: user.name };
  }

  async deleteMember(id: UserIdentity, docId: string, userId: number): Promise<void> {
    const caller = callerOf(id);
    const { meta } = await this.access(caller, docId, "owner", "share it");
    if (!(await this.deps.store.deleteMember(meta.doc_id, userId))) {
      throw new AppError("not_found", `User ${userId} is not a member of this document`);
    }
    await this.deps.onAccessChanged?.({ tenantId: meta.tenant_id, docId: meta.doc_id, userId });
    await this.enqueueReindex(meta.doc_id, meta.tenant_id);
  }

  async setGeneralAccess(id: UserIdentity, docId: string, access: GeneralAccess): Promise<DocumentView> {
    const caller = callerOf(id);
    const { meta, role } = await this.access(caller, docId, "owner", "share it");
    if (meta.general_access !== access) {
      await this.deps.store.setGeneralAccess(caller.tenantId, meta.doc_id, access);
      await this.deps.onAccessChanged?.({ tenantId: meta.tenant_id, docId: meta.doc_id, userId: null });
      await this.enqueueReindex(meta.doc_id, meta.tenant_id);
    }
    return toView({ ...meta, general_access: access }, role);
  }

  // -------------------------------------------------------------------------
  // Collaboration server

  async loadState(docId: string): Promise<Uint8Array | null> {
    if (!UUID_RE.test(docId)) throw notFound();
    docId = docId.toLowerCase();
    const found = await this.deps.store.getForCollab(docId);
    if (!found) throw notFound();
    return found.state;
  }

  /**
   * Stores a CRDT state (the internal PUT and CollabPersistence.store): merged with what is
   * stored, so a stale writer never erases newer updates; doc_ast derived from the result;
   * a re-index queued when the content changed. An unchanged state writes nothing.
   */
  async storeState(
    docId: string,
    state: Uint8Array,
    by: UpdatedBy,
  ): Promise<{ doc_id: string; version: number; changed: boolean }> {
    if (!UUID_RE.test(docId)) throw notFound();
    docId = docId.toLowerCase();
    for (let attempt = 0; attempt < STORE_ATTEMPTS; attempt++) {
      const cur = await this.deps.store.getForCollab(docId);
      if (!cur) throw notFound();
      if (cur.state && bytesEqual(cur.state, state)) return { doc_id: docId, version: cur.version, changed: false };
      const merged = await this.merge(cur.state, state);
      if (cur.state && bytesEqual(cur.state, merged.state)) {
        return { doc_id: docId, version: cur.version, changed: false };
      }
      const version = await this.deps.store.putContent(docId, cur.version, {
        state: merged.state,
        doc_ast: merged.docAst,
        by,
        at: this.now(),
      });
      if (version !== null) {
        await this.enqueueReindex(docId, cur.tenant_id);
        return { doc_id: docId, version, changed: true };
      }
    }
    throw new AppError("conflict", "The document kept changing while it was stored; retry");
  }

  /** The webhook (and CollabAuthorizer): verify the JWT, compute the role, viewers read-only. */
  async authorize(
    token: string,
    documentName: string,
  ): Promise<{ grant: CollabGrant; user: { id: number; email: string; name: string } }> {
    const bare = token.replace(/^Bearer\s+/i, "").trim();
    if (!bare) throw new AppError("unauthenticated", "Missing token");
    const id = await this.deps.verifyToken(bare);
    await this.deps.requireActiveTenant(id.tenantId);
    const { role } = await this.access(callerOf(id), documentName, "viewer", "open it");
    return {
      grant: { readOnly: role === "viewer", role, tenantId: id.tenantId, userId: id.user.id },
      user: { id: id.user.id, email: id.user.email, name: id.user.name },
    };
  }

  private async merge(stored: Uint8Array | null, incoming: Uint8Array) {
    try {
      return await (this.deps.merger?.merge(stored, incoming) ?? mergeStates(stored, incoming));
    } catch (err) {
      if (err instanceof AppError) throw err;
      throw AppError.validation([
        {
          loc: ["body", "yjs_state"],
          msg: `The state cannot be applied to the document: ${(err as Error).message}`,
          type: "value_error",
          input: null,
          ctx: {},
        },
      ]);
    }
  }

  // -------------------------------------------------------------------------

  private async enqueueReindex(docId: string, tenantId: string): Promise<void> {
    try {
      const generation = await this.deps.store.bumpIndexGeneration(docId);
      const job: ReindexJob = { doc_id: docId, tenant_id: tenantId, generation };
      await this.deps.queue.enqueue(
        EDITOR_REINDEX_QUEUE,
        "reindex",
        { ...job },
        {
          jobId: `editor-reindex-${docId}-g${generation}`,
          delayMs: REINDEX_DELAY_MS,
          attempts: 5,
          backoffMs: 2_000,
        },
      );
    } catch (err) {
      // The content is stored; a missed re-index is repaired by the document's next change.
      this.deps.onReindexError?.(err, docId);
    }
  }
}
