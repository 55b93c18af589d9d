/**
 * EditorDocumentStore over the SqlClient port (SQLite and Postgres alike). doc_ast is JSON
 * text, yjs_state bytes (BLOB / BYTEA), timestamps ISO-8601 text.
 */

import type { EditorDocumentStore } from "../../domain/editor/ports.ts";
import type {
  DocAst,
  EditorDocumentMeta,
  EditorDocumentRow,
  EditorMember,
  GeneralAccess,
  ListedDocument,
  ListQuery,
  MemberRole,
  NewEditorDocument,
} from "../../domain/editor/types.ts";
import type { SqlClient } from "../../domain/ports.ts";

const META_COLS =
  "d.doc_id, d.tenant_id, d.title, d.owner_id, d.general_access, d.version, d.created_at, d.created_by, " +
  "d.updated_at, d.updated_by_type, d.updated_by_id";

interface MetaRow {
  doc_id: string;
  tenant_id: string;
  title: string;
  owner_id: number | string;
  general_access: string;
  version: number | string;
  created_at: string;
  created_by: number | string;
  updated_at: string;
  updated_by_type: string;
  updated_by_id: string;
}

function toMeta(r: MetaRow): EditorDocumentMeta {
  return {
    doc_id: r.doc_id,
    tenant_id: r.tenant_id,
    title: r.title,
    owner_id: Number(r.owner_id),
    general_access: r.general_access as GeneralAccess,
    version: Number(r.version),
    created_at: r.created_at,
    created_by: Number(r.created_by),
    updated_at: r.updated_at,
    updated_by_type: r.updated_by_type,
    updated_by_id: r.updated_by_id,
  };
}

function toBytes(v: unknown): Uint8Array | null {
  if (v === null || v === undefined) return null;
  if (v instanceof Uint8Array) return new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
  throw new Error("yjs_state is not binary");
}

export class SqlEditorDocumentStore implements EditorDocumentStore {
  constructor(private readonly sql: SqlClient) {}

  async create(doc: NewEditorDocument): Promise<EditorDocumentRow> {
    await this.sql.run(
      `INSERT INTO editor_documents (doc_id, tenant_id, title, owner_id, general_access, yjs_state, doc_ast, version,
         created_at, created_by, updated_at, updated_by_type, updated_by_id)
       VALUES (?, ?, ?, ?, ?, ?, ?, 1, ?, ?, ?, 'user', ?)`,
      [
        doc.doc_id,
        doc.tenant_id,
        doc.title,
        doc.owner_id,
        doc.general_access,
        doc.state,
        JSON.stringify(doc.doc_ast),
        doc.at,
        doc.owner_id,
        doc.at,
        String(doc.owner_id),
      ],
    );
    const row = await this.get(doc.tenant_id, doc.doc_id);
    if (!row) throw new Error(`editor document ${doc.doc_id} vanished after insert`);
    return row;
  }

  async get(tenantId: string, docId: string): Promise<EditorDocumentRow | null> {
    const r = await this.sql.get<MetaRow & { doc_ast: string }>(
      `SELECT ${META_COLS}, d.doc_ast FROM editor_documents d WHERE d.tenant_id = ? AND d.doc_id = ?`,
      [tenantId, docId],
    );
    return r ? { ...toMeta(r), doc_ast: JSON.parse(r.doc_ast) as DocAst } : null;
  }

  async getMeta(tenantId: string, docId: string): Promise<EditorDocumentMeta | null> {
    const r = await this.sql.get<MetaRow>(
      `SELECT ${META_COLS} FROM editor_documents d WHERE d.tenant_id = ? AND d.doc_id = ?`,
      [tenantId, docId],
    );
    return r ? toMeta(r) : null;
  }

  async getForCollab(docId: string): Promise<{ tenant_id: string; state: Uint8Array | null; version: number } | null> {
    const r = await this.sql.get<{ tenant_id: string; yjs_state: unknown; version: number | string }>(
      "SELECT tenant_id, yjs_state, version FROM editor_documents WHERE doc_id = ?",
      [docId],
    );
    return r ? { tenant_id: r.tenant_id, state: toBytes(r.yjs_state), version: Number(r.version) } : null;
  }

  async putContent(
    docId: string,
    expectedVersion: number,
    c: { state: Uint8Array; doc_ast: DocAst; by: { updated_by_type: string; updated_by_id: string }; at: string },
  ): Promise<number | null> {
    const { changes } = await this.sql.run(
      `UPDATE editor_documents SET yjs_state = ?, doc_ast = ?, version = version + 1, updated_at = ?,
         updated_by_type = ?, updated_by_id = ?
       WHERE doc_id = ? AND version = ?`,
      [c.state, JSON.stringify(c.doc_ast), c.at, c.by.updated_by_type, c.by.updated_by_id, docId, expectedVersion],
    );
    return changes === 1 ? expectedVersion + 1 : null;
  }

  async setTitle(tenantId: string, docId: string, title: string, at: string): Promise<void> {
    await this.sql.run("UPDATE editor_documents SET title = ?, updated_at = ? WHERE tenant_id = ? AND doc_id = ?", [
      title,
      at,
      tenantId,
      docId,
    ]);
  }

  async setGeneralAccess(tenantId: string, docId: string, access: GeneralAccess): Promise<void> {
    await this.sql.run("UPDATE editor_documents SET general_access = ? WHERE tenant_id = ? AND doc_id = ?", [
      access,
      tenantId,
      docId,
    ]);
  }

  async listVisible(q: ListQuery): Promise<ListedDocument[]> {
    const params: (string | number)[] = [q.userId, q.tenantId, q.userId];
    let keyset = "";
    if (q.after) {
      keyset = "AND (d.updated_at < ? OR (d.updated_at = ? AND d.doc_id < ?))";
      params.push(q.after.updated_at, q.after.updated_at, q.after.doc_id);
    }
    params.push(q.limit);
    const rows = await this.sql.all<MetaRow & { member_role: string | null }>(
      `SELECT ${META_COLS}, m.role AS member_role
       FROM editor_documents d
       LEFT JOIN editor_members m ON m.doc_id = d.doc_id AND m.user_id = ?
       WHERE d.tenant_id = ? AND (d.owner_id = ? OR m.role IS NOT NULL OR d.general_access <> 'none') ${keyset}
       ORDER BY d.updated_at DESC, d.doc_id DESC
       LIMIT ?`,
      params,
    );
    return rows.map((r) => ({ ...toMeta(r), member_role: (r.member_role as MemberRole | null) ?? null }));
  }

  async memberRole(docId: string, userId: number): Promise<MemberRole | null> {
    const r = await this.sql.get<{ role: string }>("SELECT role FROM editor_members WHERE doc_id = ? AND user_id = ?", [
      docId,
      userId,
    ]);
    return (r?.role as MemberRole | undefined) ?? null;
  }

  async listMembers(docId: string): Promise<EditorMember[]> {
    const rows = await this.sql.all<{
      user_id: number | string;
      role: string;
      granted_at: string;
      granted_by: number | string;
    }>(
      "SELECT user_id, role, granted_at, granted_by FROM editor_members WHERE doc_id = ? ORDER BY granted_at, user_id",
      [docId],
    );
    return rows.map((r) => ({
      user_id: Number(r.user_id),
      role: r.role as MemberRole,
      granted_at: r.granted_at,
      granted_by: Number(r.granted_by),
    }));
  }

  async putMember(docId: string, m: EditorMember): Promise<void> {
    await this.sql.run(
      `INSERT INTO editor_members (doc_id, user_id, role, granted_at, granted_by) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (doc_id, user_id) DO UPDATE SET role = excluded.role, granted_at = excluded.granted_at,
         granted_by = excluded.granted_by`,
      [docId, m.user_id, m.role, m.granted_at, m.granted_by],
    );
  }

  async deleteMember(docId: string, userId: number): Promise<boolean> {
    const { changes } = await this.sql.run("DELETE FROM editor_members WHERE doc_id = ? AND user_id = ?", [
      docId,
      userId,
    ]);
    return changes > 0;
  }

  async bumpIndexGeneration(docId: string): Promise<number> {
    const r = await this.sql.get<{ g: number | string }>(
      "UPDATE editor_documents SET index_generation = index_generation + 1 WHERE doc_id = ? RETURNING index_generation AS g",
      [docId],
    );
    if (!r) throw new Error(`editor document ${docId} not found`);
    return Number(r.g);
  }

  async markIndexed(docId: string, gen: number): Promise<boolean> {
    const { changes } = await this.sql.run(
      "UPDATE editor_documents SET indexed_generation = ? WHERE doc_id = ? AND indexed_generation < ?",
      [gen, docId, gen],
    );
    return changes > 0;
  }

  async indexState(docId: string): Promise<{ generation: number; indexed: number } | null> {
    const r = await this.sql.get<{ g: number | string; i: number | string }>(
      "SELECT index_generation AS g, indexed_generation AS i FROM editor_documents WHERE doc_id = ?",
      [docId],
    );
    return r ? { generation: Number(r.g), indexed: Number(r.i) } : null;
  }
}
