/**
 * News: the live stream (/v1/news/stream, the session API key as ?apikey= since browsers
 * cannot set WebSocket headers) with its filter, the per-connection sequence and dropped
 * counters, and history search over REST (/v1/news).
 */
import { call, showErrors } from "../lib/api.ts";
import { field, fmtDate, h, select, set, status } from "../lib/dom.ts";
import { onLeave } from "../lib/lifecycle.ts";
import { session } from "../lib/session.ts";

interface Article {
  article_id: string;
  url: string;
  title: string;
  source_name: string;
  source_type: string;
  published_at: string;
  company_tickers: string[] | string;
  categories: string[] | string;
  sentiment_label: string;
  impact_score: number | string;
}

const list = (v: string) =>
  v
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);

function filterFields() {
  return {
    tickers: field("Tickers (comma-separated)", h("input", { name: "tickers" })),
    categories: field("Categories", h("input", { name: "categories" })),
    sentiment: field("Sentiment", select("sentiment", ["", "bullish", "bearish", "neutral"])),
    min_impact: field(
      "Min impact (0–1)",
      h("input", { name: "min_impact", type: "number", min: 0, max: 1, step: 0.05 }),
    ),
    source_types: field("Source types", select("source_types", ["", "rss", "gdelt", "reddit", "twitter"])),
  };
}

function values(f: ReturnType<typeof filterFields>) {
  const v = (k: keyof typeof f) => (f[k].input as HTMLInputElement).value.trim();
  return {
    tickers: list(v("tickers")),
    categories: list(v("categories")),
    sentiment: v("sentiment") || null,
    min_impact: v("min_impact") ? Number(v("min_impact")) : null,
    source_types: list(v("source_types")),
  };
}

/** List fields arrive as arrays or as JSON-encoded strings (the article's wire form). */
function listOf(v: string[] | string): string[] {
  if (Array.isArray(v)) return v;
  try {
    const parsed = JSON.parse(v);
    return Array.isArray(parsed) ? parsed.map(String) : [v];
  } catch {
    return v ? [v] : [];
  }
}

function item(a: Article): HTMLElement {
  const tickers = listOf(a.company_tickers).join(", ");
  return h(
    "li",
    { "data-article": a.article_id },
    h("a", { href: a.url, rel: "noopener", target: "_blank" }, a.title),
    " ",
    h("span", { class: "pill" }, a.source_type),
    h("span", { class: "pill" }, a.sentiment_label),
    tickers ? h("span", { class: "pill" }, tickers) : null,
    h("small", {}, ` ${a.source_name} · ${fmtDate(a.published_at)} · impact ${a.impact_score}`),
  );
}

export function render(main: HTMLElement): void {
  if (!session().apiKey) {
    set(
      main,
      h("h1", {}, "News"),
      h("p", { class: "error" }, "The news pages need an API key: sign in again or paste one."),
    );
    return;
  }
  set(main, h("h1", {}, "News"), h("div", { class: "grid" }, live(), history()));
}

function live(): HTMLElement {
  const f = filterFields();
  const conn = h("span", { "data-testid": "stream-state" }, "connecting");
  const counters = h("span", { "data-testid": "counters" }, "seq 0 · dropped 0");
  const out = status();
  const feed = h("ol", {
    class: "articles",
    "aria-label": "Live articles",
    "aria-live": "polite",
    "data-testid": "live",
  });
  const form = h(
    "form",
    { class: "card", "aria-labelledby": "live-h" },
    h("h2", { id: "live-h" }, "Live"),
    h("p", {}, "Stream: ", conn, " · ", counters),
    ...Object.values(f).map((x) => x.wrap),
    h("button", { type: "submit" }, "Apply filter"),
    out,
    feed,
  );
  const ws = new WebSocket(
    `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/v1/news/stream?apikey=${encodeURIComponent(session().apiKey ?? "")}`,
  );
  ws.onopen = () => (conn.textContent = "open");
  ws.onclose = (e) => (conn.textContent = `closed (${e.code})`);
  ws.onmessage = (e) => {
    const m = JSON.parse(String(e.data));
    if (m.type === "article") {
      counters.textContent = `seq ${m.seq} · dropped ${m.dropped}`;
      feed.prepend(item(m.data));
      while (feed.children.length > 200) feed.lastElementChild?.remove();
    } else if (m.type === "filter_applied") out.textContent = `Filter applied: ${JSON.stringify(m.filter)}`;
    else if (m.type === "error") out.textContent = `Filter refused: ${m.message}`;
    else if (m.type === "connected") conn.textContent = "live";
  };
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    ws.send(JSON.stringify(values(f)));
  });
  onLeave(() => ws.close());
  return form;
}

function history(): HTMLElement {
  const f = filterFields();
  const from = field("From (date)", h("input", { name: "from", type: "date" }));
  const out = status();
  const results = h("ol", { class: "articles", "aria-label": "Search results", "data-testid": "history" });
  const form = h(
    "form",
    { class: "card", "aria-labelledby": "hist-h" },
    h("h2", { id: "hist-h" }, "History"),
    ...Object.values(f).map((x) => x.wrap),
    from.wrap,
    h("button", { type: "submit" }, "Search"),
    out,
    results,
  );
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const v = values(f);
    try {
      const r = await call<{ articles: Article[] }>("/v1/news", {
        auth: "key",
        query: {
          tickers: v.tickers.join(","),
          categories: v.categories.join(","),
          sentiment: v.sentiment,
          min_impact: v.min_impact,
          source_types: v.source_types.join(","),
          from: (from.input as HTMLInputElement).value,
          limit: 50,
        },
      });
      out.textContent = `${r.articles.length} articles`;
      set(results, ...r.articles.map(item));
    } catch (err) {
      showErrors(err, form, out);
    }
  });
  return form;
}
