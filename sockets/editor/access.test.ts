/**
 * Access re-checked after a collaboration connection opened (issue 13), over a real Bun
 * server with real clients: token expiry (a clock the test moves, so "a frame received
 * after expiry" is exact and not a race with the timer) and access changes (a re-check
 * that downgrades or closes; frames that arrive while it runs wait for its answer).
 */
import { afterEach, describe, expect, test } from "bun:test";
import * as decoding from "lib0/decoding";
import * as encoding from "lib0/encoding";
import type * as Y from "yjs";
import type { CollabAuthorizer, CollabGrant } from "../../domain/editor/ports.ts";
import type { EditorRole } from "../../domain/editor/types.ts";
import { AppError } from "../../domain/errors.ts";
import {
  type CollabTestServer,
  hocuspocusClient,
  MemoryCollabPersistence,
  startCollabServer,
  textUpdate,
  updateFrame,
  waitFor,
} from "../../test/fixtures/editor-server.ts";
import { closeReason, TOKEN_EXPIRED, tokenExpiry } from "./access.ts";
import { CollabRevocations } from "./revocations.ts";

const quiet = { warn() {} };

/** An unsigned JWT-shaped token: the socket layer reads `exp` from what the authoriser accepted. */
function jwtShaped(exp: number | null): string {
  const part = (o: object) => Buffer.from(JSON.stringify(o)).toString("base64url");
  const claims = exp === null ? { jti: crypto.randomUUID() } : { exp, jti: crypto.randomUUID() };
  return `${part({ alg: "none" })}.${part(claims)}.sig`;
}

/** Tokens -> user and per-document role; roles change while connected; re-checks can be held. */
class MutableAuthorizer implements CollabAuthorizer {
  readonly users = new Map<string, { userId: number; roles: Map<string, EditorRole> }>();
  calls = 0;
  /** While set, authorize waits for it (a re-check in flight). */
  gate: Promise<void> | null = null;
  private next = 1;

  issue(docId: string, role: EditorRole, exp: number | null = null): { token: string; userId: number } {
    const token = jwtShaped(exp);
    const userId = this.next++;
    this.users.set(token, { userId, roles: new Map([[docId, role]]) });
    return { token, userId };
  }

  /** Another token of the same user (a refresh). */
  refresh(token: string, exp: number | null): string {
    const u = this.users.get(token);
    if (!u) throw new Error("unknown token");
    const fresh = jwtShaped(exp);
    this.users.set(fresh, u);
    return fresh;
  }

  setRole(token: string, docId: string, role: EditorRole | null): void {
    const u = this.users.get(token);
    if (!u) throw new Error("unknown token");
    if (role) u.roles.set(docId, role);
    else u.roles.delete(docId);
  }

  /** Reads the role at call time, then waits for the gate: a held answer can be stale. */
  async authorize(token: string, documentName: string): Promise<CollabGrant> {
    this.calls++;
    const u = this.users.get(token);
    const role = u?.roles.get(documentName);
    if (this.gate) await this.gate;
    if (!u) throw new AppError("unauthenticated", "Invalid token");
    if (!role) throw new AppError("forbidden", "You have no access to this document");
    return { readOnly: role === "viewer", role, tenantId: "t", userId: u.userId };
  }
}

function authBody(token: string): Uint8Array {
  const e = encoding.createEncoder();
  encoding.writeVarUint(e, 2); // auth
  encoding.writeVarUint(e, 0); // token
  encoding.writeVarString(e, token);
  return encoding.toUint8Array(e);
}

/** A Hocuspocus socket driven by hand: frames behind a document address; scopes recorded. */
function rawHocuspocus(url: string) {
  const ws = new WebSocket(url);
  ws.binaryType = "arraybuffer";
  const scopes = new Map<string, string>();
  const counts = new Map<string, number>();
  let closed: { code: number; reason: string } | null = null;
  const opened = new Promise<void>((resolve) => {
    ws.onopen = () => resolve();
  });
  ws.onmessage = (e) => {
    const dec = decoding.createDecoder(new Uint8Array(e.data as ArrayBuffer));
    const address = decoding.readVarString(dec);
    if (decoding.readVarUint(dec) !== 2 || decoding.readVarUint(dec) !== 2) return; // auth / authenticated
    scopes.set(address, decoding.readVarString(dec));
    counts.set(address, (counts.get(address) ?? 0) + 1);
  };
  ws.onclose = (e) => {
    closed = { code: e.code, reason: e.reason };
  };
  const send = (address: string, body: Uint8Array) => {
    const e = encoding.createEncoder();
    encoding.writeVarString(e, address);
    encoding.writeUint8Array(e, body);
    ws.send(encoding.toUint8Array(e));
  };
  return {
    send,
    closed: () => closed,
    scope: (address: string) => scopes.get(address),
    authentications: (address: string) => counts.get(address) ?? 0,
    close: () => ws.close(),
    authenticate: async (address: string, token: string) => {
      await opened;
      send(address, authBody(token));
      await waitFor("authenticated", () => scopes.has(address));
    },
  };
}

/** A y-websocket socket driven by hand: bare y-protocols frames, close code recorded. */
function rawClient(url: string) {
  const ws = new WebSocket(url);
  ws.binaryType = "arraybuffer";
  const state = { open: false, frames: 0, closed: null as { code: number; reason: string } | null };
  ws.onopen = () => {
    state.open = true;
  };
  ws.onmessage = () => {
    state.frames++;
  };
  ws.onclose = (e) => {
    state.closed = { code: e.code, reason: e.reason };
  };
  return { ws, state, opened: () => waitFor("socket open and greeted", () => state.open && state.frames > 0) };
}

let srv: CollabTestServer | undefined;
const cleanups: (() => void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) c();
  await srv?.stop();
  srv = undefined;
});

function setup() {
  const persistence = new MemoryCollabPersistence();
  const auth = new MutableAuthorizer();
  // The server's clock: real time, moved ahead by `skew` when a test needs it past an expiry.
  const clock = { skew: 0 };
  const revocations = new CollabRevocations({ pubsub: null, channel: "test", instanceId: "i", logger: quiet });
  srv = startCollabServer({
    persistence,
    authorizer: auth,
    sockets: { now: () => Date.now() + clock.skew, revocations },
  });
  return { persistence, auth, clock, revocations, url: srv.url, docId: crypto.randomUUID() };
}

const roomText = (docId: string) => srv?.rooms.peek(docId)?.doc.getText("t").toString() ?? "";
const text = (doc: Y.Doc) => doc.getText("t").toString();

describe("helpers", () => {
  test("tokenExpiry reads exp in ms (Bearer prefix allowed); no JWT or no exp: null", () => {
    expect(tokenExpiry(jwtShaped(1_900_000_000))).toBe(1_900_000_000_000);
    expect(tokenExpiry(`Bearer ${jwtShaped(1_900_000_000)}`)).toBe(1_900_000_000_000);
    expect(tokenExpiry(jwtShaped(null))).toBeNull();
    expect(tokenExpiry("tok-not-a-jwt")).toBeNull();
  });

  test("closeReason keeps reasons within the 123 bytes a close frame allows", () => {
    expect(closeReason("forbidden: no")).toBe("forbidden: no");
    const long = closeReason(`forbidden: ${"é".repeat(200)}`);
    expect(new TextEncoder().encode(long).byteLength).toBeLessThanOrEqual(123);
    expect(long.startsWith("forbidden: é")).toBe(true);
  });
});

describe("token expiry", () => {
  test("y-websocket: an update before exp is applied; one received after exp is not, and the socket closes 4401", async () => {
    const { persistence, auth, clock, url, docId } = setup();
    const exp = Math.floor(Date.now() / 1000) + 600;
    const { token } = auth.issue(docId, "editor", exp);
    const c = rawClient(`${url}/${docId}?token=${token}`);
    cleanups.push(() => c.ws.close());
    await c.opened();
    c.ws.send(updateFrame(textUpdate("early ")));
    await waitFor("the early update applied", () => roomText(docId) === "early ");

    // Past exp by the server's clock; the timer (armed for ten minutes) has not fired.
    clock.skew = exp * 1000 - Date.now();
    c.ws.send(updateFrame(textUpdate("late ")));
    await waitFor("closed", () => c.state.closed !== null);
    expect(c.state.closed).toEqual({ code: TOKEN_EXPIRED.code, reason: TOKEN_EXPIRED.reason });
    await waitFor("the room saved and unloaded", () => srv?.rooms.peek(docId) === undefined);
    expect(persistence.text(docId)).toBe("early ");
  });

  test("the expiry timer closes an idle Hocuspocus socket with 4401; a fresh token reconnects", async () => {
    const { auth, url, docId } = setup();
    // Tokens carry whole seconds: this one expires in two to three.
    const exp = Math.floor(Date.now() / 1000) + 3;
    const { token } = auth.issue(docId, "editor", exp);
    const a = hocuspocusClient(url, docId, token);
    const closes: number[] = [];
    a.provider.on("close", ({ event }: { event: { code: number } }) => closes.push(event.code));
    cleanups.push(a.destroy);
    await a.synced();
    a.doc.getText("t").insert(0, "before ");
    await waitFor("applied", () => roomText(docId) === "before ");
    await waitFor("closed at expiry", () => closes.length > 0, { timeoutMs: 15_000 });
    expect(closes[0]).toBe(4401);
    // The provider reconnects with the same, expired token: refused, so nothing it edits lands.
    await waitFor("re-authentication refused", () => a.events.failed !== "", { timeoutMs: 15_000 });
    expect(a.events.failed).toBe("unauthenticated: Token has expired");
    a.doc.getText("t").insert(0, "after ");

    const fresh = hocuspocusClient(url, docId, auth.issue(docId, "editor", exp + 600).token);
    cleanups.push(fresh.destroy);
    await fresh.synced();
    expect(text(fresh.doc)).toBe("before ");
    fresh.doc.getText("t").insert(0, "renewed ");
    await waitFor("the fresh connection writes", () => roomText(docId) === "renewed before ");
  });

  test("Hocuspocus: a refreshed token moves the expiry; another user's token closes the socket", async () => {
    const { auth, clock, url, docId } = setup();
    const exp = Math.floor(Date.now() / 1000) + 600;
    const { token } = auth.issue(docId, "editor", exp);
    const c = rawHocuspocus(url);
    cleanups.push(c.close);
    await c.authenticate(docId, token);
    const fresh = auth.refresh(token, exp + 600);
    c.send(docId, authBody(fresh));
    await waitFor("the refresh acknowledged", () => c.authentications(docId) === 2);
    expect(c.scope(docId)).toBe("read-write");

    clock.skew = exp * 1000 - Date.now(); // past the first token's exp, not the refreshed one's
    c.send(docId, updateFrame(textUpdate("refreshed ")));
    await waitFor("applied under the refreshed token", () => roomText(docId) === "refreshed ");
    expect(c.closed()).toBeNull();

    c.send(docId, authBody(auth.issue(docId, "editor", exp + 600).token));
    await waitFor("closed", () => c.closed() !== null);
    expect(c.closed()?.code).toBe(4403);
  });

  test("a token already past exp (inside the verifier's tolerance) is refused at authentication", async () => {
    const { auth, url, docId } = setup();
    const a = hocuspocusClient(url, docId, auth.issue(docId, "editor", Math.floor(Date.now() / 1000) - 1).token);
    cleanups.push(a.destroy);
    await waitFor("refused", () => a.events.failed !== "");
    expect(a.events.failed).toBe("unauthenticated: Token has expired");
    expect(a.events.authenticated).toBe("");
  });
});

describe("access changes", () => {
  test("write -> read downgrades in place (Hocuspocus told 'readonly'); removal closes 4403; others unaffected", async () => {
    const { auth, revocations, url, docId } = setup();
    const b = auth.issue(docId, "editor");
    const other = auth.issue(docId, "editor");
    const cb = hocuspocusClient(url, docId, b.token);
    const co = hocuspocusClient(url, docId, other.token);
    const closes: number[] = [];
    cb.provider.on("close", ({ event }: { event: { code: number } }) => closes.push(event.code));
    cleanups.push(cb.destroy, co.destroy);
    await cb.synced();
    await co.synced();
    expect(cb.events.authenticated).toBe("read-write");

    auth.setRole(b.token, docId, "viewer");
    await revocations.publish({ tenantId: "t", docId, userId: b.userId });
    await waitFor("told read-only", () => cb.events.authenticated === "readonly");
    cb.doc.getText("t").insert(0, "refused ");
    // Awareness follows the update through the same room mailbox: once the other client
    // sees it, the room has handled (and dropped) the update.
    cb.provider.setAwarenessField("mark", 1);
    await waitFor("the mark reached the other client", () =>
      [...(co.provider.awareness?.getStates().values() ?? [])].some((s) => s.mark === 1),
    );
    expect(roomText(docId)).toBe("");
    co.doc.getText("t").insert(0, "kept ");
    await waitFor("the other editor still writes", () => roomText(docId) === "kept ");

    auth.setRole(b.token, docId, null);
    await revocations.publish({ tenantId: "t", docId, userId: null });
    await waitFor("closed", () => closes.length > 0);
    expect(closes[0]).toBe(4403);
    co.doc.getText("t").insert(0, "still ");
    await waitFor("the other editor is unaffected", () => roomText(docId) === "still kept ");
  });

  test("a change during the first authorisation makes it ask again: the stale answer is not used", async () => {
    const { auth, revocations, url, docId } = setup();
    const { token, userId } = auth.issue(docId, "editor");
    let release = () => {};
    auth.gate = new Promise<void>((r) => {
      release = r;
    });
    const c = rawHocuspocus(url);
    cleanups.push(c.close);
    const authenticated = c.authenticate(docId, token);
    await waitFor("first authorisation asked", () => auth.calls === 1);
    auth.setRole(token, docId, "viewer");
    await revocations.publish({ tenantId: "t", docId, userId });
    auth.gate = null;
    release();
    await authenticated;
    expect(c.scope(docId)).toBe("readonly");
    expect(auth.calls).toBe(2);
  });

  test("frames arriving while a re-check runs wait for it: dropped when refused, applied when still allowed", async () => {
    const { persistence, auth, revocations, url, docId } = setup();
    const stays = auth.issue(docId, "editor");
    const goes = auth.issue(docId, "editor");
    const s = rawHocuspocus(url);
    const g = rawHocuspocus(url);
    cleanups.push(s.close, g.close);
    await s.authenticate(docId, stays.token);
    await g.authenticate(docId, goes.token);

    let release = () => {};
    auth.gate = new Promise<void>((r) => {
      release = r;
    });
    const before = auth.calls;
    auth.setRole(goes.token, docId, null);
    await revocations.publish({ tenantId: "t", docId, userId: null });
    await waitFor("both re-checks asked", () => auth.calls === before + 2);
    // Each socket sends an update, then opens a second document: its authorisation call
    // proves the server has read (and held) the update before it.
    const other = crypto.randomUUID();
    s.send(docId, updateFrame(textUpdate("S ")));
    s.send(other, authBody(stays.token));
    await waitFor("S's frames read", () => auth.calls === before + 3);
    g.send(docId, updateFrame(textUpdate("G ")));
    g.send(other, authBody(goes.token));
    await waitFor("G's frames read", () => auth.calls === before + 4);
    expect(roomText(docId)).toBe("");

    auth.gate = null;
    release();
    await waitFor("the revoked socket closed", () => g.closed() !== null);
    expect(g.closed()?.code).toBe(4403);
    await waitFor("the held update of the allowed socket applied", () => roomText(docId) === "S ");
    s.close();
    await waitFor("saved", () => srv?.rooms.peek(docId) === undefined);
    expect(persistence.text(docId)).toBe("S ");
  });
});
