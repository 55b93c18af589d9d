/** A FIFO async mutex: run() calls execute one at a time, in call order. */
export class Mutex {
  private tail: Promise<void> = Promise.resolve();
  private holders = 0;

  /** True when nothing holds or waits for the lock. */
  get idle(): boolean {
    return this.holders === 0;
  }

  run<T>(fn: () => Promise<T>): Promise<T> {
    this.holders++;
    const result = this.tail.then(fn);
    this.tail = result.then(
      () => {
        this.holders--;
      },
      () => {
        this.holders--;
      },
    );
    return result;
  }
}
