import { z } from "zod";
import { removeSourceRanges, type SourceRange, splitAtSourceTimes } from "../../composition/recut.ts";
import type { Clip, Composition, Track } from "../../composition/schema.ts";
import { ANALYSIS_DEFAULTS } from "../../uploads/analysis.ts";
import { applyEdit, readComposition } from "../edit.ts";
import { findTrackIndex, nameOfClip, resolveClip, soleUploadClip, uploadNamesOf } from "../references.ts";
import { type ToolContext, ToolError } from "../tool-context.ts";
import { defineTool } from "./define.ts";
import { clipRef } from "./timeline.ts";

/** Shortest clip a recut leaves, timeline seconds: anything shorter is cut too. */
const MIN_PIECE_SECONDS = 0.1;

const r3 = (x: number) => Math.round(x * 1000) / 1000;

/** A clip that plays an upload (video or audio), with its upload id. */
type UploadClip = Clip & { asset: { type: "video" | "audio"; uploadId: string } };

function playsUpload(clip: Clip): clip is UploadClip {
  return (clip.asset.type === "video" || clip.asset.type === "audio") && !!clip.asset.uploadId;
}

/** Whether two clips play the same stretch of source at the same place (start, length, trim, speed). */
function inStep(a: Clip, b: Clip): boolean {
  const close = (x: number, y: number) => Math.abs(x - y) < 1e-3;
  return (
    close(a.start, b.start) &&
    close(a.duration, b.duration) &&
    close(a.trim ?? 0, b.trim ?? 0) &&
    close(a.speed ?? 1, b.speed ?? 1)
  );
}

/** The analysis of an upload a clip plays, reported as the tool's progress while it runs. */
async function analysisOf(
  ctx: ToolContext,
  toolCallId: string,
  clip: UploadClip,
  params: { silenceMinDuration?: number; sceneThreshold?: number },
) {
  if (!ctx.analysis) throw new ToolError("unavailable", "Media analysis is not available on this server");
  await ctx.emit("tool_progress", { toolCallId, message: `analysing ${clip.name ?? clip.asset.uploadId}` });
  return ctx.analysis.analyse({ userId: ctx.userId, uploadId: clip.asset.uploadId, params });
}

/**
 * The clips a silence removal works on, all on one track: the named clip, the track's clips
 * that play an upload, or (neither given) those of the lowest video track with uploaded video.
 */
async function silenceTargets(
  ctx: ToolContext,
  c: Composition,
  input: { clip?: string | number | undefined; track?: string | undefined },
): Promise<{ track: Track; clips: UploadClip[] }> {
  if (input.clip !== undefined) {
    const { clip, track } = resolveClip(c, input.clip, await uploadNamesOf(ctx, c));
    if (!playsUpload(clip)) {
      throw new ToolError(
        "wrong_type",
        `Clip ${clip.id} is ${clip.asset.type === "video" || clip.asset.type === "audio" ? "a URL source" : `a ${clip.asset.type} clip`}; silences are found in uploaded video or audio`,
      );
    }
    return { track, clips: [clip] };
  }
  let track: Track | undefined;
  if (input.track !== undefined) {
    track = c.tracks[findTrackIndex(c, input.track)];
    if (!track) throw new ToolError("not_found", `No track "${input.track}"`);
  } else {
    track = c.tracks.filter((t) => t.kind === "video").find((t) => t.clips.some(playsUpload));
    if (!track) throw new ToolError("not_found", "No track has uploaded video; name the clip or the track");
  }
  const clips = track.clips.filter(playsUpload);
  if (clips.length === 0) {
    throw new ToolError("not_found", `Track ${track.id} has no uploaded video or audio clip`);
  }
  return { track, clips };
}

/** The `remove_silences` tool: what it does is its `description`, shown to the model. */
export const removeSilences = defineTool({
  name: "remove_silences",
  description:
    "Cut the silences longer than `longerThan` seconds out of a clip, or of every uploaded video/audio clip of a track (default the lowest track with uploaded video), and close the gaps: later clips on that track move left, markers move with them, and caption clips in step with a recut clip (its speech's captions) are cut the same way; other tracks stay. `keep` seconds of each silence stay next to the sound (default 0.15). Uses the upload's silence analysis (below -35 dBFS).",
  input: z.object({
    clip: clipRef.optional(),
    track: z.string().min(1).max(200).optional().describe("Track id or name"),
    longerThan: z.number().min(0.2).max(60).default(1).describe("Seconds"),
    keep: z.number().min(0).max(2).default(0.15).describe("Seconds kept at each end of a silence"),
  }),
  async run(input, { ctx, toolCallId }) {
    if (input.clip !== undefined && input.track !== undefined) {
      throw new ToolError("invalid_input", "Give clip or track, not both");
    }
    if (2 * input.keep >= input.longerThan) {
      throw new ToolError(
        "invalid_input",
        `keep (${input.keep}s at each end) leaves nothing of a ${input.longerThan}s silence`,
      );
    }
    const first = await silenceTargets(ctx, await readComposition(ctx), input);
    // Silences of each upload, in source seconds, trimmed by `keep` at both ends.
    const silences = new Map<string, SourceRange[]>();
    for (const clip of first.clips) {
      if (silences.has(clip.asset.uploadId)) continue;
      const analysis = await analysisOf(ctx, toolCallId, clip, {
        silenceMinDuration: Math.min(input.longerThan, ANALYSIS_DEFAULTS.silenceMinDuration),
      });
      if (!analysis.silences && first.clips.length === 1) {
        throw new ToolError(
          "no_audio",
          `Clip ${clip.id} plays ${clip.name ?? clip.asset.uploadId}, which has no sound`,
        );
      }
      silences.set(
        clip.asset.uploadId,
        (analysis.silences?.ranges ?? [])
          .filter((s) => s.end - s.start > input.longerThan)
          .map((s) => ({ start: s.start + input.keep, end: s.end - input.keep })),
      );
    }
    const ids = first.clips.map((c) => c.id);
    const names = await uploadNamesOf(ctx, await readComposition(ctx));
    return applyEdit(ctx, toolCallId, "remove_silences", (draft) => {
      const track = draft.tracks.find((t) => t.id === first.track.id);
      const clips = track?.clips.filter((c): c is UploadClip => ids.includes(c.id) && playsUpload(c)) ?? [];
      if (!track || clips.length !== ids.length) {
        throw new ToolError("not_found", "The clips changed meanwhile; read the composition and try again");
      }
      const ranges = new Map(clips.map((c) => [c.id, silences.get(c.asset.uploadId) ?? []]));
      // Caption clips in step with a recut clip (same start, length, trim and speed: captions
      // of its speech) are recut the same way on their own track, so they stay in step.
      const captionTracks = draft.tracks.flatMap((other) => {
        if (other === track) return [];
        const linked = new Map<string, SourceRange[]>();
        for (const caption of other.clips) {
          const media = caption.asset.type === "caption" ? clips.find((c) => inStep(c, caption)) : undefined;
          if (media) linked.set(caption.id, ranges.get(media.id) ?? []);
        }
        return linked.size > 0 ? [{ other, linked }] : [];
      });
      const done = removeSourceRanges(track, draft.markers, ranges, MIN_PIECE_SECONDS);
      for (const { other, linked } of captionTracks)
        removeSourceRanges(other, undefined, linked, MIN_PIECE_SECONDS);
      const what =
        clips.length === 1 && clips[0]
          ? nameOfClip(clips[0], names)
          : `${ids.length} clips of track ${track.name ?? draft.tracks.indexOf(track) + 1}`;
      if (done.cuts === 0) {
        return {
          summary: `No silence longer than ${input.longerThan}s in ${what}`,
          removedSeconds: 0,
          cuts: 0,
        };
      }
      return {
        summary: `Removed ${done.cuts} silence(s) longer than ${input.longerThan}s from ${what}: ${done.removedSeconds}s shorter, later clips moved left${captionTracks.length > 0 ? "; its captions were cut the same way" : ""}`,
        removedSeconds: done.removedSeconds,
        cuts: done.cuts,
        clips: Object.fromEntries(done.pieces),
      };
    });
  },
});

/** The `cut_at_scene_changes` tool: what it does is its `description`, shown to the model. */
export const cutAtSceneChanges = defineTool({
  name: "cut_at_scene_changes",
  description:
    "Split a video clip into consecutive clips at the scene changes (shot cuts) of its upload, as the upload's scene analysis finds them (`threshold` 0..1, default 0.3; lower finds more). Timing is unchanged: each piece plays its part of the source; caption clips in step with the clip (its speech's captions) are cut the same way.",
  input: z.object({
    clip: clipRef.optional().describe("Default: the only clip playing an uploaded video"),
    threshold: z.number().min(0.05).max(1).optional().describe("Scene-change score, default 0.3"),
  }),
  async run(input, { ctx, toolCallId }) {
    const c = await readComposition(ctx);
    const names = await uploadNamesOf(ctx, c);
    const clip =
      input.clip === undefined
        ? soleUploadClip(c, "name the clip to cut")
        : resolveClip(c, input.clip, names).clip;
    const label = nameOfClip(clip, names);
    if (!playsUpload(clip) || clip.asset.type !== "video") {
      throw new ToolError("wrong_type", `Clip ${clip.id} does not play an uploaded video`);
    }
    const analysis = await analysisOf(ctx, toolCallId, clip, {
      sceneThreshold: input.threshold ?? ANALYSIS_DEFAULTS.sceneThreshold,
    });
    const times = (analysis.scenes?.cuts ?? []).map((cut) => cut.time);
    return applyEdit(ctx, toolCallId, "cut_at_scene_changes", (draft) => {
      const track = draft.tracks.find((t) => t.clips.some((x) => x.id === clip.id));
      const current = track?.clips.find((x) => x.id === clip.id);
      if (!track || !current)
        throw new ToolError("not_found", `Clip ${clip.id} is no longer in the composition`);
      // Caption clips in step with it (its speech's captions) are cut at the same times, so a
      // later silence removal finds them in step with each piece.
      const captions = draft.tracks.flatMap((other) =>
        other === track
          ? []
          : other.clips
              .filter((x) => x.asset.type === "caption" && inStep(x, current))
              .map((x) => ({ other, id: x.id })),
      );
      const pieces = splitAtSourceTimes(track, clip.id, times, MIN_PIECE_SECONDS);
      if (pieces.length === 1) {
        return { summary: `No scene change inside ${label}`, clipIds: [clip.id] };
      }
      for (const { other, id } of captions) splitAtSourceTimes(other, id, times, MIN_PIECE_SECONDS);
      return {
        summary: `Cut ${label} at ${pieces.length - 1} scene change(s) into ${pieces.length} clips (at ${pieces
          .slice(1)
          .map((p) => `${r3(p.start)}s`)
          .join(", ")})${captions.length > 0 ? "; its captions were cut the same way" : ""}`,
        clipIds: pieces.map((p) => p.id),
      };
    });
  },
});
