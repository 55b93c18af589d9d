/**
 * An actor: private state, a bounded mailbox, and one loop that handles messages one at
 * a time, so the handler never races itself and needs no locks.
 *
 * Supervision is built in rather than layered on: when the handler (or init) throws, the
 * state is thrown away and rebuilt by `init` after an exponential backoff. The failing
 * message is reported and dropped, never retried, so one poison message cannot pin the
 * actor in a crash loop. More than `maxRestarts` failures inside `windowMs` means the
 * fault is not transient: the actor stops for good and reports why.
 */
import { AppError } from "../domain/errors.ts";
import { Mailbox, type MailboxOptions, type MailboxStats } from "./mailbox.ts";

export interface SupervisionOptions {
  /** Restarts allowed inside windowMs; one more failure stops the actor (default 5). */
  maxRestarts: number;
  /** Sliding window over which failures are counted (default 60 s). */
  windowMs: number;
  /** First backoff before a restart; doubles per failure in the window (default 10 ms). */
  backoffMs: number;
  /** Ceiling for the backoff (default 5 s). */
  maxBackoffMs: number;
}

export const DEFAULT_SUPERVISION: SupervisionOptions = {
  maxRestarts: 5,
  windowMs: 60_000,
  backoffMs: 10,
  maxBackoffMs: 5_000,
};

/** How the actor ended; `done` resolves with it and onEvent sees it. */
export type ActorExit =
  | { reason: "stopped"; mode: StopMode }
  | { reason: "crashed"; error: unknown; failures: number }
  /** The mailbox's "fail" overflow policy fired; `code` is its failReason. */
  | { reason: "mailbox_failed"; code: string };

/** Reported for logging and metrics; the actor never swallows an error silently. */
export type ActorEvent<M> =
  | { type: "handler_failed"; error: unknown; message: M; willRestart: boolean }
  | { type: "init_failed"; error: unknown; willRestart: boolean }
  | { type: "dispose_failed"; error: unknown }
  | { type: "restarted"; failuresInWindow: number }
  | { type: "exited"; exit: ActorExit };

/** "drain" handles what is queued first; "abandon" discards it (onDiscard sees each). */
export type StopMode = "drain" | "abandon";

export type ActorStatus = "running" | "restarting" | "stopping" | "exited";

export interface ActorOptions<M, S> {
  /** For reports and errors, e.g. "tenant:acme". */
  name: string;
  mailbox: MailboxOptions<M>;
  /** Builds fresh state: at start, and again after every failure. */
  init: () => S | Promise<S>;
  handle: (state: S, message: M) => void | Promise<void>;
  /** Releases a state being thrown away (restart or exit); flush here. */
  dispose?: (state: S) => void | Promise<void>;
  supervision?: Partial<SupervisionOptions>;
  onEvent?: (event: ActorEvent<M>) => void;
}

/** The reply half of a request message; see Actor.ask. */
export interface Reply<R> {
  resolve(value: R): void;
  reject(error: unknown): void;
}

export class Actor<M, S> {
  readonly name: string;
  /** Resolves once the loop has ended (never rejects). */
  readonly done: Promise<ActorExit>;
  private readonly mailbox: Mailbox<M>;
  private readonly sup: SupervisionOptions;
  private processing = false;
  private phase: ActorStatus = "running";
  private stopMode: StopMode | undefined;
  private failures: number[] = [];
  private wakeFromBackoff: (() => void) | undefined;

  constructor(private readonly opts: ActorOptions<M, S>) {
    this.name = opts.name;
    this.sup = { ...DEFAULT_SUPERVISION, ...opts.supervision };
    if (!Number.isInteger(this.sup.maxRestarts) || this.sup.maxRestarts < 0) {
      throw new RangeError(`actor ${opts.name}: supervision.maxRestarts must be an integer >= 0`);
    }
    if (!(this.sup.windowMs > 0) || !(this.sup.backoffMs >= 0) || !(this.sup.maxBackoffMs >= this.sup.backoffMs)) {
      throw new RangeError(`actor ${opts.name}: supervision needs windowMs > 0 and 0 <= backoffMs <= maxBackoffMs`);
    }
    // The "fail" policy means "close now with this reason": what is still queued is
    // abandoned and the actor exits, instead of draining a stream it already lost.
    this.mailbox = new Mailbox({
      ...opts.mailbox,
      onOverflow: (event) => {
        opts.mailbox.onOverflow?.(event);
        if (event.policy === "fail") {
          this.mailbox.close(event.reason, { discard: true });
          this.wakeFromBackoff?.();
        }
      },
    });
    this.done = this.run().then((exit) => {
      this.phase = "exited";
      this.opts.onEvent?.({ type: "exited", exit });
      return exit;
    });
  }

  get status(): ActorStatus {
    return this.phase;
  }

  /** Nothing queued, nothing running, not between a failure and its restart. */
  get idle(): boolean {
    return !this.processing && this.mailbox.length === 0 && this.phase !== "restarting";
  }

  mailboxStats(): MailboxStats {
    return this.mailbox.stats();
  }

  /** Queues a message; false when the mailbox refused it (full, or the actor is stopping). */
  post(message: M): boolean {
    return this.mailbox.offer(message);
  }

  /**
   * Request/response over the mailbox: `build` wraps the reply in a message of the
   * actor's own union. The handler must settle the reply; the owner's onDiscard and
   * onEvent("handler_failed") should reject replies of messages that will never be handled.
   */
  ask<R>(build: (reply: Reply<R>) => M): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      if (!this.post(build({ resolve, reject }))) {
        reject(new AppError("unavailable", `actor ${this.name} refused the message (mailbox full or stopping)`));
      }
    });
  }

  /**
   * Ends the actor. Idempotent: every call returns the same `done`. A later "abandon"
   * may cut short an earlier "drain"; the reverse is a no-op.
   */
  stop(opts: { mode?: StopMode } = {}): Promise<ActorExit> {
    const mode = opts.mode ?? "drain";
    if (this.phase === "exited") return this.done;
    if (this.stopMode === undefined || (mode === "abandon" && this.stopMode === "drain")) {
      this.stopMode = mode;
      if (this.phase !== "restarting") this.phase = "stopping";
      this.mailbox.close("stopped", { discard: mode === "abandon" });
      if (mode === "abandon") this.wakeFromBackoff?.();
    }
    return this.done;
  }

  private async run(): Promise<ActorExit> {
    let state: { value: S } | undefined;
    for (;;) {
      // No state to build when nothing is left to handle: a stop (or a failed mailbox)
      // during a backoff must not pay for one more init.
      if (state === undefined && !(this.mailbox.closed && this.mailbox.length === 0)) {
        try {
          state = { value: await this.opts.init() };
        } catch (error) {
          const exit = await this.onFailure(error, { type: "init" });
          if (exit) return exit;
          continue;
        }
        if (this.phase === "restarting") this.phase = this.stopMode ? "stopping" : "running";
      }
      const next = this.mailbox.poll() ?? (await this.mailbox.take());
      if (next.done || state === undefined) {
        // (state is undefined only when the box was closed and empty, so next is done.)
        await this.disposeState(state);
        if (next.done && next.reason !== "stopped") return { reason: "mailbox_failed", code: next.reason };
        return { reason: "stopped", mode: this.stopMode ?? "drain" };
      }
      this.processing = true;
      try {
        const r = this.opts.handle(state.value, next.value);
        // Only await real promises: a synchronous handler keeps the loop free of a
        // microtask hop per message.
        if (r instanceof Promise) await r;
      } catch (error) {
        this.processing = false;
        await this.disposeState(state);
        state = undefined;
        const exit = await this.onFailure(error, { type: "message", message: next.value });
        if (exit) return exit;
        continue;
      }
      this.processing = false;
    }
  }

  /** Counts a failure; an exit when supervision gives up, else undefined after the backoff. */
  private async onFailure(
    error: unknown,
    cause: { type: "init" } | { type: "message"; message: M },
  ): Promise<ActorExit | undefined> {
    const now = performance.now();
    this.failures = this.failures.filter((t) => now - t < this.sup.windowMs);
    this.failures.push(now);
    const failures = this.failures.length;
    const willRestart = failures <= this.sup.maxRestarts && this.stopMode !== "abandon";
    if (cause.type === "init") this.opts.onEvent?.({ type: "init_failed", error, willRestart });
    else this.opts.onEvent?.({ type: "handler_failed", error, message: cause.message, willRestart });
    if (!willRestart) {
      if (this.stopMode === "abandon") return { reason: "stopped", mode: "abandon" };
      this.mailbox.close("crashed", { discard: true });
      return { reason: "crashed", error, failures };
    }
    this.phase = "restarting";
    const delay = Math.min(this.sup.maxBackoffMs, this.sup.backoffMs * 2 ** (failures - 1));
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, delay);
      this.wakeFromBackoff = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    this.wakeFromBackoff = undefined;
    if (this.stopMode === "abandon") return { reason: "stopped", mode: "abandon" };
    if (!(this.mailbox.closed && this.mailbox.length === 0)) {
      this.opts.onEvent?.({ type: "restarted", failuresInWindow: failures });
    }
    return undefined;
  }

  private async disposeState(state: { value: S } | undefined): Promise<void> {
    if (state === undefined || !this.opts.dispose) return;
    try {
      await this.opts.dispose(state.value);
    } catch (error) {
      this.opts.onEvent?.({ type: "dispose_failed", error });
    }
  }
}
