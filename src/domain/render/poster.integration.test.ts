import { createHash } from "node:crypto";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { canvas, clip, colorAsset, track } from "../../../test/fixtures/render/compositions.ts";
import { frameAt, probe, tempDir } from "../../../test/fixtures/render/media.ts";
import { runFfmpeg } from "../../media/ffmpeg-run.ts";
import { makePoster } from "../../media/poster.ts";
import type { Timeline } from "../composition/schema.ts";
import { writePlanFiles } from "../render-jobs/write-plan-files.ts";
import { buildRenderPlan } from "./plan.ts";
import type { RenderOutputOptions } from "./types.ts";

let dir = "";
let cleanup: () => Promise<void> = async () => {};
beforeAll(async () => {
  ({ dir, cleanup } = await tempDir());
});
afterAll(() => cleanup());

/**
 * 5 s at 25 fps, 1280x720: frames 0–12 red, blue from frame 13 (0.52 s). 10 % of it is 0.5 s,
 * between frame 12 (0.48 s) and frame 13: the poster is the first frame at or after it, blue.
 */
const composition: Timeline = {
  canvas: canvas(1280, 720, 25),
  tracks: [
    track("video", [
      clip({ start: 0, duration: 0.52, asset: colorAsset("#ff0000") }),
      clip({ start: 0.52, duration: 4.48, asset: colorAsset("#0000ff") }),
    ]),
  ],
};

let runs = 0;
async function render(output: RenderOutputOptions, posterPath?: string) {
  runs += 1;
  const work = join(dir, `r${runs}`);
  const plan = buildRenderPlan({
    composition,
    assets: new Map(),
    output,
    outputPath: `out.${output.format}`,
    ...(posterPath ? { posterPath } : {}),
  });
  await writePlanFiles(plan, work);
  await runFfmpeg({ args: plan.args, cwd: work, durationSec: plan.durationSec, stallTimeoutMs: 60_000 });
  return { work, plan, file: join(work, `out.${output.format}`) };
}

const sha256 = async (file: string) =>
  createHash("sha256")
    .update(await readFile(file))
    .digest("hex");
const isBlue = ([r, g, b]: [number, number, number]) => b > 180 && r < 70 && g < 70;

describe("render plan: the poster written by the render's own run", () => {
  it("is the frame at 10 % fitted to 640 px, as makePoster takes it from the output, and leaves the output unchanged", async () => {
    const output: RenderOutputOptions = { format: "mp4", quality: "standard" };
    const withPoster = await render(output, "poster.jpg");
    expect(withPoster.plan.output.posterPath).toBe("poster.jpg");
    const poster = join(withPoster.work, "poster.jpg");
    const info = await probe(poster);
    expect([info.video?.width, info.video?.height]).toEqual([640, 360]);
    expect(isBlue((await frameAt(poster, 0, 640, 360)).pixel(320, 180))).toBe(true);
    // The same frame as a poster made from the finished output.
    const made = join(withPoster.work, "made.jpg");
    await writeFile(made, await makePoster(withPoster.file, { type: "video", duration: 5 }));
    const a = await frameAt(poster, 0, 640, 360);
    const b = await frameAt(made, 0, 640, 360);
    expect(a.diff(b)).toBeLessThan(4);

    // The encoded output is byte for byte the one rendered without a poster.
    const without = await render(output);
    expect(without.plan.output.posterPath).toBeUndefined();
    expect(without.plan.args.join(" ")).not.toContain("mjpeg");
    expect(await sha256(withPoster.file)).toBe(await sha256(without.file));
  });

  it("counts 10 % of a rendered range, and gifs get one too", async () => {
    // The range 0.32–2.32 s (frames 8–57): 10 % of it is frame 5 of the range, frame 13: blue.
    const webm = await render(
      { format: "webm", quality: "draft", range: { start: 0.32, duration: 2 } },
      "poster.jpg",
    );
    expect(isBlue((await frameAt(join(webm.work, "poster.jpg"), 0, 640, 360)).pixel(320, 180))).toBe(true);
    const gif = await render({ format: "gif", quality: "draft" }, "poster.jpg");
    const info = await probe(join(gif.work, "poster.jpg"));
    expect([info.video?.width, info.video?.height]).toEqual([480, 270]);
  });

  it("stills get none", async () => {
    const still = await render({ format: "jpg", quality: "standard", frameAt: 1 }, "poster.jpg");
    expect(still.plan.output.posterPath).toBeUndefined();
    expect(still.plan.args).not.toContain("poster.jpg");
  });
});
