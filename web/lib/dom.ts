/**
 * Small DOM helpers instead of a UI framework (docs/dashboard.md): pages are built with
 * `h(tag, attrs, ...children)` and re-render their own region; this keeps the first load
 * small and the code plain TypeScript.
 */
export type Child = Node | string | number | null | undefined | false | Child[];
type Attrs = Record<string, string | number | boolean | null | undefined | EventListener>;

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith("on") && typeof v === "function") el.addEventListener(k.slice(2), v);
    else if (k === "value" && "value" in el) (el as HTMLInputElement).value = String(v);
    else el.setAttribute(k, v === true ? "" : String(v));
  }
  append(el, children);
  return el;
}

export function append(el: Node, children: Child[]): void {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    if (Array.isArray(c)) append(el, c);
    else el.appendChild(typeof c === "object" ? c : document.createTextNode(String(c)));
  }
}

/** Replaces an element's children. */
export function set(el: Element, ...children: Child[]): void {
  el.replaceChildren();
  append(el, children);
}

let ids = 0;
/** A labelled form field; the error slot sits next to the input (role=alert). */
export function field(
  label: string,
  input: HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement,
): { wrap: HTMLElement; input: typeof input; error: HTMLElement } {
  ids++;
  input.id ||= `f${ids}`;
  const error = h("span", { class: "field-error", id: `${input.id}-err`, role: "alert" });
  input.setAttribute("aria-describedby", error.id);
  const wrap = h("div", { class: "field" }, h("label", { for: input.id }, label), input, error);
  return { wrap, input, error };
}

export function select(name: string, options: string[], value = ""): HTMLSelectElement {
  return h("select", { name }, ...options.map((o) => h("option", { value: o, selected: o === value }, o || "(any)")));
}

export function table(headers: string[], rows: Child[][], caption?: string): HTMLTableElement {
  return h(
    "table",
    {},
    caption ? h("caption", {}, caption) : null,
    h("thead", {}, h("tr", {}, ...headers.map((x) => h("th", { scope: "col" }, x)))),
    h("tbody", {}, ...rows.map((r) => h("tr", {}, ...r.map((c) => h("td", {}, c))))),
  );
}

/** A status line announced to screen readers. */
export function status(text = ""): HTMLElement {
  return h("p", { class: "status", role: "status", "aria-live": "polite" }, text);
}

export function fmtDate(iso: string | null | undefined): string {
  return iso ? new Date(iso).toLocaleString() : "—";
}
