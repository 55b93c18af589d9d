import { expect, test } from "bun:test";
import { TokenBucket } from "./token-bucket.ts";

/** A clock that moves only when the test says so: grants depend on it, not on load. */
function fakeClock() {
  let t = 0;
  return {
    now: () => t,
    advance: (ms: number) => {
      t += ms;
    },
  };
}

test("at 10 per second with capacity 1, the second call waits for 100 ms of clock time", async () => {
  const clock = fakeClock();
  const bucket = new TokenBucket(10, 1, clock.now);
  await bucket.take();
  let granted = false;
  const second = bucket.take().then(() => {
    granted = true;
  });
  clock.advance(99);
  await Bun.sleep(250);
  expect(granted).toBe(false); // 99 ms of clock time is not enough, however long we wait
  clock.advance(1);
  await second;
  expect(granted).toBe(true);
});

test("no one-second window of clock time ever holds more than 10 grants", async () => {
  const clock = fakeClock();
  const bucket = new TokenBucket(10, 1, clock.now);
  const grants: number[] = [];
  for (let i = 0; i < 25; i++) {
    const p = bucket.take().then(() => grants.push(clock.now()));
    // Advance in small steps until this take is granted.
    while (grants.length <= i) {
      await Bun.sleep(1);
      if (grants.length <= i) clock.advance(10);
    }
    await p;
  }
  for (let i = 10; i < grants.length; i++) {
    expect((grants[i] as number) - (grants[i - 10] as number)).toBeGreaterThanOrEqual(1000);
  }
});
