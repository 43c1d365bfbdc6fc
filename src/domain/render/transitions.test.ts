import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import type { TransitionType } from "../composition/schema.ts";
import { FilterGraph } from "./graph.ts";
import { blendsPlanewise, crossfade, XFADE_NAMES } from "./transitions.ts";

const run = promisify(execFile);

const W = 160;
const H = 90;
const FRAMES = 10;
const rate = { num: 25, den: 1 };

/**
 * Two 10-frame 160x90 pictures in `format` (with a diagonal alpha ramp for `yuva420p`), and the
 * raw frames of `graph` applied to them (`[0:v]`, `[1:v]` → `[out]`).
 */
async function rawFrames(graph: string, format: "yuv420p" | "yuva420p"): Promise<Buffer> {
  const alpha =
    format === "yuva420p" ? ",format=yuva420p,geq=lum='lum(X,Y)':cb='cb(X,Y)':cr='cr(X,Y)':a='(X+Y)'" : "";
  const source = (pattern: string) => [
    "-f",
    "lavfi",
    "-i",
    `${pattern}=s=${W}x${H}:r=25:d=${FRAMES / 25},gblur=sigma=3,format=${format}${alpha},settb=AVTB,setpts=N/(25*TB),fps=25`,
  ];
  const { stdout } = await run(
    "ffmpeg",
    [
      ...["-hide_banner", "-loglevel", "error"],
      ...source("testsrc2"),
      ...source("smptehdbars"),
      ...["-filter_complex", graph, "-map", "[out]", "-f", "rawvideo", "-pix_fmt", format, "-"],
    ],
    { encoding: "buffer", maxBuffer: 64 * 1024 * 1024 },
  );
  return stdout;
}

/** Planes of each frame of a raw 4:2:0 buffer (Y, U, V and A when `alpha`). */
function planes(raw: Buffer, alpha: boolean): { y: Buffer[]; chroma: Buffer[]; a: Buffer[] } {
  const luma = W * H;
  const chroma = (W / 2) * (H / 2);
  const frame = luma + 2 * chroma + (alpha ? luma : 0);
  const out = { y: [] as Buffer[], chroma: [] as Buffer[], a: [] as Buffer[] };
  for (let at = 0; at + frame <= raw.length; at += frame) {
    out.y.push(raw.subarray(at, at + luma));
    out.chroma.push(raw.subarray(at + luma, at + luma + 2 * chroma));
    if (alpha) out.a.push(raw.subarray(at + luma + 2 * chroma, at + frame));
  }
  return out;
}

/** PSNR (dB) of two sample buffers of the same length; Infinity when equal. */
function psnr(a: Buffer, b: Buffer): number {
  let squared = 0;
  for (let i = 0; i < a.length; i += 1) squared += ((a[i] ?? 0) - (b[i] ?? 0)) ** 2;
  return squared === 0 ? Number.POSITIVE_INFINITY : 10 * Math.log10((255 * 255 * a.length) / squared);
}

const types = Object.keys(XFADE_NAMES) as TransitionType[];

/** The planes of {@link crossfade}'s output for `type` over the two test pictures. */
async function crossfadeFrames(type: TransitionType, format: "yuv420p" | "yuva420p") {
  const graph = new FilterGraph();
  const out = crossfade(graph, ["0:v", "1:v"], {
    type,
    frames: FRAMES,
    offset: -0.5,
    rate,
    pixelFormat: format,
    clipId: "m2",
  });
  graph.chain([out], ["null"], "out");
  return planes(
    await rawFrames(graph.toString().replace(/\[out\d+\]$/, "[out]"), format),
    format === "yuva420p",
  );
}

/** The planes of ffmpeg's own `xfade` (4:4:4 inside) with transition `name` over the same pictures. */
async function xfadeFrames(name: string, format: "yuv420p" | "yuva420p") {
  return planes(
    await rawFrames(
      `[0:v][1:v]xfade=transition=${name}:duration=0.4:offset=-0.02,format=${format}[out]`,
      format,
    ),
    format === "yuva420p",
  );
}

describe("crossfade", () => {
  it("blends plane by plane exactly the transitions whose result does not mix planes", () => {
    const planewise = types.filter(blendsPlanewise);
    expect(types.filter((t) => !planewise.includes(t)).sort()).toEqual([
      "fadeblack",
      "fadewhite",
      "pixeldissolve",
      "zoomin",
    ]);
    for (const type of types) {
      const graph = new FilterGraph();
      crossfade(graph, ["a", "b"], {
        type,
        frames: 10,
        offset: -0.5,
        rate,
        pixelFormat: "yuv420p",
        clipId: "m2",
      });
      const text = graph.toString();
      if (planewise.includes(type)) {
        expect(text).toContain("extractplanes@m2=y+u+v");
        expect(text).toContain("mergeplanes@m2=0x001020:yuv420p");
      } else {
        expect(text).not.toContain("extractplanes");
        expect(text).toMatch(/xfade@m2=[^[]*,format@m2=yuv420p\[xf\d+\]$/);
      }
    }
  });

  it("dips a layer to black or white in its own pixels: 4:4:4 colour, the two alphas blended", async () => {
    for (const type of ["fadeblack", "fadewhite"] as const) {
      const ours = await crossfadeFrames(type, "yuva420p");
      const colour = await xfadeFrames(type, "yuva420p");
      const alpha = await xfadeFrames("fade", "yuva420p");
      for (let f = 0; f < FRAMES; f += 1) {
        expect(psnr(ours.y[f] as Buffer, colour.y[f] as Buffer), `${type} frame ${f} luma`).toBe(
          Number.POSITIVE_INFINITY,
        );
        expect(psnr(ours.chroma[f] as Buffer, colour.chroma[f] as Buffer), `${type} frame ${f} chroma`).toBe(
          Number.POSITIVE_INFINITY,
        );
        // ffmpeg's own fadeblack takes alpha through opaque: a layer covered the whole canvas.
        expect(psnr(ours.a[f] as Buffer, alpha.a[f] as Buffer), `${type} frame ${f} alpha`).toBe(
          Number.POSITIVE_INFINITY,
        );
      }
      expect(psnr(ours.a[FRAMES / 2] as Buffer, colour.a[FRAMES / 2] as Buffer)).toBeLessThan(30);
    }
  });

  // Every plane-wise transition against ffmpeg's own 4:4:4 blend of the same (softened) pictures:
  // the same luma and alpha, byte for byte, and chroma that differs only by the 4:4:4 round
  // trip's resampling, which the plane-wise blend no longer does (54 dB for fades; 33–37 dB for
  // wipes and slides, whose hard edge the round trip smears over a chroma sample).
  for (const format of ["yuv420p", "yuva420p"] as const) {
    it(`gives the 4:4:4 blend's luma${format === "yuva420p" ? " and alpha" : ""} exactly, in ${format}`, async () => {
      for (const type of types.filter(blendsPlanewise)) {
        const ours = await crossfadeFrames(type, format);
        const reference = await xfadeFrames(XFADE_NAMES[type], format);
        expect(ours.y.length, type).toBe(FRAMES);
        expect(reference.y.length, type).toBe(FRAMES);
        for (let f = 0; f < FRAMES; f += 1) {
          expect(psnr(ours.y[f] as Buffer, reference.y[f] as Buffer), `${type} frame ${f} luma`).toBe(
            Number.POSITIVE_INFINITY,
          );
          if (format === "yuva420p") {
            expect(psnr(ours.a[f] as Buffer, reference.a[f] as Buffer), `${type} frame ${f} alpha`).toBe(
              Number.POSITIVE_INFINITY,
            );
          }
          expect(
            psnr(ours.chroma[f] as Buffer, reference.chroma[f] as Buffer),
            `${type} frame ${f} chroma`,
          ).toBeGreaterThan(30);
        }
      }
    });
  }
});
