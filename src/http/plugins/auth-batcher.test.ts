import { describe, expect, it } from "vitest";
import type { AuthenticatedKey } from "../../db/repositories/api-keys.ts";
import { createAuthBatcher } from "./auth-batcher.ts";

const key = (usedBefore: number | null, usedAfter: number | null) =>
  ({ key: { id: "key_1" }, userId: "usr_1", usedBefore, usedAfter }) as unknown as AuthenticatedKey;

describe("createAuthBatcher", () => {
  it("coalesces the checks of one key that arrive together into one statement, granting in arrival order", async () => {
    const calls: number[] = [];
    let counter = 995;
    const check = createAuthBatcher(async (_hash, n) => {
      calls.push(n);
      await new Promise((r) => setTimeout(r, 5));
      const before = counter;
      counter = Math.max(counter, Math.min(counter + n, 1000));
      return key(before, counter);
    });
    const results = await Promise.all(Array.from({ length: 10 }, () => check("h")));
    expect(calls).toEqual([10]);
    expect(results.map((r) => r.granted)).toEqual([
      true,
      true,
      true,
      true,
      true,
      false,
      false,
      false,
      false,
      false,
    ]);
    expect(results.slice(0, 5).map((r) => r.used)).toEqual([996, 997, 998, 999, 1000]);
    expect(counter).toBe(1000);
  });

  it("keeps at most `depth` statements of one key in flight; later arrivals wait and share the next", async () => {
    const calls: number[] = [];
    let inFlight = 0;
    let maxInFlight = 0;
    let counter = 0;
    const check = createAuthBatcher(async (_hash, n) => {
      calls.push(n);
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      await new Promise((r) => setTimeout(r, 20));
      inFlight--;
      const before = counter;
      counter += n;
      return key(before, counter);
    }, 2);
    const tick = () => new Promise((r) => setImmediate(r));
    const pending = [check("h")];
    await tick();
    pending.push(check("h"));
    await tick();
    pending.push(check("h"), check("h"), check("h"));
    await tick();
    pending.push(check("h"), check("h"));
    const results = await Promise.all(pending);
    expect(calls).toEqual([1, 1, 5]);
    expect(maxInFlight).toBe(2);
    expect(results.every((r) => r.granted)).toBe(true);
    expect(results.map((r) => r.used).sort((a, b) => (a ?? 0) - (b ?? 0))).toEqual([1, 2, 3, 4, 5, 6, 7]);
  });

  it("keeps keys apart, reports unknown keys and unlimited plans, and propagates errors", async () => {
    const check = createAuthBatcher(async (hash) => {
      if (hash === "boom") throw new Error("db down");
      return hash === "admin" ? key(null, null) : null;
    });
    expect(await check("nope")).toEqual({ found: null, granted: false, used: null });
    expect(await check("admin")).toMatchObject({ granted: true, used: null });
    await expect(check("boom")).rejects.toThrow("db down");
  });
});
