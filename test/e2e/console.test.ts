// The web console in a real browser: Debian's Chromium driven by playwright-core against the
// real server process (`node src/main/api.ts` on a fresh data directory). Walks the newcomer's
// path from the first-start setup link to keys, settings, uploads and the phone capture page,
// then the studio (studio.ts: editor, preview, renders, generation, project settings; editing.ts:
// snapping and gaps on 20 and 23.976 fps footage; studio-tools.ts: the Text and Captions tools,
// tracks, composition settings and the editor's layout), saves a
// screenshot of every page under tmp/e2e/ and runs an axe accessibility scan on each.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { editingTests } from "./editing.ts";
import { axe, type Harness, run, shot, startHarness, stopHarness } from "./harness.ts";
import { studioTests } from "./studio.ts";
import { studioToolsTests } from "./studio-tools.ts";

const PASSWORD = "a long enough password";
let dir: string;
let h: Harness;
let base: string;
let setupUrl: string;
let browser: Harness["browser"];
let video: string;
let photo: string;
let unsupported: string;

/** The few media element members the player check uses (the test code has no DOM types). */
interface MediaLike {
  readyState: number;
  currentTime: number;
  addEventListener(type: string, fn: () => void, opts: { once: boolean }): void;
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "cutroom-e2e-"));
  video = path.join(dir, "clip.mp4");
  photo = path.join(dir, "phone.jpg");
  unsupported = path.join(dir, "notes.bin");
  await Promise.all([
    run("ffmpeg", [
      "-v",
      "error",
      "-f",
      "lavfi",
      "-i",
      "testsrc=size=320x180:rate=25:duration=3",
      "-f",
      "lavfi",
      "-i",
      "sine=frequency=440:duration=3",
      "-shortest",
      "-c:v",
      "libx264",
      "-pix_fmt",
      "yuv420p",
      "-c:a",
      "aac",
      "-movflags",
      "+faststart",
      video,
    ]),
    run("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc=size=640x480", "-frames:v", "1", photo]),
    run("sh", ["-c", `head -c 4096 /dev/urandom > ${unsupported}`]),
  ]);
  h = await startHarness(path.join(dir, "data"));
  ({ base, setupUrl, browser } = h);
}, 300_000);

afterAll(async () => {
  await stopHarness(h);
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("web console", () => {
  it("takes a newcomer from the setup link to keys, settings, uploads and phone capture", async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    const page = await context.newPage();

    // Setup link → password → signed in.
    await page.goto(setupUrl);
    await expect
      .poll(() => page.getByRole("heading", { name: "Set your password" }).isVisible(), { timeout: 30_000 })
      .toBe(true);
    await axe(page, "setup");
    await shot(page, "01-setup");
    await page.getByLabel("New password").fill(PASSWORD);
    await page.getByLabel("Repeat the password").fill(PASSWORD);
    await page.getByRole("button", { name: "Set password and sign in" }).click();
    await page.getByRole("heading", { name: "Projects" }).waitFor();

    // Sign out, wrong password, sign in.
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByRole("heading", { name: "Sign in to Cutroom" }).waitFor();
    await page.getByLabel("Email").fill("owner@localhost");
    await page.getByLabel("Password").fill("not the password");
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect
      .poll(() => page.getByRole("alert").textContent(), { timeout: 10_000 })
      .toBe("Wrong email or password");
    await axe(page, "sign-in");
    await shot(page, "02-sign-in-wrong-password");
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: "Projects" }).waitFor();

    // A read-only key: reads work, writes get 403, revoked it gets 401.
    await page.getByRole("link", { name: "API keys" }).click();
    await page.getByRole("heading", { name: "API keys" }).waitFor();
    await page.getByLabel("Key name").fill("e2e read");
    await page.getByLabel("Read only").check();
    await page.getByRole("button", { name: "Create key" }).click();
    const secret = (await page.getByTestId("secret").textContent()) ?? "";
    expect(secret).toMatch(/^crk_/);
    await page.getByRole("button", { name: "Copy" }).click();
    await axe(page, "keys");
    await shot(page, "03-keys-created");
    const call = (method: string) =>
      page.evaluate(
        async ([m, key]) =>
          (
            await fetch("/api/v1/projects", {
              method: m,
              headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
              body: m === "POST" ? JSON.stringify({ name: "from a read key" }) : undefined,
            })
          ).status,
        [method, secret] as const,
      );
    expect(await call("GET")).toBe(200);
    expect(await call("POST")).toBe(403);
    await page.getByRole("button", { name: "Revoke e2e read" }).click();
    await page.getByRole("button", { name: "Yes, revoke" }).click();
    await page.getByText("Key revoked.").waitFor();
    expect(await call("GET")).toBe(401);

    // Settings: usage, sessions, and the image-model skill (the fast model).
    await page.getByRole("link", { name: "Settings" }).click();
    await page.getByRole("heading", { name: "Usage" }).waitFor();
    const select = page.getByLabel("Image model");
    await expect.poll(() => select.textContent()).toContain("FLUX.1 [schnell]");
    await select.selectOption("fal-ai/flux/schnell");
    await page.getByText("Image model saved.").waitFor();
    const me = await page.evaluate(
      async () =>
        (await (await fetch("/api/v1/me")).json()) as { user: { settings: { imageModel: string } } },
    );
    expect(me.user.settings.imageModel).toBe("fal-ai/flux/schnell");
    await axe(page, "settings");
    await shot(page, "04-settings");

    // A project, a real upload with progress, its poster, the seeking player, a 415.
    await page.getByRole("link", { name: "Projects" }).click();
    await page.getByLabel("Project name").fill("E2E project");
    await page.getByRole("button", { name: "Create project" }).click();
    await page.getByRole("heading", { name: "E2E project" }).waitFor();
    await page.getByLabel("Choose files").setInputFiles([video, unsupported]);
    await page.getByRole("progressbar", { name: "Upload of clip.mp4" }).waitFor();
    await page.locator(".upload.done", { hasText: "clip.mp4" }).waitFor();
    expect(await page.getByRole("progressbar", { name: "Upload of clip.mp4" }).getAttribute("value")).toBe(
      "100",
    );
    await expect
      .poll(() => page.locator(".upload.failed", { hasText: "notes.bin" }).textContent())
      .toMatch(/not a supported type/);
    const poster = page.getByRole("img", { name: "Poster of clip.mp4" });
    await poster.waitFor();
    await expect
      .poll(() =>
        poster.evaluate(
          (img) =>
            (img as unknown as { complete: boolean; naturalWidth: number }).complete &&
            (img as unknown as { naturalWidth: number }).naturalWidth,
        ),
      )
      .toBeGreaterThan(0);
    await page.getByRole("button", { name: "Play clip.mp4" }).click();
    const seeked = await page.locator("video").evaluate(
      (el) =>
        new Promise<number>((resolve) => {
          const v = el as unknown as MediaLike;
          const go = () => {
            v.addEventListener("seeked", () => resolve(v.currentTime), { once: true });
            v.currentTime = 2;
          };
          if (v.readyState >= 1) go();
          else v.addEventListener("loadedmetadata", go, { once: true });
        }),
    );
    expect(seeked).toBeCloseTo(2, 0);
    await axe(page, "project");
    await shot(page, "05-project-uploaded");

    // Phone capture: QR and link, the capture page on a phone-sized screen, the upload appears.
    await page.getByRole("button", { name: "Phone capture" }).click();
    await page.getByRole("img", { name: "QR code of the phone capture link" }).waitFor();
    const captureUrl = (await page.getByTestId("capture-url").textContent()) ?? "";
    expect(captureUrl).toMatch(/\/capture\/crc_\w+$/);
    await shot(page, "06-project-phone-capture");
    const phone = await browser.newContext({
      viewport: { width: 375, height: 740 },
      isMobile: true,
      hasTouch: true,
      deviceScaleFactor: 2,
    });
    const mobile = await phone.newPage();
    await mobile.goto(`${base}${new URL(captureUrl).pathname}`);
    await mobile.getByRole("heading", { name: "Send to Cutroom" }).waitFor();
    await axe(mobile, "capture");
    await mobile.getByLabel("Choose files").setInputFiles(photo);
    await mobile.locator(".upload.done", { hasText: "phone.jpg" }).waitFor();
    await shot(mobile, "07-capture-phone");
    await page.getByRole("img", { name: "phone.jpg" }).waitFor({ timeout: 15_000 });
    await shot(page, "08-project-after-phone");

    // The other pages at 375 px, for review.
    const small = await phone.newPage();
    for (const [url, name] of [
      ["/console/projects", "09-phone-projects"],
      ["/console/keys", "10-phone-keys"],
    ] as const) {
      await small.context().addCookies(await context.cookies());
      await small.goto(`${base}${url}`);
      await small.getByRole("main").waitFor();
      await small.waitForLoadState("networkidle");
      await shot(small, name);
    }
    await axe(page, "project-after-phone");
    await phone.close();
    await context.close();
  }, 240_000);

  const harness = {
    browser: () => browser,
    base: () => base,
    email: "owner@localhost",
    password: PASSWORD,
    video: () => video,
    photo: () => photo,
    shot,
    axe,
  };
  studioTests(harness);
  editingTests(harness);
  studioToolsTests(harness);
});
