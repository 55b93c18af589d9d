/**
 * The load generator of bench/collab.ts: lean Hocuspocus-protocol clients (both servers speak
 * it). Each writes into its own Y.Doc; only observers decode what they receive, timing each
 * keystroke from its send (`sendTimes`, by Yjs clock) to its delivery.
 */
import * as decoding from "lib0/decoding";
import * as encoding from "lib0/encoding";
import * as Y from "yjs";

/** Send times of every writer's updates, by Yjs clock (one character = one clock). */
export const sendTimes = new Map<number, number[]>();

export interface Stats {
  deliveries: number;
  latencies: number[];
  /** Only deliveries of updates sent at or after this time count. */
  since: number;
}

function frame(prefix: Uint8Array, write: (e: encoding.Encoder) => void): Uint8Array {
  const e = encoding.createEncoder();
  encoding.writeUint8Array(e, prefix);
  write(e);
  return encoding.toUint8Array(e);
}

/** A lean Hocuspocus-protocol client: writes into its own Y.Doc, reads only update metadata. */
export class BenchClient {
  readonly doc = new Y.Doc();
  private ws!: WebSocket;
  private readonly prefix: Uint8Array;
  private readonly lastSeen = new Map<number, number>();
  private synced!: PromiseWithResolvers<void>;
  inFlight = 0;
  onAck: (() => void) | null = null;

  constructor(
    private readonly url: string,
    private readonly room: string,
    private readonly stats: Stats,
    /** Only observers decode what they receive (the load generator must stay cheap). */
    private readonly observe = true,
  ) {
    const e = encoding.createEncoder();
    encoding.writeVarString(e, room);
    this.prefix = encoding.toUint8Array(e);
    sendTimes.set(this.doc.clientID, []);
    this.doc.on("update", (update: Uint8Array) => {
      this.ws.send(
        frame(this.prefix, (e) => {
          encoding.writeVarUint(e, 0);
          encoding.writeVarUint(e, 2);
          encoding.writeVarUint8Array(e, update);
        }),
      );
    });
  }

  connect(): Promise<void> {
    this.synced = Promise.withResolvers<void>();
    this.ws = new WebSocket(this.url);
    this.ws.binaryType = "arraybuffer";
    this.ws.onopen = () => {
      this.ws.send(
        frame(this.prefix, (e) => {
          encoding.writeVarUint(e, 2);
          encoding.writeVarUint(e, 0);
          encoding.writeVarString(e, "bench-token");
          encoding.writeVarString(e, "bench");
        }),
      );
      this.ws.send(
        frame(this.prefix, (e) => {
          encoding.writeVarUint(e, 0);
          encoding.writeVarUint(e, 0);
          encoding.writeVarUint8Array(e, Y.encodeStateVector(this.doc));
        }),
      );
    };
    this.ws.onmessage = (ev) => this.receive(new Uint8Array(ev.data as ArrayBuffer));
    this.ws.onerror = () => this.synced.reject(new Error(`socket error (${this.room})`));
    return this.synced.promise;
  }

  /** One insert at the end of the text (typing forward), timed by its clock. */
  write(ch = "x"): void {
    const times = sendTimes.get(this.doc.clientID) as number[];
    const clock = Y.getState(this.doc.store, this.doc.clientID);
    times[clock] = performance.now();
    this.inFlight++;
    const text = this.doc.getText("t");
    text.insert(text.length, ch);
  }

  close(): void {
    this.ws.close();
  }

  get isOpen(): boolean {
    return this.ws.readyState === WebSocket.OPEN;
  }

  private receive(data: Uint8Array): void {
    if (data.length === 1) return; // connection-level ping
    const dec = decoding.createDecoder(data);
    const roomLength = decoding.readVarUint(dec);
    dec.pos += roomLength; // the room name: one socket, one room, so skipped undecoded
    const type = decoding.readVarUint(dec);
    if (type === 8) {
      this.inFlight--;
      this.onAck?.();
      return;
    }
    if (type !== 0) return;
    const sub = decoding.readVarUint(dec);
    if (sub === 1) {
      this.synced.resolve();
      return;
    }
    if (sub === 0) {
      // The server's step 1: answer with what it lacks of ours.
      const sv = decoding.readVarUint8Array(dec);
      this.ws.send(
        frame(this.prefix, (e) => {
          encoding.writeVarUint(e, 0);
          encoding.writeVarUint(e, 1);
          encoding.writeVarUint8Array(e, Y.encodeStateAsUpdate(this.doc, sv));
        }),
      );
      return;
    }
    if (!this.observe) return;
    const update = decoding.readVarUint8Array(dec);
    const now = performance.now();
    const meta = Y.parseUpdateMeta(update);
    for (const [client, to] of meta.to) {
      if (client === this.doc.clientID) continue;
      const times = sendTimes.get(client);
      if (!times) continue;
      const from = Math.max(this.lastSeen.get(client) ?? 0, meta.from.get(client) ?? 0);
      for (let c = from; c < to; c++) {
        const t = times[c];
        if (t === undefined || t < this.stats.since) continue;
        this.stats.deliveries++;
        this.stats.latencies.push(now - t);
      }
      if (to > (this.lastSeen.get(client) ?? 0)) this.lastSeen.set(client, to);
    }
  }
}

export async function connectAll(clients: BenchClient[], batch = 200): Promise<void> {
  for (let i = 0; i < clients.length; i += batch) {
    await Promise.all(clients.slice(i, i + batch).map((c) => c.connect()));
  }
}

/** `perRoom` clients in each of `rooms` fresh rooms; the first `observers` of each decode what they receive. */
export function roomClients(
  url: string,
  rooms: number,
  perRoom: number,
  observers: number,
  stats: Stats,
): BenchClient[] {
  const clients: BenchClient[] = [];
  for (let r = 0; r < rooms; r++) {
    const room = crypto.randomUUID();
    for (let i = 0; i < perRoom; i++) clients.push(new BenchClient(url, room, stats, i < observers));
  }
  return clients;
}
