// Split segments seek their video inputs to the keyframe their first frame decodes from (the
// uploads' kept keyframe indexes). Over random compositions of the matrix library (20, 23.976,
// 29.97, 59.94 fps, VFR, B-frames, rotation, odd lengths), every segment must decode to the same
// frames whether its inputs seek to keyframes or a second before their first frame.
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { matrixSeed, randomComposition } from "../../../../test/fixtures/render/arbitraries.ts";
import { type MatrixMedia, matrixMedia } from "../../../../test/fixtures/render/matrix-media.ts";
import { tempDir } from "../../../../test/fixtures/render/media.ts";
import { frameMd5 } from "../../../../test/fixtures/render/seams.ts";
import { runFfmpeg } from "../../../media/ffmpeg-run.ts";
import { compositionDuration } from "../../composition/duration.ts";
import { readSourceKeyframes } from "../../render-jobs/split-render.ts";
import { writePlanFiles } from "../../render-jobs/write-plan-files.ts";
import { keptSourceKeyframes } from "../keyframes.ts";
import { buildSplitRenderPlan } from "../segments.ts";
import type { ResolvedAsset } from "../types.ts";

/** Random compositions per CI run (`RENDER_MATRIX_SPLIT_RUNS`). */
const RUNS = Number(process.env.RENDER_MATRIX_SPLIT_RUNS ?? 6);

let media: MatrixMedia;
let dir = "";
let cleanup: () => Promise<void> = async () => {};
beforeAll(async () => {
  media = await matrixMedia();
  ({ dir, cleanup } = await tempDir("cutroom-split-seeks-"));
});
afterAll(() => cleanup());

describe("render matrix: split segments seeking to keyframes", () => {
  it(`${RUNS} random compositions: every segment decodes to the same frames with keyframe seeks (lossless)`, {
    timeout: 600_000,
  }, async () => {
    let run = 0;
    let movedSeeks = 0;
    await fc.assert(
      fc.asyncProperty(randomComposition(media.sources), async (composition) => {
        run += 1;
        const index = await readSourceKeyframes(composition, media.assets);
        const kept = new Map<string, ResolvedAsset>(
          [...media.assets].map(([key, asset]) => {
            const keyframes = index.get(key);
            return [key, keyframes ? { ...asset, keyframes } : asset];
          }),
        );
        const segmentSec = Math.max(0.3, compositionDuration(composition) / 3);
        const plan = (seeks: boolean) =>
          buildSplitRenderPlan({
            composition,
            assets: kept,
            output: { format: "mp4", quality: "draft" },
            outputPath: "out.mp4",
            segmentSec,
            lossless: true,
            keyframes: index,
            ...(seeks ? { sourceKeyframes: keptSourceKeyframes(kept) } : {}),
          });
        const [plain, seeking] = [plan(false), plan(true)];
        expect(seeking.segments.map((s) => s.startFrame)).toEqual(plain.segments.map((s) => s.startFrame));
        const hashes = async (split: typeof plain, name: string) => {
          const work = join(dir, `${run}-${name}`);
          const all: string[][][] = [];
          for (const segment of split.segments) {
            await writePlanFiles(segment.plan, work);
            const { args, durationSec } = segment.plan;
            await runFfmpeg({ args, cwd: work, durationSec, stallTimeoutMs: 60_000 });
            all.push(await frameMd5(join(work, segment.file)));
          }
          return all;
        };
        const seekArgs = (split: typeof plain) =>
          split.segments.flatMap((s) => s.plan.inputs.map((i) => i.args));
        movedSeeks += seekArgs(seeking).filter(
          (a, i) => JSON.stringify(a) !== JSON.stringify(seekArgs(plain)[i]),
        ).length;
        const [a, b] = await Promise.all([hashes(plain, "plain"), hashes(seeking, "seeking")]);
        expect(b, JSON.stringify(composition)).toEqual(a);
      }),
      { seed: matrixSeed() + 3000, numRuns: RUNS },
    );
    // Some inputs did seek elsewhere: the property compared something.
    expect(movedSeeks).toBeGreaterThan(0);
  });
});
