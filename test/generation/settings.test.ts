import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, startTestApp, type TestApp } from "../helpers/app.ts";

/** `PATCH /api/v1/me/settings` with `payload` as the key's owner. */
const patchSettings = (t: TestApp, key: string, payload: Record<string, unknown>) =>
  t.app.inject({ method: "PATCH", url: "/api/v1/me/settings", headers: bearer(key), payload });

let offline: TestApp;
let fal: TestApp;
beforeAll(async () => {
  offline = await startTestApp();
  // A key makes fal the active provider (nothing is called by these tests).
  fal = await startTestApp({ env: { FAL_KEY: "test-key-settings" }, testDb: offline.testDb });
});
afterAll(async () => {
  await fal.close();
  await offline.close();
});

describe("image-model preference", () => {
  it("GET /me shows the default until PATCH /me/settings changes it; null returns to the default", async () => {
    const a = await offline.createAccount();
    const me = () => offline.app.inject({ url: "/api/v1/me", headers: bearer(a.key) });
    expect((await me()).json().user.settings).toEqual({ imageModel: "fal-ai/flux-pro/v1.1" });

    const patched = await patchSettings(offline, a.key, { imageModel: "fal-ai/flux/schnell" });
    expect(patched.statusCode).toBe(200);
    expect(patched.json().user.settings).toEqual({ imageModel: "fal-ai/flux/schnell" });
    expect((await me()).json().user.settings).toEqual({ imageModel: "fal-ai/flux/schnell" });

    const reset = await patchSettings(offline, a.key, { imageModel: null });
    expect(reset.json().user.settings).toEqual({ imageModel: "fal-ai/flux-pro/v1.1" });
  });

  it("refuses an unknown model with 400 naming the field and the allowed ids, and a read-only key with 403", async () => {
    const a = await offline.createAccount();
    const bad = await patchSettings(offline, a.key, { imageModel: "openai/dall-e-3" });
    expect(bad.statusCode).toBe(400);
    const detail = bad.json().error.details[0];
    expect(detail.path).toBe("/imageModel");
    expect(detail.message).toContain("fal-ai/flux-pro/v1.1, fal-ai/flux/schnell");

    const extra = await patchSettings(offline, a.key, { imageModel: "fal-ai/flux/schnell", theme: "dark" });
    expect(extra.statusCode).toBe(400);
    expect(extra.json().error.details[0].path).toBe("/theme");

    const reader = await offline.addKey(a.userId, ["read"]);
    const forbidden = await patchSettings(offline, reader.key, { imageModel: "fal-ai/flux/schnell" });
    expect(forbidden.statusCode).toBe(403);
  });
});

describe("GET /api/v1/generate/models", () => {
  it("offline: the fal models are listed but unavailable and not default, the placeholders available and default", async () => {
    const a = await offline.createAccount();
    const res = await offline.app.inject({ url: "/api/v1/generate/models", headers: bearer(a.key) });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.image).toEqual([
      {
        id: "fal-ai/flux-pro/v1.1",
        name: "FLUX1.1 [pro]",
        tier: "high",
        provider: "fal",
        available: false,
        default: false,
      },
      {
        id: "fal-ai/flux/schnell",
        name: "FLUX.1 [schnell]",
        tier: "fast",
        provider: "fal",
        available: false,
        default: false,
      },
      expect.objectContaining({
        id: "offline/placeholder-image",
        provider: "offline",
        available: true,
        default: true,
      }),
    ]);
    expect(
      body.video.map((m: { id: string; available: boolean; default: boolean }) => [
        m.id,
        m.available,
        m.default,
      ]),
    ).toEqual([
      ["fal-ai/veo3/fast/image-to-video", false, false],
      ["offline/ken-burns-video", true, true],
    ]);
  });

  it("with FAL_KEY: the fal models are available and `default` follows the preference", async () => {
    const a = await fal.createAccount();
    await patchSettings(fal, a.key, { imageModel: "fal-ai/flux/schnell" });
    const body = (await fal.app.inject({ url: "/api/v1/generate/models", headers: bearer(a.key) })).json();
    const flags = body.image.map((m: { id: string; available: boolean; default: boolean }) => [
      m.id,
      m.available,
      m.default,
    ]);
    expect(flags).toEqual([
      ["fal-ai/flux-pro/v1.1", true, false],
      ["fal-ai/flux/schnell", true, true],
      ["offline/placeholder-image", false, false],
    ]);
    expect(JSON.stringify(body)).not.toContain("test-key-settings");
  });
});
