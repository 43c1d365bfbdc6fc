import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scrubSecrets } from "../../src/logger.ts";
import { bearer, startTestApp, type TestApp } from "../helpers/app.ts";

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

describe("logs", () => {
  it("never contain the Authorization header or a key, even one sent in a URL", async () => {
    const a = await t.createAccount();
    await t.app.inject({ url: "/api/v1/me", headers: bearer(a.key) });
    await t.app.inject({
      url: `/api/v1/me?api_key=${a.key}`,
      headers: { authorization: `Bearer ${a.key}x` },
    });
    await t.app.inject({ url: `/files/x?exp=1&sig=abcdef0123456789` });
    const all = t.logs.join("");
    expect(t.logs.length).toBeGreaterThan(4);
    expect(all).toContain("/api/v1/me");
    expect(all).not.toContain(a.key);
    expect(all).not.toContain(a.key.slice(4));
    expect(all).not.toContain("abcdef0123456789");
    expect(all.toLowerCase()).not.toContain("bearer");
  });

  it("scrubSecrets removes keys and URL signatures", () => {
    const key = `crk_${"Ab1".repeat(13)}x`;
    expect(scrubSecrets(`/x?k=${key}&sig=zz&X-Amz-Signature=yy`)).toBe(
      "/x?k=crk_[REDACTED]&sig=[REDACTED]&X-Amz-Signature=[REDACTED]",
    );
  });
});
