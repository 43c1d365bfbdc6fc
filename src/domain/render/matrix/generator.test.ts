import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import {
  coveredTriples,
  coveringCompositions,
  coveringDesign,
  matrixSeed,
  randomComposition,
  VISUAL_KINDS,
} from "../../../../test/fixtures/render/arbitraries.ts";
import { PER_COMPOSITION } from "../../../../test/fixtures/render/covering.ts";
import {
  beepOnset,
  decodeAudio,
  flashOnset,
  lumaPerFrame,
} from "../../../../test/fixtures/render/matrix-check.ts";
import {
  type MatrixMedia,
  matrixLookupUpload,
  matrixMedia,
} from "../../../../test/fixtures/render/matrix-media.ts";
import { runMediaTool } from "../../../media/probe.ts";
import { CANVAS_FPS, TRANSITION_TYPES } from "../../composition/schema.ts";
import { validateComposition } from "../../composition/validate.ts";
import type { ResolvedAsset } from "../types.ts";

let media: MatrixMedia;
beforeAll(async () => {
  media = await matrixMedia();
});

describe("render matrix: the covering design", () => {
  const specs = coveringDesign(PER_COMPOSITION);
  const triples = [...coveredTriples(specs)].map((t) => t.split("|"));

  it("covers every transition type with every ordered pair of visual kinds, exactly once", () => {
    const pairs = new Set(triples.map(([type, from, to]) => `${type}|${from}|${to}`));
    expect(triples).toHaveLength(TRANSITION_TYPES.length * VISUAL_KINDS.length ** 2);
    expect(pairs.size).toBe(triples.length);
  });

  it("covers every (type, rate) and every (kind pair, rate) at least twice", () => {
    const count = (key: (t: string[]) => string) => {
      const m = new Map<string, number>();
      for (const t of triples) m.set(key(t), (m.get(key(t)) ?? 0) + 1);
      return m;
    };
    const typeRate = count(([type, , , fps]) => `${type}|${fps}`);
    const pairRate = count(([, from, to, fps]) => `${from}|${to}|${fps}`);
    expect(typeRate.size).toBe(TRANSITION_TYPES.length * CANVAS_FPS.length);
    expect(pairRate.size).toBe(VISUAL_KINDS.length ** 2 * CANVAS_FPS.length);
    expect(Math.min(...typeRate.values(), ...pairRate.values())).toBeGreaterThanOrEqual(2);
  });

  it("packs the 272 transitions into few compositions", () => {
    expect(specs.length).toBeLessThanOrEqual(Math.ceil(272 / PER_COMPOSITION) + CANVAS_FPS.length);
  });
});

describe("render matrix: the generator", () => {
  it("makes only valid compositions (covering and random)", async () => {
    const lookupUpload = matrixLookupUpload(media);
    const covering = coveringCompositions(media.sources).map((c) => c.composition);
    const random = fc.sample(randomComposition(media.sources), { seed: matrixSeed(), numRuns: 200 });
    for (const composition of [...covering, ...random]) {
      await expect(
        validateComposition(
          { name: "matrix", ...composition },
          { lookupUpload, lookupTranscription: async () => new Map() },
        ),
      ).resolves.toBeUndefined();
    }
  });
});

/**
 * Seconds from a file's start to its first video frame: 0 in the mp4s (the AAC priming is cut
 * by the edit list), the priming's 21 ms in an MPEG-TS, which has no edit list and decodes it.
 */
async function pictureDelay(path: string): Promise<number> {
  const { stdout } = await runMediaTool(
    "ffprobe",
    ["-v", "error", "-show_entries", "format=start_time:stream=codec_type,start_time", "-of", "json", path],
    { timeoutMs: 30_000 },
  );
  const json = JSON.parse(stdout.toString("utf8")) as {
    format: { start_time?: string };
    streams: { codec_type: string; start_time?: string }[];
  };
  const video = json.streams.find((s) => s.codec_type === "video");
  return Number(video?.start_time ?? 0) - Number(json.format.start_time ?? 0);
}

describe("render matrix: the sources", () => {
  it("every sync source flashes and beeps at the same instant, as the detectors find them", async () => {
    for (const source of media.sources.filter((s) => s.flashAt !== undefined)) {
      const asset = media.assets.get(source.id) as ResolvedAsset;
      const fps = asset.media?.fps ?? 25;
      const k = flashOnset(await lumaPerFrame(asset.path), 1, Number.MAX_SAFE_INTEGER);
      expect(k, source.id).toBeDefined();
      // Variable frame rate: timestamps wander by up to 10 ms around n / fps.
      const flash = (k as number) / fps + (await pictureDelay(asset.path));
      expect(Math.abs(flash - (source.flashAt as number)), source.id).toBeLessThan(0.012);
      if (!asset.media?.hasAudio) continue;
      const beep = beepOnset(await decodeAudio(asset.path), 0, 2.5);
      expect(Math.abs((beep as number) - (source.flashAt as number)), source.id).toBeLessThan(0.005);
    }
  });
});
