import { describe, expect, it } from "vitest";
import type { AuthenticatedKey } from "../../db/repositories/api-keys.ts";
import { createAuthBatcher } from "./auth-batcher.ts";

const key = (usedBefore: number | null, usedAfter: number | null) =>
  ({ keyId: "key_1", userId: "usr_1", usedBefore, usedAfter }) as unknown as AuthenticatedKey;

describe("createAuthBatcher", () => {
  it("coalesces concurrent checks of one key into batches and grants in arrival order", async () => {
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
    expect(calls).toEqual([1, 9]);
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
