import { Readable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../helpers/app.ts";

let t: TestApp;
let url: string;
beforeAll(async () => {
  t = await startTestApp({ env: { ANON_DAILY_LIMIT: "2", FILES_DAILY_LIMIT: "5" } });
  await t.runtime.store.put("uploads/upl_quota/clip.txt", Readable.from([Buffer.from("hello")]), {
    contentType: "text/plain",
  });
  const signed = await t.runtime.store.signedUrl("uploads/upl_quota/clip.txt", { expiresInSec: 600 });
  url = signed.url.slice(t.config.publicUrl.length);
});
afterAll(() => t.close());

describe("signed file URLs and the anonymous quota", () => {
  it("downloads with a valid signature do not spend the IP's anonymous quota", async () => {
    for (let i = 0; i < 4; i++) {
      const res = await t.app.inject({ url, headers: { range: `bytes=${i}-${i}` } });
      expect(res.statusCode).toBe(206);
      expect(res.headers["x-ratelimit-limit"]).toBe("5");
    }
    const health = await t.app.inject({ url: "/api/v1/me" });
    expect(health.statusCode).toBe(401);
    expect(health.headers["x-ratelimit-remaining"]).toBe("1");
  });

  it("are still limited per IP by their own, larger daily counter", async () => {
    expect((await t.app.inject({ url })).statusCode).toBe(200);
    const over = await t.app.inject({ url });
    expect(over.statusCode).toBe(429);
    expect(over.json().error).toMatchObject({
      code: "rate_limited",
      message: expect.stringMatching(/file-download/),
    });
  });
});
