import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { coveringCompositions, coveringDesign } from "../../../../test/fixtures/render/arbitraries.ts";
import { renderAndCheck } from "../../../../test/fixtures/render/matrix-check.ts";
import { type MatrixMedia, matrixMedia } from "../../../../test/fixtures/render/matrix-media.ts";
import { tempDir } from "../../../../test/fixtures/render/media.ts";

/** Transitions packed into one covering composition (fewer, longer renders). */
export const PER_COMPOSITION = 12;

/**
 * Declares the matrix tests of one share of the covering design: composition `i` belongs to
 * share `i % shares`. Split over files so that Vitest's two workers render them in parallel.
 */
export function describeCoveringShare(share: number, shares: number): void {
  const indices = coveringDesign(PER_COMPOSITION)
    .map((spec, i) => ({ spec, i }))
    .filter(({ i }) => i % shares === share);
  describe(`render matrix: covering design, share ${share + 1} of ${shares}`, () => {
    let media: MatrixMedia;
    let compositions: ReturnType<typeof coveringCompositions> = [];
    let dir = "";
    let cleanup: () => Promise<void> = async () => {};
    beforeAll(async () => {
      media = await matrixMedia();
      compositions = coveringCompositions(media.sources, undefined, PER_COMPOSITION);
      ({ dir, cleanup } = await tempDir("cutroom-matrix-"));
    });
    afterAll(() => cleanup());

    it.each(indices.map(({ spec, i }) => [i, spec.fps, spec.steps.filter((s) => s.transition).length]))(
      "composition %i at %s fps (%i transitions) renders and keeps every invariant",
      async (i) => {
        const { composition } = compositions[i as number] as (typeof compositions)[number];
        const outcome = await renderAndCheck(composition, media.assets, dir, { sources: media.sources });
        expect(outcome.problems, JSON.stringify(composition)).toEqual([]);
        // Every planned transition was rendered as one (none fell back to a cut).
        expect(outcome.render?.plan.warnings.filter((w) => w.code === "TRANSITION_IGNORED")).toEqual([]);
      },
    );
  });
}
