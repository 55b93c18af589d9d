/**
 * The dashboard's shell: navigation, hash routing (#/account, #/documents, ...) and the
 * sign-in gate. Heavy pages (the editor with Tiptap and Yjs) are loaded on demand so the
 * first load stays small (bench/dashboard-size.ts).
 */
import { h, set } from "./lib/dom.ts";
import { leavePage } from "./lib/lifecycle.ts";
import { session } from "./lib/session.ts";

type Page = (root: HTMLElement) => Promise<void> | void;

/** Route name -> [label, loader]. Each page module exports `render(root)`. */
const PAGES: Record<string, [string, () => Promise<{ render: Page }>]> = {
  account: ["Account", () => import("./pages/account.ts")],
  documents: ["Documents", () => import("./pages/documents.ts")],
  editor: ["Editor", () => import("./pages/editor.ts")],
  news: ["News", () => import("./pages/news.ts")],
  data: ["Data", () => import("./pages/data.ts")],
  admin: ["Admin", () => import("./pages/admin.ts")],
  foundry: ["Foundry", () => import("./pages/foundry.ts")],
};

async function route(): Promise<void> {
  leavePage();
  const root = document.getElementById("root") as HTMLElement;
  const name = location.hash.replace(/^#\/?/, "").split("/")[0] || "account";
  const signedIn = Boolean(session().jwt);
  const main = h("main", { id: "main", tabindex: "-1" });
  const nav = h(
    "nav",
    { "aria-label": "Sections" },
    h(
      "ul",
      {},
      ...Object.entries(PAGES).map(([k, [label]]) =>
        h("li", {}, h("a", { href: `#/${k}`, "aria-current": k === name ? "page" : null }, label)),
      ),
      h("li", {}, h("a", { href: "#/signin" }, signedIn ? "Sign out" : "Sign in")),
    ),
  );
  set(root, h("header", {}, h("a", { class: "brand", href: "#/account" }, "Cairn"), nav), main);
  const entry = PAGES[name];
  if (name === "signin" || (!signedIn && name !== "admin") || !entry) {
    const { render } = await import("./pages/signin.ts");
    await render(main);
    return;
  }
  document.title = `${entry[0]} · Cairn`;
  const mod = await entry[1]();
  await mod.render(main);
  main.dataset.ready = "true";
}

window.addEventListener("hashchange", () => void route());
void route();
