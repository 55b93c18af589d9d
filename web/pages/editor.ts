/**
 * Editor: the user's documents, and one document open in Tiptap bound to our collaboration
 * room (Hocuspocus protocol on /v1/editor/collab, the user JWT as the room token). Presence
 * carets carry the user's email; viewers get a read-only editor (the server answers
 * scope "readonly" and drops their writes anyway). Loaded on demand: Tiptap and Yjs are the
 * bulk of the dashboard's JavaScript.
 */
import { HocuspocusProvider } from "@hocuspocus/provider";
import { Editor, Extension } from "@tiptap/core";
import StarterKit from "@tiptap/starter-kit";
import { yCursorPlugin, ySyncPlugin, yUndoPlugin } from "y-prosemirror";
import * as Y from "yjs";
import { call, showErrors } from "../lib/api.ts";
import { field, fmtDate, h, select, set, status, table } from "../lib/dom.ts";
import { claims } from "../lib/jwt.ts";
import { onLeave } from "../lib/lifecycle.ts";
import { session } from "../lib/session.ts";

interface Doc {
  doc_id: string;
  title: string;
  my_role: string;
  general_access: string;
  updated_at: string;
}

const COLORS = ["#1d4ed8", "#b91c1c", "#047857", "#7c3aed", "#b45309", "#be185d"];

export async function render(main: HTMLElement): Promise<void> {
  const docId = location.hash.split("/")[2];
  if (docId) return open(main, docId);
  const { documents } = await call<{ documents: Doc[] }>("/v1/editor/documents", {
    auth: "both",
    query: { limit: 100 },
  });
  const title = field("Title", h("input", { name: "title", required: true, maxlength: 200 }));
  const out = status();
  const form = h("form", { class: "inline" }, title.wrap, h("button", { type: "submit" }, "New document"), out);
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    try {
      const d = await call<Doc>("/v1/editor/documents", {
        auth: "both",
        body: { title: (title.input as HTMLInputElement).value },
      });
      location.hash = `#/editor/${d.doc_id}`;
    } catch (err) {
      showErrors(err, form, out);
    }
  });
  set(
    main,
    h("h1", {}, "Editor"),
    form,
    table(
      ["Title", "My role", "Access", "Updated"],
      documents.map((d) => [
        h("a", { href: `#/editor/${d.doc_id}` }, d.title),
        d.my_role,
        d.general_access,
        fmtDate(d.updated_at),
      ]),
      "Your documents",
    ),
  );
}

async function open(main: HTMLElement, docId: string): Promise<void> {
  const doc = await call<Doc>(`/v1/editor/documents/${docId}`, { auth: "both" });
  const conn = h("span", { "data-testid": "connection", role: "status" }, "connecting");
  const mode = h("span", { "data-testid": "mode", class: "pill" }, doc.my_role === "viewer" ? "read-only" : "editing");
  const mount = h("div", { "data-testid": "editor" });
  set(
    main,
    h("p", {}, h("a", { href: "#/editor" }, "← All documents")),
    h("h1", {}, doc.title),
    h("p", {}, "Connection: ", conn, " ", mode, ` Your role: ${doc.my_role}`),
    mount,
    doc.my_role === "owner" ? shareForm(docId) : null,
  );

  const ydoc = new Y.Doc();
  const me = claims();
  const provider = new HocuspocusProvider({
    url: `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/v1/editor/collab`,
    name: docId,
    token: session().jwt ?? "",
    document: ydoc,
    onStatus: ({ status: s }) => (conn.textContent = s),
    onAuthenticated: ({ scope }) => {
      const readOnly = scope === "readonly";
      editor.setEditable(!readOnly);
      mode.textContent = readOnly ? "read-only" : "editing";
    },
    onAuthenticationFailed: ({ reason }) => (conn.textContent = `refused: ${reason}`),
  });
  provider.setAwarenessField("user", {
    name: me.email ?? `user ${me.sub}`,
    color: COLORS[Number(me.sub ?? 0) % COLORS.length],
  });
  // The room's field is "default" (domain/editor: YDOC_FIELD); y-prosemirror binds it.
  const fragment = ydoc.getXmlFragment("default");
  const awareness = provider.awareness;
  const Collab = Extension.create({
    name: "cairnCollab",
    addProseMirrorPlugins: () => [
      ySyncPlugin(fragment),
      ...(awareness ? [yCursorPlugin(awareness)] : []),
      yUndoPlugin(),
    ],
  });
  const editor = new Editor({
    element: mount,
    editable: doc.my_role !== "viewer",
    // Yjs keeps the history: StarterKit's own undo would fight it.
    extensions: [StarterKit.configure({ undoRedo: false }), Collab],
    editorProps: { attributes: { "aria-label": `Document ${doc.title}`, role: "textbox", "aria-multiline": "true" } },
  });
  onLeave(() => {
    editor.destroy();
    provider.destroy();
    ydoc.destroy();
  });
}

function shareForm(docId: string): HTMLElement {
  const user = field("User id", h("input", { name: "user_id", inputmode: "numeric", required: true }));
  const role = field("Role", select("role", ["viewer", "editor"]));
  const out = status();
  const form = h(
    "form",
    { class: "inline", "aria-label": "Share" },
    user.wrap,
    role.wrap,
    h("button", { type: "submit" }, "Share"),
    out,
  );
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    try {
      const id = (user.input as HTMLInputElement).value.trim();
      await call(`/v1/editor/documents/${docId}/members/${encodeURIComponent(id)}`, {
        auth: "both",
        method: "PUT",
        body: { role: (role.input as HTMLSelectElement).value },
      });
      out.textContent = `Shared with user ${id}`;
    } catch (err) {
      showErrors(err, form, out);
    }
  });
  return form;
}
