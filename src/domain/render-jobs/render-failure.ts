import type { FfmpegError } from "../../media/ffmpeg-run.ts";
import { MediaProbeError, probeMedia } from "../../media/probe.ts";
import type { Clip, Timeline } from "../composition/schema.ts";
import { type FfmpegFault, readFfmpegFault } from "../render/ffmpeg-fault.ts";
import { sec } from "../render/graph.ts";
import type { RenderPlan } from "../render/index.ts";
import { RenderError } from "../render/types.ts";
import type { AssetRef } from "./render-assets.ts";

/** What a failed render's ffmpeg run is explained against. */
export interface FailureContext {
  plan: Pick<RenderPlan, "inputs" | "clipTags" | "args" | "files">;
  /** The frozen composition that was rendered. */
  composition: Timeline;
  /** Which clip (and upload) each local source file is (`resolveRenderAssets`). */
  refsByPath: ReadonlyMap<string, AssetRef>;
}

/** The filters of a transition (a blend of the whole picture, or of each plane on its own). */
const TRANSITION_FILTERS = new Set(["xfade", "extractplanes", "mergeplanes"]);

/** What a clip step failing in ffmpeg means in the clip's own terms, by ffmpeg filter name. */
const FILTER_STEPS: readonly [RegExp, string][] = [
  [/^(scale|zscale|crop|pad|setsar|format)$/, "fitting its picture into its box (fit, crop, transform size)"],
  [/^zoompan$/, "its motion effect (motion)"],
  [/^rotate$/, "rotating it (transform rotate)"],
  [/^lut$/, "applying its opacity (transform opacity)"],
  [/^fade$/, "its picture fade (fadeIn, fadeOut)"],
  [/^(hue|gblur|eq|negate)$/, "its picture filter (filter)"],
  [/^overlay$/, "placing it on the canvas (transform)"],
  [/^color$/, "drawing its colour"],
  [/^atempo$/, "changing the speed of its sound (speed)"],
  [/^a/, "its sound (volume, fades, speed)"],
  [/^(trim|setpts|settb|fps|tpad|loop|split|concat)$/, "timing its frames (trim, speed, duration)"],
];

/**
 * Turns a failed ffmpeg run of a render into the render's error: which clip (and upload) it
 * failed on and why, in a sentence the user can act on (`readFfmpegFault` reads where ffmpeg
 * failed; sources are probed where ffmpeg's words are not enough):
 * - a source that could not be decoded, or no longer reads as media: `ASSET_UNSUPPORTED`
 *   (`clip m3: the image could not be decoded: upload upl_… is damaged, …`);
 * - a source without the picture or sound its clip uses: `ASSET_UNSUPPORTED`;
 * - a clip's transition or another of its steps failing: `FFMPEG_FAILED` with the clip
 *   (`clip m5: the radial transition from clip m4 (0.5 s centred on the cut at 3 s) could not
 *   be rendered; …`);
 * - a cause of the whole render (killed, disk full, out of memory, encoder or output setup):
 *   `FFMPEG_FAILED` without a clip, saying which.
 * Messages never quote ffmpeg, its command line or paths.
 *
 * @param err - the `FFMPEG_FAILED` error of `runFfmpeg`.
 */
export async function explainRenderFailure(err: FfmpegError, ctx: FailureContext): Promise<RenderError> {
  const fault = readFfmpegFault(err.stderrTail || err.message, ctx.plan, {
    exitCode: err.exitCode,
    signal: err.signal,
  });
  const sourceOf = (clipId: string) =>
    [...ctx.refsByPath.entries()].find(([, ref]) => ref.clipId === clipId && ref.assetType !== "caption");
  switch (fault.kind) {
    case "input": {
      const source = sourceOf(fault.clipId);
      if (!source) return clipFailure(ctx, fault.clipId, "reading its source failed");
      const [file, ref] = source;
      if (fault.decoding || (await unreadable(file))) return undecodable(ref);
      return new RenderError(
        "FFMPEG_FAILED",
        `clip ${ref.clipId}: reading its ${ref.assetType} failed (${sourceName(ref)}); check that it is a complete ${ref.assetType} file or replace it`,
        idsOf(ref),
      );
    }
    case "missing-stream": {
      // Only the inputs the graph reads that kind of stream from (`[3:v]`, `[3:a]`).
      const graph = graphText(ctx.plan);
      const label = fault.stream === "video" ? "v" : "a";
      for (const input of ctx.plan.inputs) {
        const ref = ctx.refsByPath.get(input.path);
        if (!ref || !graph.includes(`[${input.index}:${label}]`)) continue;
        const info = await probeMedia(input.path, { timeoutMs: 10_000 }).catch(() => null);
        if (!info) return undecodable(ref);
        const has = fault.stream === "video" ? info.hasVideo : info.hasAudio;
        if (!has) {
          const what = fault.stream === "video" ? "picture" : "sound";
          return new RenderError(
            "ASSET_UNSUPPORTED",
            `clip ${ref.clipId}: its source has no ${what} (${sourceName(ref)} has no ${fault.stream} track); use a file with ${what} or remove the clip`,
            idsOf(ref),
          );
        }
      }
      return globalFailure(ctx, fault);
    }
    case "filter":
      return TRANSITION_FILTERS.has(fault.filter)
        ? clipFailure(ctx, fault.clipId, "", transitionSentence(ctx.composition, fault.clipId))
        : clipFailure(ctx, fault.clipId, `the encoder failed while ${stepOf(fault.filter)}`);
    case "global":
      return globalFailure(ctx, fault);
  }
}

/** A clip step's failure (`FFMPEG_FAILED` with the clip and its upload). */
function clipFailure(ctx: FailureContext, clipId: string, what: string, sentence?: string): RenderError {
  const ref = [...ctx.refsByPath.values()].find((r) => r.clipId === clipId);
  return new RenderError(
    "FFMPEG_FAILED",
    sentence ?? `clip ${clipId}: ${what}; change or remove that setting of the clip and render again`,
    { clipId, ...(ref?.uploadId ? { uploadId: ref.uploadId } : {}) },
  );
}

/** A cause of the whole render; an unknown one is first checked against every source. */
async function globalFailure(
  ctx: FailureContext,
  fault: Extract<FfmpegFault, { kind: "global" | "missing-stream" }>,
): Promise<RenderError> {
  if (fault.kind === "missing-stream" || !fault.known) {
    for (const [file, ref] of ctx.refsByPath) {
      if (ref.assetType !== "caption" && (await unreadable(file))) return undecodable(ref);
    }
  }
  const cause =
    fault.kind === "global"
      ? fault.cause
      : `a ${fault.stream === "video" ? "picture" : "sound"} the composition uses is missing from its source`;
  return new RenderError("FFMPEG_FAILED", `The render failed: ${cause}`);
}

/** The plan's filtergraph: inline after `-filter_complex`, or the script file it wrote. */
function graphText(plan: Pick<RenderPlan, "args" | "files">): string {
  const at = plan.args.indexOf("-filter_complex");
  if (at >= 0) return plan.args[at + 1] ?? "";
  const script = plan.args[plan.args.indexOf("-filter_complex_script") + 1];
  return plan.files.find((f) => f.path === script)?.content ?? "";
}

function stepOf(filter: string): string {
  return FILTER_STEPS.find(([p]) => p.test(filter))?.[1] ?? `its ${filter} step`;
}

/**
 * The transition into `clipId` in the composition's words: its type, length, the clip it comes
 * from and the cut it is centred on.
 */
function transitionSentence(doc: Timeline, clipId: string): string {
  const track = doc.tracks.find((t) => t.clips.some((c) => c.id === clipId));
  const clip = track?.clips.find((c) => c.id === clipId) as Clip | undefined;
  const t = clip?.transition;
  if (!track || !clip || !t) {
    return `clip ${clipId}: its transition could not be rendered; try another transition type or duration`;
  }
  // The clip that ends at this one's start (a transition after a gap starts from the gap).
  const before = track.clips.find((c) => c !== clip && Math.abs(c.start + c.duration - clip.start) < 1e-3);
  const from = before ? `clip ${before.id}` : "the gap before it";
  return `clip ${clipId}: the ${t.type} transition from ${from} (${sec(t.duration)} s centred on the cut at ${sec(clip.start)} s) could not be rendered; try another transition type or a shorter duration`;
}

async function unreadable(file: string): Promise<boolean> {
  return probeMedia(file, { timeoutMs: 10_000 }).then(
    () => false,
    (err: unknown) => err instanceof MediaProbeError,
  );
}

function undecodable(ref: AssetRef): RenderError {
  return new RenderError(
    "ASSET_UNSUPPORTED",
    `clip ${ref.clipId}: the ${ref.assetType} could not be decoded: ${sourceName(ref)} is damaged, truncated or not a supported ${ref.assetType} file; replace it or remove the clip`,
    idsOf(ref),
  );
}

function sourceName(ref: AssetRef): string {
  if (ref.uploadId) return `upload ${ref.uploadId}`;
  try {
    return `the file from ${new URL(ref.src ?? "").host}`;
  } catch {
    return "its file";
  }
}

const idsOf = (ref: AssetRef) => ({
  clipId: ref.clipId,
  ...(ref.uploadId ? { uploadId: ref.uploadId } : {}),
});
