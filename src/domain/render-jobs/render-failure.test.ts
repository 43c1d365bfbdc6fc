import { describe, expect, it } from "vitest";
import {
  canvas,
  clip,
  colorAsset,
  resolvedVideo,
  track,
  videoAsset,
} from "../../../test/fixtures/render/compositions.ts";
import { FfmpegError } from "../../media/ffmpeg-run.ts";
import type { Timeline } from "../composition/schema.ts";
import { buildRenderPlan } from "../render/plan.ts";
import type { AssetRef } from "./render-assets.ts";
import { explainRenderFailure } from "./render-failure.ts";

// A track of a video clip, a colour clip with a transition from it, and a video clip with one
// from a gap; filter failures need no probing, so no files are read.
const doc: Timeline = {
  canvas: canvas(160, 90, 25),
  tracks: [
    track("video", [
      clip({ id: "m4", start: 0, duration: 3, asset: videoAsset("upl_a") }),
      clip({
        id: "m5",
        start: 3,
        duration: 2,
        asset: colorAsset("#ff0000"),
        transition: { type: "radial", duration: 0.5 },
        motion: { type: "zoomIn" },
      }),
      clip({
        id: "m7",
        start: 6,
        duration: 2,
        asset: videoAsset("upl_b"),
        transition: { type: "wipeleft", duration: 1 },
      }),
    ]),
  ],
};
const assets = new Map([
  ["upl_a", resolvedVideo("/media/a.mp4", 10)],
  ["upl_b", resolvedVideo("/media/b.mp4", 10)],
]);
const plan = buildRenderPlan({ composition: doc, assets, output: { format: "mp4" }, outputPath: "out.mp4" });
const refsByPath = new Map<string, AssetRef>([
  [
    "/media/a.mp4",
    { clipId: "m4", key: "upl_a", uploadId: "upl_a", assetType: "video", label: "a.mp4 at 0:00" },
  ],
  [
    "/media/b.mp4",
    { clipId: "m7", key: "upl_b", uploadId: "upl_b", assetType: "video", label: "a.mp4 at 0:00" },
  ],
]);
const explain = (stderr: string) =>
  explainRenderFailure(
    new FfmpegError("FFMPEG_FAILED", "ffmpeg exited with 1", { stderrTail: stderr, exitCode: 1 }),
    {
      plan,
      composition: doc,
      refsByPath,
    },
  ).then((e) => e.toJSON());

describe("explainRenderFailure: a clip's failing step in the clip's own terms", () => {
  it("a transition names the clip it leads into, the clip before (or the gap) and the cut", async () => {
    expect(await explain("[xfade@m5 @ 0x55] Failed to configure output pad on xfade@m5")).toEqual({
      code: "FFMPEG_FAILED",
      retryable: false,
      clipId: "m5",
      message:
        "clip m5: the radial transition from clip m4 (0.5 s centred on the cut at 3 s) could not be rendered; try another transition type or a shorter duration",
    });
    expect(await explain("[xfade@m7 @ 0x55] Failed to configure output pad")).toMatchObject({
      clipId: "m7",
      uploadId: "upl_b",
      message: expect.stringMatching(
        /^clip m7: the wipeleft transition from the gap before it \(1 s centred on the cut at 6 s\)/,
      ),
    });
  });

  it("another step names the clip's settings to change", async () => {
    expect(await explain("[zoompan@m5 @ 0x55] Invalid size")).toMatchObject({
      clipId: "m5",
      message:
        "clip m5: the encoder failed while its motion effect (motion); change or remove that setting of the clip and render again",
    });
    expect((await explain("[scale@m4 @ 0x55] Invalid size")).message).toMatch(
      /^clip m4: .*fitting its picture into its box/,
    );
    expect((await explain("[atempo@m4 @ 0x55] bad")).message).toMatch(/speed of its sound/);
  });

  it("the plan's graph really carries the tags these messages name", () => {
    const graph = plan.args[plan.args.indexOf("-filter_complex") + 1] ?? "";
    expect(graph).toMatch(/xfade@m5=transition=radial/);
    expect(graph).toMatch(/xfade@m7=transition=wipeleft/);
    expect(graph).toMatch(/zoompan@m5=/);
  });
});
