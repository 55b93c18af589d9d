/** A worker for pool.test.ts: echoes, fails, hangs or dies on request. */
declare const self: Worker;

export type ToFixture =
  | { id: number; op: "echo" | "fail" | "hang" | "crash" | "exit"; value: string }
  | { type: "file"; name: string };
export type FromFixture = { id: number; ok: true; value: string } | { id: number; ok: false; message: string };

// What the last broadcast said, to show it arrives before the next job.
let told = "";

self.onmessage = (e: MessageEvent<ToFixture>) => {
  const msg = e.data;
  if ("type" in msg) {
    told = msg.name;
    return;
  }
  switch (msg.op) {
    case "echo":
      self.postMessage({ id: msg.id, ok: true, value: `${msg.value}${told ? `/${told}` : ""}` } satisfies FromFixture);
      return;
    case "fail":
      self.postMessage({ id: msg.id, ok: false, message: `refused ${msg.value}` } satisfies FromFixture);
      return;
    case "hang":
      for (;;) {}
    case "crash":
      throw new Error(`died on ${msg.value}`);
    case "exit":
      process.exit(0);
  }
};
