/**
 * A token bucket: `ratePerSecond` tokens a second, holding at most `capacity`. With the
 * default capacity of 1 it spaces calls evenly, so no one-second window ever sees more
 * than `ratePerSecond` of them (a larger bucket would allow bursts above the SEC's
 * 10 requests per second). Waiters are served in arrival order.
 */
export class TokenBucket {
  private tokens: number;
  private last: number;
  private tail: Promise<void> = Promise.resolve();

  constructor(
    private readonly ratePerSecond: number,
    private readonly capacity = 1,
    private readonly now: () => number = () => performance.now(),
  ) {
    if (!(ratePerSecond > 0)) throw new Error("TokenBucket: ratePerSecond must be > 0");
    if (!(capacity >= 1)) throw new Error("TokenBucket: capacity must be >= 1");
    this.tokens = capacity;
    this.last = this.now();
  }

  /** Resolves when a token is taken. */
  take(): Promise<void> {
    const turn = this.tail.then(() => this.wait());
    this.tail = turn.catch(() => undefined);
    return turn;
  }

  private async wait(): Promise<void> {
    for (;;) {
      const t = this.now();
      this.tokens = Math.min(this.capacity, this.tokens + ((t - this.last) / 1000) * this.ratePerSecond);
      this.last = t;
      if (this.tokens >= 1) {
        this.tokens -= 1;
        return;
      }
      await Bun.sleep(Math.ceil(((1 - this.tokens) / this.ratePerSecond) * 1000));
    }
  }
}
