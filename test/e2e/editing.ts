// Editing without arithmetic, in the browser, with footage at the rates phones and cameras
// write (20 fps and 23.976 fps, lengths that are no round number of seconds) on a 23.976 fps
// canvas: clips added at the playhead and dropped from the media bin, a clip dragged until it
// snaps to its neighbour's edge, ripple delete, close gap, a crossfade and a wipe dropped on cuts, a
// timecode typed into the clip panel. The API then shows clips that touch exactly, and the
// render has no black frame between them (ffmpeg's blackdetect) and the timeline's length.
import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import type { Page } from "playwright-core";
import { expect, it } from "vitest";
import { signInToNewProject } from "./harness.ts";
import { type ClipJson, type CompositionJson, call, dragBy, type StudioHarness } from "./studio.ts";

const run = promisify(execFile);
const TRACK = "Track 1: video";

/** An ffmpeg test picture without sound: `frames` frames of `source` at `rate`. */
async function footage(file: string, source: string, rate: string, frames: number): Promise<void> {
  await run("ffmpeg", [
    ...["-v", "error", "-f", "lavfi", "-i", `${source}=size=320x180:rate=${rate}`],
    ...[
      "-frames:v",
      String(frames),
      "-c:v",
      "libx264",
      "-pix_fmt",
      "yuv420p",
      "-movflags",
      "+faststart",
      file,
    ],
  ]);
}

/** The composition as the API returns it now. */
async function read(page: Page, id: string): Promise<CompositionJson> {
  return (await call(page, "GET", `/api/compositions/${id}`)).json as unknown as CompositionJson;
}

/** The clips of the first track, by start. */
const clipsOf = (c: CompositionJson): ClipJson[] =>
  [...(c.tracks[0]?.clips ?? [])].sort((a, b) => a.start - b.start);

/** Seconds between each clip's start and the end of the clip before it (0: they touch). */
const gapsOf = (clips: ClipJson[]) =>
  clips.slice(1).map((c, i) => c.start - ((clips[i] as ClipJson).start + (clips[i] as ClipJson).duration));

/** Waits until the editor shows `version`. */
async function atVersion(page: Page, version: number): Promise<void> {
  await page.getByTestId("version").getByText(`version ${version}`, { exact: true }).waitFor();
}

/** Registers the editing walk-through (one `it`) against the harness. */
export function editingTests(h: StudioHarness): void {
  it("makes clips of 20 and 23.976 fps footage touch without typing a number, and renders no black between them", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "cutroom-editing-"));
    const context = await h.browser().newContext({ viewport: { width: 1366, height: 900 } });
    const page = await context.newPage();
    try {
      // 83 frames at 20 fps (4.15 s), 100 at 23.976 (4.170833 s), 60 at 23.976 (2.5025 s).
      const files = {
        phone: path.join(dir, "phone20.mp4"),
        cam: path.join(dir, "cam23.mp4"),
        pan: path.join(dir, "pan23.mp4"),
      };
      await Promise.all([
        footage(files.phone, "testsrc", "20", 83),
        footage(files.cam, "smptebars", "24000/1001", 100),
        footage(files.pan, "testsrc2", "24000/1001", 60),
      ]);

      const projectId = await signInToNewProject(page, h, "Editing");
      await page.getByLabel("Choose files").setInputFiles(Object.values(files));
      // Probed (their lengths known) before they go on a timeline; slow on a busy machine.
      await expect
        .poll(
          async () => {
            const list = (await call(page, "GET", `/api/v1/uploads?projectId=${projectId}`)).json
              .data as Array<{
              media?: { duration?: number } | null;
            }>;
            return list.filter((u) => (u.media?.duration ?? 0) > 0).length;
          },
          { timeout: 240_000, interval: 1000 },
        )
        .toBe(3);
      await page.reload();

      const created = await call(page, "POST", "/api/compositions", {
        name: "No gaps",
        projectId,
        canvas: { width: 320, height: 180, fps: 23.976, background: "#000000" },
        tracks: [{ kind: "video", clips: [] }],
      });
      expect(created.status).toBe(201);
      const id = created.json.id;
      await page.goto(`${h.base()}/console/projects/${projectId}/compositions/${id}`);
      await page.getByRole("heading", { name: "No gaps" }).waitFor();
      // 40 px a second: the whole cut in view.
      for (let z = 0; z < 2; z++) await page.getByRole("button", { name: "Zoom out" }).click();
      const pps = 40;
      let version = 1;

      // Add at the playhead, twice: the second time the playhead (4 s, moved with L) is inside
      // the first clip, and the new clip starts exactly at its end (4.15 s), not at 4 s or with a gap.
      await page.getByRole("button", { name: "Add phone20.mp4 at the playhead" }).click();
      await atVersion(page, ++version);
      await page.getByRole("button", { name: /^Clip phone20\.mp4/ }).click();
      for (let i = 0; i < 4; i++) await page.keyboard.press("l");
      await page.getByRole("button", { name: "Add cam23.mp4 at the playhead" }).click();
      await atVersion(page, ++version);
      let clips = clipsOf(await read(page, id));
      expect(clips.map((c) => c.start)).toEqual([0, clips[0]?.duration]);

      // pan23.mp4 dropped from the media bin 1 s after the end: it lands on a frame, leaving a gap.
      const lane = page.getByRole("group", { name: TRACK });
      const laneBox = await lane.boundingBox();
      if (!laneBox) throw new Error("no lane");
      const end = (clips[1]?.start ?? 0) + (clips[1]?.duration ?? 0);
      await page
        .locator(".bin li", { hasText: "pan23.mp4" })
        .dragTo(lane, { targetPosition: { x: (end + 1) * pps, y: laneBox.height / 2 } });
      await atVersion(page, ++version);
      clips = clipsOf(await read(page, id));
      expect(clips).toHaveLength(3);
      expect(gapsOf(clips)[1]).toBeGreaterThan(0.8);

      // Dragged with the mouse until it nearly meets cam23.mp4: it snaps to that edge (the snap
      // line shows while dragging), and the two touch exactly.
      const pan = page.getByRole("button", { name: /^Clip pan23\.mp4/ });
      const box = await pan.boundingBox();
      if (!box) throw new Error("no clip");
      const gapPx = ((clips[2]?.start ?? 0) - end) * pps;
      await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
      await page.mouse.down();
      await page.mouse.move(box.x + box.width / 2 - gapPx / 2, box.y + box.height / 2, { steps: 4 });
      await page.mouse.move(box.x + box.width / 2 - gapPx + 5, box.y + box.height / 2, { steps: 4 });
      await page.getByTestId("snap-line").waitFor();
      await h.shot(page, "30-editing-snap");
      await page.mouse.up();
      await atVersion(page, ++version);
      clips = clipsOf(await read(page, id));
      // Touching as the server counts it (to 1e-9 s; the sum of a start and a length has float noise).
      expect(gapsOf(clips).map((g) => Math.abs(g) <= 1e-9)).toEqual([true, true]);

      // One more phone clip at the end (End puts the playhead there), then ripple delete of
      // cam23.mp4 (Shift+Delete): the later clips move up and still touch.
      await page.keyboard.press("End");
      await page.getByRole("button", { name: "Add phone20.mp4 at the playhead" }).click();
      await atVersion(page, ++version);
      await page.getByRole("button", { name: /^Clip cam23\.mp4/ }).click();
      await page.keyboard.press("Shift+Delete");
      await atVersion(page, ++version);
      clips = clipsOf(await read(page, id));
      expect(clips).toHaveLength(3);
      expect(gapsOf(clips).map((g) => Math.abs(g) <= 1e-9)).toEqual([true, true]);

      // The last clip dragged right with Alt held (no snapping: frames only) leaves a gap; the
      // gap is drawn, and clicking it closes it.
      const last = page.getByRole("button", { name: /^Clip phone20\.mp4/ }).last();
      await page.keyboard.down("Alt");
      await dragBy(page, last, 40, 30);
      await page.keyboard.up("Alt");
      await atVersion(page, ++version);
      const gap = page.getByRole("button", { name: /^Close the .* s gap at / });
      await gap.waitFor();
      await h.shot(page, "31-editing-gap");
      await gap.click();
      await atVersion(page, ++version);
      clips = clipsOf(await read(page, id));
      expect(gapsOf(clips).map((g) => Math.abs(g) <= 1e-9)).toEqual([true, true]);

      // Two gaps (the last clip moved right, then pan23.mp4 into the room), closed at once with
      // the track's Close gaps.
      await page.keyboard.down("Alt");
      await dragBy(page, page.getByRole("button", { name: /^Clip phone20\.mp4/ }).last(), 40, 30);
      await atVersion(page, ++version);
      await dragBy(page, page.getByRole("button", { name: /^Clip pan23\.mp4/ }), 30, 12);
      await atVersion(page, ++version);
      await page.keyboard.up("Alt");
      expect(gapsOf(clipsOf(await read(page, id))).filter((g) => g > 0.1)).toHaveLength(2);
      await page.getByRole("button", { name: "Close all gaps on track 1" }).click();
      await atVersion(page, ++version);
      clips = clipsOf(await read(page, id));
      expect(gapsOf(clips).map((g) => Math.abs(g) <= 1e-9)).toEqual([true, true]);

      // A crossfade dragged from the transitions strip onto the cut between the first phone clip
      // and pan23.mp4 (dropped a little off the cut): it goes on that cut with a length of whole
      // frames, no number typed.
      const cut = clips[1]?.start ?? 0;
      const laneNow = await lane.boundingBox();
      await page
        .getByRole("toolbar", { name: "Transitions" })
        .getByRole("button", { name: /^Crossfade/ })
        .dragTo(lane, { targetPosition: { x: cut * pps + 4, y: (laneNow?.height ?? 40) / 2 } });
      await atVersion(page, ++version);
      clips = clipsOf(await read(page, id));
      const frame = 1001 / 24000;
      expect(clips[1]?.transition?.type).toBe("dissolve");
      expect(Math.abs((clips[1]?.transition?.duration ?? 0) / frame - 12)).toBeLessThan(1e-3);
      await h.shot(page, "32-editing-crossfade");

      // A timecode typed into the panel: a frame that does not exist is refused next to the
      // field (nothing sent), then 0:00.06 (six frames at 23.976 fps) is applied.
      const form = page.getByRole("form", { name: "Transition properties" });
      const duration = form.getByLabel("Duration");
      await duration.fill("0:00.30");
      await form.getByRole("button", { name: "Apply" }).click();
      await expect.poll(() => duration.getAttribute("aria-invalid")).toBe("true");
      const why = await duration.getAttribute("aria-describedby");
      expect(await page.locator(`[id="${why}"]`).textContent()).toMatch(/Frame 30 does not exist/);
      await h.axe(page, "editor-field-error");
      await h.shot(page, "33-editing-field-error");
      await duration.fill("0:00.06");
      await form.getByRole("button", { name: "Apply" }).click();
      await atVersion(page, ++version);
      clips = clipsOf(await read(page, id));
      expect(clips[1]?.transition?.duration).toBeCloseTo(6 * frame, 6);
      // A wipe dragged onto the other cut (pan23.mp4 into the last phone clip), dropped a little
      // before it: it goes on that cut, and the crossfade stays.
      const cut2 = clips[2]?.start ?? 0;
      await page
        .getByRole("toolbar", { name: "Transitions" })
        .getByRole("button", { name: /^Wipe left/ })
        .dragTo(lane, { targetPosition: { x: cut2 * pps - 4, y: (laneNow?.height ?? 40) / 2 } });
      await atVersion(page, ++version);
      clips = clipsOf(await read(page, id));
      expect(clips[2]?.transition?.type).toBe("wipeleft");
      expect(clips[1]?.transition?.type).toBe("dissolve");
      // The clip panel shows times as timecode; applying it untouched changes nothing.
      await page.getByRole("button", { name: /^Clip pan23\.mp4/ }).click();
      const clipForm = page.getByRole("form", { name: "Clip properties" });
      expect(await clipForm.getByLabel("Duration", { exact: true }).inputValue()).toBe("0:02.12");
      await h.axe(page, "editor-editing");

      // After all the editing: every clip touches the one before it exactly.
      const final = await read(page, id);
      clips = clipsOf(final);
      for (const g of gapsOf(clips)) expect(Math.abs(g)).toBeLessThanOrEqual(1e-6);
      const length = (clips.at(-1)?.start ?? 0) + (clips.at(-1)?.duration ?? 0);

      // The render: no black frame anywhere (blackdetect finds none) and the timeline's length.
      const started = await call(page, "POST", "/api/render", { compositionId: id });
      expect(started.status).toBe(202);
      let render: { status: string; output: { url: string } | null } = { status: "queued", output: null };
      await expect
        .poll(
          async () => {
            render = (await call(page, "GET", `/api/render/${started.json.id}`))
              .json as unknown as typeof render;
            return render.status;
          },
          { timeout: 120_000, interval: 1000 },
        )
        .toBe("succeeded");
      const url = new URL(render.output?.url ?? "", h.base());
      const bytes = await page.evaluate(
        async (u) => Array.from(new Uint8Array(await (await fetch(u)).arrayBuffer())),
        url.href,
      );
      const out = path.join(dir, "out.mp4");
      await writeFile(out, Buffer.from(bytes));
      const black = await run("ffmpeg", [
        "-v",
        "info",
        "-i",
        out,
        "-vf",
        "blackdetect=d=0:pix_th=0.10",
        "-an",
        "-f",
        "null",
        "-",
      ]);
      expect(black.stderr).not.toMatch(/black_start/);
      const probe = await run("ffprobe", [
        ...["-v", "error", "-select_streams", "v:0", "-count_frames"],
        ...["-show_entries", "stream=nb_read_frames", "-of", "csv=p=0", out],
      ]);
      expect(Number(probe.stdout.trim())).toBe(Math.round(length * (24000 / 1001)));
      await h.shot(page, "34-editing-done");
    } finally {
      await context.close();
      await rm(dir, { recursive: true, force: true });
    }
  }, 300_000);
}
