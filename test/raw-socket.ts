/**
 * A raw HTTP/1.1 client socket for requests `fetch` cannot make: a body trickled or cut off
 * by hand, or one that keeps coming after the server has answered and hung up.
 *
 * It is Bun's native socket (`Bun.connect`), not `node:net`: Bun's `node:net` socket drops a
 * response it has already received when its next write fails with EPIPE because the server
 * closed, which is how every "refused while still sending" test ends. curl, Python's socket
 * and `Bun.connect` all keep the response.
 */

export interface RawSocket {
  /** Everything the server has sent so far (latin1). */
  response(): string;
  /** The server closed the connection (or it failed). */
  closed(): boolean;
  /**
   * Sends all of `data`, waiting for the socket to drain. Stops early, as HTTP clients do,
   * once the server has answered or closed; true when every byte was handed to the socket.
   */
  write(data: Buffer | string): Promise<boolean>;
  /** Resolves once the server's answer is complete (its Content-Length body is in) or it closed. */
  answer(): Promise<string>;
  destroy(): void;
}

/** A complete response: its head and as many body bytes as its Content-Length says. */
function complete(response: string): boolean {
  const split = response.indexOf("\r\n\r\n");
  if (split < 0) return false;
  const length = Number(/\r\ncontent-length: *(\d+)/i.exec(response.slice(0, split))?.[1] ?? Number.NaN);
  return Number.isFinite(length) && response.length - split - 4 >= length;
}

export async function rawSocket(port: number, hostname = "127.0.0.1"): Promise<RawSocket> {
  let response = "";
  let closed = false;
  const waiters = new Set<() => void>();
  const wake = () => {
    for (const w of waiters) w();
    waiters.clear();
  };
  const next = () => new Promise<void>((resolve) => waiters.add(resolve));
  const over = () => closed || response !== "";
  const sock = await Bun.connect({
    hostname,
    port,
    socket: {
      data(_s, d) {
        response += Buffer.from(d).toString("latin1");
        wake();
      },
      drain: wake,
      end() {
        closed = true;
        wake();
      },
      close() {
        closed = true;
        wake();
      },
      error() {
        closed = true;
        wake();
      },
    },
  });
  return {
    response: () => response,
    closed: () => closed,
    async write(data) {
      let rest = typeof data === "string" ? Buffer.from(data) : data;
      while (rest.length > 0) {
        if (over()) return false;
        const n = sock.write(rest);
        if (n < 0) return false;
        rest = rest.subarray(n);
        if (rest.length > 0) await next();
      }
      return true;
    },
    async answer() {
      while (!closed && !complete(response)) await next();
      return response;
    },
    destroy: () => sock.terminate(),
  };
}
