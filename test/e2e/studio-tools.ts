// The studio's editing tools in a real browser, on footage made by ffmpeg at 23.976 fps (4.171 s)
// and 20 fps (2.35 s): a video dropped on the audio track of a new composition, a title from the
// Text tool edited after, captions from an uploaded SRT, Add track with a picture-in-picture clip, the
// new-track drop zone, the 9:16 preset, the layout at 1366×768, 1920×1080 and 390×844
// (screenshots under tmp/e2e/), names instead of ids, and axe scans. Registered from
// console.test.ts: it runs on that file's server and browser.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Locator, Page } from "playwright-core";
import { expect, it } from "vitest";
import { signInToNewProject, testClip } from "./harness.ts";
import { call, type StudioHarness } from "./studio.ts";

interface ClipJson {
  id: string;
  start: number;
  duration: number;
  name?: string;
  asset: {
    type: string;
    uploadId?: string;
    text?: string;
    mode?: string;
    source?: { uploadId?: string };
    style?: { size: number; valign?: string; align?: string; weight?: number };
  };
  transform?: Record<string, number>;
}
interface CompositionJson {
  id: string;
  name: string;
  version: number;
  canvas: { width: number; height: number; fps: number };
  tracks: Array<{ kind: string; name?: string; clips: ClipJson[] }>;
}

async function composition(page: Page, id: string): Promise<CompositionJson> {
  return (await call(page, "GET", `/api/compositions/${id}`)).json as unknown as CompositionJson;
}

/** Waits until the editor shows `version`. */
async function atVersion(page: Page, version: number): Promise<void> {
  await page.getByTestId("version").getByText(`version ${version}`, { exact: true }).waitFor();
}

/** Asserts that each locator's box lies inside the viewport (nothing to scroll to see it). */
async function allInView(page: Page, parts: Record<string, Locator>): Promise<void> {
  const view = page.viewportSize() ?? { width: 0, height: 0 };
  const outside: string[] = [];
  for (const [name, locator] of Object.entries(parts)) {
    const b = await locator.boundingBox();
    if (
      !b ||
      b.width < 1 ||
      b.height < 1 ||
      b.x < -0.5 ||
      b.y < -0.5 ||
      b.x + b.width > view.width + 0.5 ||
      b.y + b.height > view.height + 0.5
    )
      outside.push(`${name} ${JSON.stringify(b)} in ${view.width}×${view.height}`);
  }
  expect(outside).toEqual([]);
}

/** The footage and subtitles the walk-through uploads, made in `dir`. */
async function fixtures(dir: string) {
  const video = path.join(dir, "walk.mp4");
  const bike = path.join(dir, "bike.mp4");
  const srt = path.join(dir, "walk.srt");
  await Promise.all([
    testClip(bike, { pattern: "testsrc", rate: "20", seconds: 2.35 }),
    testClip(video, { pattern: "testsrc2", rate: "24000/1001", seconds: 4.171, toneHz: 330 }),
    writeFile(
      srt,
      "1\n00:00:00,200 --> 00:00:01,500\nHello from the walk\n\n2\n00:00:01,600 --> 00:00:03,900\nThe second line\n",
    ),
  ]);
  return { video, bike, srt };
}

/** Registers the tools walk-through (one `it`) against the harness. */
export function studioToolsTests(h: StudioHarness): void {
  it("adds a title, captions, a track with a picture in picture and a 9:16 canvas without typing a number", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "cutroom-e2e-tools-"));
    const context = await h.browser().newContext({ viewport: { width: 1366, height: 768 } });
    try {
      const { video, bike, srt } = await fixtures(dir);
      const page = await context.newPage();
      // A project with the 23.976 fps footage, and a new, empty composition (video + audio track).
      const projectId = await signInToNewProject(page, h, "Walk");
      await page.getByLabel("Choose files").setInputFiles([video, bike]);
      // Posters are made after the upload, by the in-process worker: minutes on a loaded machine.
      await page.getByRole("img", { name: "Poster of walk.mp4" }).waitFor({ timeout: 180_000 });
      await page.getByRole("img", { name: "Poster of bike.mp4" }).waitFor({ timeout: 180_000 });
      const created = await call(page, "POST", "/api/compositions", {
        name: "Walk cut",
        projectId,
        canvas: { width: 320, height: 180, fps: 23.976, background: "#000000" },
        tracks: [
          { kind: "video", clips: [] },
          { kind: "audio", clips: [] },
        ],
      });
      expect(created.status).toBe(201);
      const id = created.json.id;
      await page.goto(`${h.base()}/console/projects/${projectId}/compositions/${id}`);
      await page.getByRole("heading", { name: "Walk cut" }).waitFor();

      // The video dropped on the audio track goes on the video track, and the status says why.
      const binItem = page.locator(".bin li", { hasText: "walk.mp4" });
      await binItem.dragTo(page.getByRole("group", { name: "Track 2: audio" }), {
        targetPosition: { x: 1, y: 20 },
      });
      await atVersion(page, 2);
      await page.getByText(/an audio track holds sound only, so it went on track 1/).waitFor();
      let c = await composition(page, id);
      expect(c.tracks.map((t) => t.clips.length)).toEqual([1, 0]);
      expect(c.tracks[0]?.clips[0]).toMatchObject({ start: 0, asset: { type: "video" } });
      expect(c.tracks[0]?.clips[0]?.duration).toBeCloseTo(4.171, 1);

      // Preview, timeline and inspector all in view at 1366×768, without scrolling.
      const preview = page.getByRole("region", { name: "Preview" });
      const frame = page.getByRole("img", { name: /^Frame at/ });
      await frame.waitFor();
      const layout = () => ({
        preview,
        frame,
        inspector: page.getByRole("region", { name: "Composition", exact: true }),
        toolbar: page.getByRole("toolbar", { name: "Timeline tools" }),
        // Ruler and lanes are as long as the timeline: the box they scroll in is what shows.
        "ruler and tracks": page.locator(".timeline-box"),
        "first track name": page.locator(".track-name").first(),
      });
      await h.shot(page, "29-tools-drop-1366x768");
      await allInView(page, layout());
      // The proxies note is behind the info button.
      const about = page.getByText("Rendered by the real renderer", { exact: false });
      expect(await about.isVisible()).toBe(false);
      await page.getByRole("button", { name: "About the preview" }).click();
      expect(await about.isVisible()).toBe(true);
      await page.getByRole("button", { name: "About the preview" }).click();

      // Text tool: a title at the playhead (1 s, on the frame grid), on a new "Text" track on top.
      await page.getByRole("heading", { name: "Walk cut" }).focus();
      await page.keyboard.press("l");
      await page.getByRole("tab", { name: "Text" }).click();
      const addText = page.getByRole("form", { name: "Add text" });
      await addText.getByLabel("Text", { exact: true }).fill("Morning walk");
      await addText.getByRole("button", { name: "Add title at playhead" }).click();
      await atVersion(page, 3);
      c = await composition(page, id);
      const textTrack = c.tracks[2];
      expect(textTrack).toMatchObject({ kind: "video", name: "Text" });
      const title = textTrack?.clips[0];
      expect(title?.asset).toMatchObject({
        type: "text",
        text: "Morning walk",
        style: { family: "DejaVu Sans", weight: 700, align: "center", valign: "center" },
      });
      expect(title?.start).toBeCloseTo(24 / (24000 / 1001), 5);
      expect(title?.duration).toBe(3);
      await page.getByRole("group", { name: "Track 3: Text" }).waitFor();
      expect(await page.locator(".track-name", { hasText: "Text" }).locator("small").textContent()).toBe(
        "text",
      );

      // … and edited after: selected on the timeline, moved to the top, as a lower-weight text.
      await page.getByRole("button", { name: /^Clip Morning walk/ }).click();
      const textStyle = page.getByRole("form", { name: "Text style" });
      await textStyle.getByLabel("Position").selectOption("Top centre");
      await textStyle.getByLabel("Bold").uncheck();
      await textStyle.getByRole("button", { name: "Apply" }).click();
      await atVersion(page, 4);
      c = await composition(page, id);
      expect(c.tracks[2]?.clips[0]?.asset.style).toMatchObject({
        valign: "top",
        align: "center",
        weight: 400,
      });
      await h.axe(page, "editor-text-tool");
      await h.shot(page, "30-tools-text-1366x768");

      // Captions tool: an uploaded SRT, karaoke, on a "Captions" track reading "captions".
      await page.keyboard.press("Escape");
      await page.getByRole("tab", { name: "Captions" }).click();
      const addCaptions = page.getByRole("form", { name: "Add captions" });
      await addCaptions.getByLabel("Subtitle file (SRT/VTT)").check();
      await addCaptions.getByLabel("Upload an SRT or VTT file").setInputFiles(srt);
      await addCaptions.getByText("walk.srt uploaded.").waitFor();
      await addCaptions.getByLabel("Karaoke (light up each word as it is spoken)").check();
      await addCaptions.getByRole("button", { name: "Add captions" }).click();
      await atVersion(page, 5);
      c = await composition(page, id);
      const captionTrack = c.tracks[3];
      expect(captionTrack).toMatchObject({ kind: "video", name: "Captions" });
      expect(captionTrack?.clips[0]).toMatchObject({
        name: "walk.srt",
        asset: { type: "caption", mode: "karaoke", style: { valign: "bottom" } },
      });
      expect(captionTrack?.clips[0]?.asset.source?.uploadId).toMatch(/^upl_/);
      expect(await page.locator(".track-name", { hasText: "Captions" }).locator("small").textContent()).toBe(
        "captions",
      );
      await h.shot(page, "31-tools-captions-1366x768");

      // Add track, then a picture-in-picture clip on it (dragged there, one click for the box).
      await page.getByRole("button", { name: "Add video track" }).click();
      await atVersion(page, 6);
      await page.getByRole("tab", { name: "Media" }).click();
      await page
        .locator(".bin li", { hasText: "bike.mp4" })
        .dragTo(page.getByRole("group", { name: "Track 5: video" }), {
          targetPosition: { x: 1, y: 20 },
        });
      await atVersion(page, 7);
      await page
        .getByRole("group", { name: "Track 5: video" })
        .getByRole("button", { name: /^Clip bike\.mp4/ })
        .click();
      await page.getByRole("button", { name: "Picture in picture, top right" }).click();
      await atVersion(page, 8);
      c = await composition(page, id);
      expect(c.tracks[4]?.clips[0]).toMatchObject({
        start: 0,
        asset: { type: "video" },
        transform: { x: 0.75, y: 0.25, width: 0.35, height: 0.35 },
      });
      expect(c.tracks[4]?.clips[0]?.duration).toBeCloseTo(2.35, 1);

      // The zone below the tracks makes a new track of the kind the media needs.
      await binItem.dragTo(page.getByRole("group", { name: "New track: drop media here" }), {
        targetPosition: { x: 1, y: 10 },
      });
      await atVersion(page, 9);
      c = await composition(page, id);
      expect(c.tracks).toHaveLength(6);
      expect(c.tracks[5]).toMatchObject({ kind: "video", clips: [{ start: 0, asset: { type: "video" } }] });

      // Settings: renamed and the 9:16 preset (the long edge kept: 320×180 → 180×320).
      await page.keyboard.press("Escape");
      const settings = page.getByRole("form", { name: "Composition settings" });
      await settings.getByLabel("Name").fill("Walk cut (vertical)");
      await settings.getByRole("button", { name: "9:16" }).click();
      await settings.getByRole("button", { name: "Apply" }).click();
      await atVersion(page, 10);
      await page.getByRole("heading", { name: "Walk cut (vertical)" }).waitFor();
      c = await composition(page, id);
      expect(c.canvas).toMatchObject({ width: 180, height: 320, fps: 23.976 });
      await page.getByText("180×320 · 23.976 fps").waitFor();
      await expect
        .poll(() => frame.evaluate((img) => (img as unknown as { naturalHeight: number }).naturalHeight))
        .toBeGreaterThan(0);
      await allInView(page, {
        ...layout(),
        inspector: page.getByRole("region", { name: "Composition", exact: true }),
      });
      await h.axe(page, "editor-tools");
      await h.shot(page, "32-tools-1366x768");

      // The same at 1920×1080: everything in view, the timeline below the preview.
      await page.setViewportSize({ width: 1920, height: 1080 });
      await allInView(page, layout());
      await h.shot(page, "33-tools-1920x1080");

      // Names, not ids: the render is announced and listed by composition and project name.
      await page.getByRole("button", { name: "Render video" }).click();
      await page.getByText(/^Render of “Walk cut \(vertical\)” started/).waitFor();
      const renders = page.getByRole("region", { name: "Renders of this composition" });
      await renders.getByText("“Walk cut (vertical)”").waitFor();
      await renders.getByText("in Walk", { exact: true }).waitFor();
      expect(await renders.getByText(/rnd_/).isVisible()).toBe(false);

      // On a phone: the preview, then the toolbar and the timeline's tracks, each as wide as the screen.
      const phone = await h
        .browser()
        .newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2 });
      await phone.addCookies(await context.cookies());
      const small = await phone.newPage();
      await small.goto(`${h.base()}/console/projects/${projectId}/compositions/${id}`);
      await small.getByRole("img", { name: /^Frame at/ }).waitFor();
      await h.shot(small, "34-tools-phone-390x844");
      await allInView(small, {
        preview: small.getByRole("region", { name: "Preview" }),
        toolbar: small.getByRole("button", { name: "Undo" }),
        "ruler corner": small.locator(".track-names .corner"),
        "first track name": small.locator(".track-name").first(),
        "second track name": small.locator(".track-name").nth(1),
      });
      const lane = await small.getByRole("group", { name: "Track 1: video" }).boundingBox();
      expect(lane?.width).toBeGreaterThan(200);
      await h.axe(small, "editor-phone");
      await phone.close();
    } finally {
      await context.close();
      await rm(dir, { recursive: true, force: true });
    }
  }, 420_000);
}
