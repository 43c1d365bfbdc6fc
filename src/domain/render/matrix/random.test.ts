import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { matrixSeed, randomComposition } from "../../../../test/fixtures/render/arbitraries.ts";
import { renderAndCheck } from "../../../../test/fixtures/render/matrix-check.ts";
import { type MatrixMedia, matrixMedia } from "../../../../test/fixtures/render/matrix-media.ts";
import { tempDir } from "../../../../test/fixtures/render/media.ts";
import { OUTPUT_FORMATS } from "../types.ts";

/** Random compositions per CI run (`RENDER_MATRIX_RUNS`; the bench runs hundreds). */
const RUNS = Number(process.env.RENDER_MATRIX_RUNS ?? 16);

let media: MatrixMedia;
let dir = "";
let cleanup: () => Promise<void> = async () => {};
beforeAll(async () => {
  media = await matrixMedia();
  ({ dir, cleanup } = await tempDir("cutroom-matrix-"));
});
afterAll(() => cleanup());

describe("render matrix: random compositions", () => {
  it(`${RUNS} random compositions render to mp4 and keep every invariant`, { timeout: 600_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(randomComposition(media.sources), async (composition) => {
        const outcome = await renderAndCheck(composition, media.assets, dir, { sources: media.sources });
        expect(outcome.problems).toEqual([]);
      }),
      { seed: matrixSeed(), numRuns: RUNS },
    );
  });

  it.each(OUTPUT_FORMATS.map((format, i) => [format, i] as const))(
    "a random composition renders to %s and keeps the invariants that format carries",
    { timeout: 120_000 },
    async (format, i) => {
      const [composition] = fc.sample(randomComposition(media.sources), {
        seed: matrixSeed() + 1000 + i,
        numRuns: 1,
      });
      if (!composition) throw new Error("no composition drawn");
      const outcome = await renderAndCheck(composition, media.assets, dir, {
        sources: media.sources,
        output: { format },
      });
      expect(outcome.problems, JSON.stringify(composition)).toEqual([]);
      const traits = outcome.render?.plan.output;
      expect((outcome.decoded?.frames.length ?? 0) > 0).toBe(traits?.width !== undefined);
      expect(outcome.decoded?.audio !== undefined).toBe(traits?.audio === true);
    },
  );

  it("renders the same composition twice to the same frame hashes (framemd5, draft)", {
    timeout: 300_000,
  }, async () => {
    const compositions = fc.sample(randomComposition(media.sources), {
      seed: matrixSeed() + 2000,
      numRuns: 3,
    });
    for (const composition of compositions) {
      const first = await renderAndCheck(composition, media.assets, dir, { sources: media.sources });
      const second = await renderAndCheck(composition, media.assets, dir, { sources: media.sources });
      expect(first.decoded?.framemd5.length).toBeGreaterThan(0);
      expect(second.decoded?.framemd5, JSON.stringify(composition)).toEqual(first.decoded?.framemd5);
    }
  });
});
