/**
 * Sign-in: paste a user JWT (on the embedded profile, `bun run cli token --email you@x`
 * mints one). The dashboard then creates an API key for itself, labelled "dashboard
 * session", for the pages whose routes take API keys, and revokes it at sign-out.
 */
import { ApiError, call } from "../lib/api.ts";
import { field, h, set, status } from "../lib/dom.ts";
import { clearSession, saveSession, session } from "../lib/session.ts";

interface CreatedKey {
  id: string;
  key: string;
}

export async function render(main: HTMLElement): Promise<void> {
  document.title = "Sign in · Cairn";
  const s = session();
  if (s.jwt) {
    const out = status();
    const btn = h("button", { type: "button" }, "Sign out");
    btn.addEventListener("click", async () => {
      btn.disabled = true;
      if (s.apiKeyId) {
        // Best effort: an expired JWT cannot revoke; the key then stays listed on Account.
        await call(`/v1/user/api-keys/${s.apiKeyId}`, { method: "DELETE" }).catch(() => undefined);
      }
      clearSession();
      location.hash = "#/signin";
      window.dispatchEvent(new HashChangeEvent("hashchange"));
    });
    set(main, h("h1", {}, "Signed in"), h("p", {}, "Signing out revokes the dashboard's session key."), btn, out);
    main.dataset.ready = "true";
    return;
  }
  const jwt = field("Access token (JWT)", h("textarea", { name: "jwt", rows: 4, required: true, autocomplete: "off" }));
  const key = field(
    "API key (optional; else one is created for this session)",
    h("input", { name: "api_key", type: "password", autocomplete: "off" }),
  );
  const out = status();
  const form = h(
    "form",
    { "aria-labelledby": "signin-h" },
    jwt.wrap,
    key.wrap,
    h("button", { type: "submit" }, "Sign in"),
    out,
  );
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    jwt.error.textContent = "";
    out.textContent = "Checking…";
    const token = (jwt.input as HTMLTextAreaElement).value.trim();
    saveSession({ jwt: token, apiKey: null, apiKeyId: null });
    try {
      await call("/v1/user/me");
    } catch (err) {
      clearSession();
      jwt.error.textContent = err instanceof ApiError ? err.message : String(err);
      out.textContent = "";
      return;
    }
    const pasted = (key.input as HTMLInputElement).value.trim();
    if (pasted) saveSession({ apiKey: pasted });
    else {
      try {
        const k = await call<CreatedKey>("/v1/user/api-keys", { body: { label: "dashboard session" } });
        saveSession({ apiKey: k.key, apiKeyId: k.id });
      } catch (err) {
        // The tier's key cap: sign in anyway; key-only pages say what is missing.
        key.error.textContent = `No session key: ${err instanceof Error ? err.message : err}. Paste one of your keys.`;
        out.textContent = "";
        return;
      }
    }
    location.hash = "#/account";
  });
  set(
    main,
    h("h1", { id: "signin-h" }, "Sign in"),
    h(
      "p",
      {},
      "Paste a user access token. On the embedded profile: ",
      h("code", {}, "bun run cli token --email you@example.com"),
      ". The token stays in this tab's session storage only.",
    ),
    form,
  );
  main.dataset.ready = "true";
}
