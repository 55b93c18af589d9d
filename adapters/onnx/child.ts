/**
 * One ONNX model process: a Bun child running a host script with an IPC channel. Shared by the
 * fast-path scorer (scorer.ts, host.ts) and the embedder (../embeddings/model-process.ts,
 * onnx-host.ts), which run onnxruntime-node in processes rather than threads (host.ts says why).
 *
 * - Messages are structured clones ("advanced" serialization), so typed arrays — feeds, scores,
 *   vectors — cross as typed arrays, not JSON.
 * - `onExit` fires once, however the process ends: "was stopped" after stop(), else how it
 *   ended ("exited with code 1", "was killed by SIGKILL"). A subclass that must know how it
 *   ended even after a stop overrides `ended`; one that must see every message before its
 *   owner does overrides `received`.
 */
import type { Subprocess } from "bun";

export class OnnxChild<In, Out> {
  onMessage: (msg: Out) => void = () => {};
  onExit: (reason: string) => void = () => {};
  readonly proc: Subprocess;
  private stopping = false;

  constructor(script: URL) {
    this.proc = Bun.spawn([process.execPath, script.pathname], {
      ipc: (msg: Out) => this.received(msg),
      serialization: "advanced",
      stdin: "ignore",
      stdout: "ignore",
      // The child's own errors (a native crash report) go where the service's own stderr goes.
      stderr: "inherit",
      env: { ...process.env, ONNXRUNTIME_NODE_INSTALL: "skip" },
    });
    void this.proc.exited.then((code) => {
      const how = this.proc.signalCode ? `was killed by ${this.proc.signalCode}` : `exited with code ${code}`;
      this.ended(how);
      this.onExit(this.stopping ? "was stopped" : how);
    });
  }

  send(msg: In): void {
    this.proc.send(msg);
  }

  stop(): void {
    this.stopping = true;
    this.proc.kill("SIGTERM");
  }

  /** A message from the child; by default straight to `onMessage`. */
  protected received(msg: Out): void {
    this.onMessage(msg);
  }

  /** How the process ended, stopped or not; called just before `onExit`. */
  protected ended(_how: string): void {}
}
