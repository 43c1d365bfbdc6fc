import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { repeatInBackground } from "./repeat.ts";

describe("repeatInBackground", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("runs at once and then every interval, reports failures and keeps going, until stopped", async () => {
    let runs = 0;
    const errors: unknown[] = [];
    const stop = repeatInBackground(
      1000,
      async () => {
        runs++;
        if (runs === 2) throw new Error("boom");
      },
      (err) => errors.push(err),
    );
    await vi.advanceTimersByTimeAsync(0);
    expect(runs).toBe(1);
    await vi.advanceTimersByTimeAsync(2000);
    expect(runs).toBe(3);
    expect(errors).toHaveLength(1);
    stop();
    await vi.advanceTimersByTimeAsync(5000);
    expect(runs).toBe(3);
  });

  it("never starts a run while the previous one is still going", async () => {
    let started = 0;
    let release: () => void = () => {};
    const stop = repeatInBackground(
      100,
      () => {
        started++;
        return new Promise<void>((resolve) => {
          release = resolve;
        });
      },
      () => {},
    );
    await vi.advanceTimersByTimeAsync(350);
    expect(started).toBe(1);
    release();
    await vi.advanceTimersByTimeAsync(100);
    expect(started).toBe(2);
    stop();
  });
});
