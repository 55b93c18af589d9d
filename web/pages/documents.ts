/**
 * Documents: upload (drag and drop, access fields, progress), hybrid search with the
 * query's words highlighted and why each hit is visible to you, and the RAG answer with
 * its citations. These routes take the API key (the session key from sign-in).
 */
import { ApiError, call, showErrors } from "../lib/api.ts";
import { field, h, select, set, status } from "../lib/dom.ts";
import { claims } from "../lib/jwt.ts";
import { session } from "../lib/session.ts";

const DOC_TYPES = [
  "other",
  "cim",
  "nda",
  "management_accounts",
  "dd_report",
  "board_pack",
  "research_note",
  "legal_agreement",
  "pitch",
];
const VISIBILITY = ["tenant_wide", "deal_private", "team_only"];

interface Hit {
  doc_id: string;
  text: string;
  score: number;
  page: number | null;
  filename: string;
  doc_type: string;
  visibility: string;
  ranks: { bm25: number | null; dense: number | null };
}
interface Answer {
  answer: string;
  citations: { ref: string; filename: string; page: number | null; quote: string }[];
  notes: string[];
}

export function render(main: HTMLElement): void {
  if (!session().apiKey) {
    set(
      main,
      h("h1", {}, "Documents"),
      h("p", { class: "error" }, "These pages need an API key: sign out and in again, or paste one at sign-in."),
    );
    return;
  }
  set(main, h("h1", {}, "Documents"), h("div", { class: "grid" }, uploadForm(), searchForm(), ragForm()));
}

function uploadForm(): HTMLElement {
  const file = h("input", { type: "file", name: "file", required: true });
  const docType = field("Document type", select("doc_type", DOC_TYPES));
  const vis = field("Visibility", select("visibility", VISIBILITY));
  const ids = field("Allowed user ids (deal_private, comma-separated)", h("input", { name: "allowed_identity_ids" }));
  const roles = field("Allowed roles (team_only, comma-separated)", h("input", { name: "allowed_roles" }));
  const barrier = field("Information barrier id (optional)", h("input", { name: "barrier_id" }));
  const fileField = field("File", file);
  const progress = h("progress", { max: 100, value: 0, "aria-label": "Upload progress" });
  const out = status();
  const drop = h("div", { class: "drop", "data-testid": "drop" }, "Drop a file here, or choose one below");
  let dropped: File | null = null;
  drop.addEventListener("dragover", (e) => {
    e.preventDefault();
    drop.classList.add("over");
  });
  drop.addEventListener("dragleave", () => drop.classList.remove("over"));
  drop.addEventListener("drop", (e) => {
    e.preventDefault();
    drop.classList.remove("over");
    dropped = e.dataTransfer?.files[0] ?? null;
    drop.textContent = dropped ? `Ready: ${dropped.name}` : "Drop a file here";
  });
  const form = h(
    "form",
    { class: "card", "aria-labelledby": "up-h" },
    h("h2", { id: "up-h" }, "Upload"),
    drop,
    fileField.wrap,
    docType.wrap,
    vis.wrap,
    ids.wrap,
    roles.wrap,
    barrier.wrap,
    h("button", { type: "submit" }, "Upload"),
    progress,
    out,
  );
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const chosen = dropped ?? file.files?.[0];
    if (!chosen) {
      fileField.error.textContent = "Choose or drop a file";
      return;
    }
    const c = claims();
    const fd = new FormData();
    fd.set("file", chosen);
    fd.set("tenant_id", c.tid ?? "");
    fd.set("identity_id", c.sub ?? "");
    for (const el of [docType.input, vis.input, ids.input, roles.input, barrier.input]) {
      const v = (el as HTMLInputElement).value.trim();
      if (v) fd.set((el as HTMLInputElement).name, v);
    }
    out.textContent = "Uploading…";
    // XMLHttpRequest, not fetch: only it reports upload progress.
    const xhr = new XMLHttpRequest();
    xhr.open("POST", "/v1/documents/upload");
    xhr.setRequestHeader("X-API-Key", session().apiKey ?? "");
    xhr.upload.onprogress = (ev) => {
      if (ev.lengthComputable) progress.value = Math.round((ev.loaded / ev.total) * 100);
    };
    xhr.onload = () => {
      const body = JSON.parse(xhr.responseText || "{}");
      if (xhr.status >= 400) {
        showErrors(new ApiError(xhr.status, body.detail ?? `HTTP ${xhr.status}`), form, out);
        return;
      }
      progress.value = 100;
      form.querySelectorAll(".field-error").forEach((el) => {
        el.textContent = "";
      });
      out.textContent = `Indexed ${body.filename ?? chosen.name} (${body.doc_id})`;
    };
    xhr.onerror = () => (out.textContent = "Network error");
    xhr.send(fd);
  });
  return form;
}

/** Marks the query's words (3+ letters) in a hit's text. */
export function highlight(text: string, query: string): (Node | string)[] {
  const words = query
    .split(/\W+/)
    .filter((w) => w.length >= 3)
    .map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  if (words.length === 0) return [text];
  const re = new RegExp(`(${words.join("|")})`, "gi");
  return text.split(re).map((part, i) => (i % 2 === 1 ? h("mark", {}, part) : part));
}

function why(hit: Hit): string {
  if (hit.visibility === "tenant_wide") return "visible to everyone in your tenant";
  if (hit.visibility === "deal_private") return "you are on its list of allowed users";
  return "your role is one of its allowed roles";
}

function searchForm(): HTMLElement {
  const q = field("Search", h("input", { name: "query", type: "search", required: true }));
  const mode = field("Mode", select("mode", ["hybrid", "bm25", "dense"]));
  const out = status();
  const results = h("ol", { class: "articles", "aria-label": "Search results" });
  const form = h(
    "form",
    { class: "card", role: "search" },
    h("h2", {}, "Search"),
    q.wrap,
    mode.wrap,
    h("button", { type: "submit" }, "Search"),
    out,
    results,
  );
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const query = (q.input as HTMLInputElement).value;
    try {
      const r = await call<{ results: Hit[] }>("/v1/documents/search", {
        auth: "key",
        body: { query, mode: (mode.input as HTMLSelectElement).value, k: 10 },
      });
      out.textContent = `${r.results.length} results`;
      set(
        results,
        ...r.results.map((x) =>
          h(
            "li",
            {},
            h("strong", {}, x.filename),
            x.page ? ` p. ${x.page}` : "",
            " ",
            h("span", { class: "pill" }, x.doc_type),
            h("span", { class: "pill", title: why(x) }, x.visibility),
            h("div", {}, ...highlight(x.text.slice(0, 400), query)),
            h(
              "small",
              {},
              `Why you see it: ${why(x)}. Score ${x.score.toFixed(3)} (bm25 rank ${x.ranks.bm25 ?? "—"}, dense rank ${x.ranks.dense ?? "—"})`,
            ),
          ),
        ),
      );
    } catch (err) {
      showErrors(err, form, out);
    }
  });
  return form;
}

function ragForm(): HTMLElement {
  const q = field("Question", h("textarea", { name: "question", rows: 2, required: true }));
  const out = status();
  const answer = h("div", { "data-testid": "answer" });
  const form = h(
    "form",
    { class: "card" },
    h("h2", {}, "Ask (RAG)"),
    q.wrap,
    h("button", { type: "submit" }, "Ask"),
    out,
    answer,
  );
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    out.textContent = "Thinking…";
    try {
      const r = await call<Answer>("/v1/rag/answer/agent", {
        auth: "key",
        body: { question: (q.input as HTMLTextAreaElement).value },
      });
      out.textContent = "";
      set(
        answer,
        h("p", {}, r.answer),
        h("h3", {}, "Citations"),
        h(
          "ol",
          {},
          ...r.citations.map((c) =>
            h(
              "li",
              {},
              h("strong", {}, `[${c.ref}] ${c.filename}`),
              c.page ? ` p. ${c.page}` : "",
              h("blockquote", {}, c.quote),
            ),
          ),
        ),
        r.notes.length ? h("p", { class: "status" }, r.notes.join(" ")) : null,
      );
    } catch (err) {
      showErrors(err, form, out);
    }
  });
  return form;
}
