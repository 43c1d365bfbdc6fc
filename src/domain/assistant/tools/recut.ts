import { z } from "zod";
import { FILLERS } from "../../analysis/fillers.ts";
import { splitAtSourceTimes } from "../../composition/recut.ts";
import {
  inStep,
  REMOVE_PAUSES_DEFAULTS,
  type RemovePausesOptions,
  removePauses,
} from "../../composition/remove-pauses.ts";
import type { Clip, Composition, Track } from "../../composition/schema.ts";
import { ANALYSIS_DEFAULTS } from "../../uploads/analysis.ts";
import { applyEdit, readComposition } from "../edit.ts";
import { findTrackIndex, nameOfClip, resolveClip, soleUploadClip, uploadNamesOf } from "../references.ts";
import { type ToolContext, ToolError } from "../tool-context.ts";
import { defineTool } from "./define.ts";
import { transcriptOf } from "./speech.ts";
import { clipRef } from "./timeline.ts";

/** Shortest clip a recut leaves, timeline seconds: anything shorter is cut too. */
const MIN_PIECE_SECONDS = 0.1;

const r3 = (x: number) => Math.round(x * 1000) / 1000;

/** A clip that plays an upload (video or audio), with its upload id. */
type UploadClip = Clip & { asset: { type: "video" | "audio"; uploadId: string } };

function playsUpload(clip: Clip): clip is UploadClip {
  return (clip.asset.type === "video" || clip.asset.type === "audio") && !!clip.asset.uploadId;
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

/** The words of the transcript of `uploadId` (transcribed now if need be) and its language. */
async function wordsOf(ctx: ToolContext, toolCallId: string, uploadId: string) {
  const t = await transcriptOf(ctx, toolCallId, uploadId);
  return {
    words: t.result.segments.flatMap((s) => s.words),
    language: t.result.language,
    note: t.note,
  };
}

/**
 * Cuts the silences and/or fillers of every upload the target clips play (`removePauses`, one
 * upload after the other), as one edit. Silences come from the upload's silence analysis, words
 * (fillers, and speech kept whole) from its transcript when `fillers` is asked.
 */
async function removePausesEdit(
  ctx: ToolContext,
  toolCallId: string,
  tool: string,
  input: {
    clip?: string | number | undefined;
    track?: string | undefined;
    silences: { longerThan: number } | null;
    fillers: boolean;
    pad: number;
  },
) {
  if (input.clip !== undefined && input.track !== undefined) {
    throw new ToolError("invalid_input", "Give clip or track, not both");
  }
  const composition = await readComposition(ctx);
  const first = await silenceTargets(ctx, composition, input);
  const names = await uploadNamesOf(ctx, composition);
  const uploads = new Map<string, RemovePausesOptions>();
  let note = "";
  for (const clip of first.clips) {
    const uploadId = clip.asset.uploadId;
    if (uploads.has(uploadId)) continue;
    let silences: RemovePausesOptions["silences"] = [];
    if (input.silences) {
      const analysis = await analysisOf(ctx, toolCallId, clip, {
        silenceMinDuration: Math.min(input.silences.longerThan, ANALYSIS_DEFAULTS.silenceMinDuration),
      });
      if (!analysis.silences && first.clips.length === 1) {
        throw new ToolError(
          "no_audio",
          `Clip ${clip.id} plays ${clip.name ?? clip.asset.uploadId}, which has no sound`,
        );
      }
      silences = analysis.silences?.ranges ?? [];
    }
    const speech = input.fillers ? await wordsOf(ctx, toolCallId, uploadId) : undefined;
    if (speech) note = speech.note;
    uploads.set(uploadId, {
      uploadId,
      clipIds: first.clips.filter((c) => c.asset.uploadId === uploadId).map((c) => c.id),
      silences,
      removeSilences: input.silences !== null,
      minSilence: input.silences?.longerThan ?? REMOVE_PAUSES_DEFAULTS.minSilence,
      fillers: input.fillers,
      pad: input.pad,
      minPiece: MIN_PIECE_SECONDS,
      ...(speech ? { words: speech.words, language: speech.language } : {}),
    });
  }
  return applyEdit(ctx, toolCallId, tool, (draft) => {
    const total = { silences: { count: 0, seconds: 0 }, fillers: { count: 0, seconds: 0 }, seconds: 0 };
    for (const options of uploads.values()) {
      const present = draft.tracks.flatMap((t) => t.clips).filter((c) => options.clipIds?.includes(c.id));
      if (present.length !== options.clipIds?.length) {
        throw new ToolError("not_found", "The clips changed meanwhile; read the composition and try again");
      }
      const done = removePauses(draft, options);
      draft.tracks = done.composition.tracks;
      if (done.composition.markers) draft.markers = done.composition.markers;
      total.silences.count += done.silences.count;
      total.silences.seconds += done.silences.seconds;
      total.fillers.count += done.fillers.count;
      total.fillers.seconds += done.fillers.seconds;
      total.seconds = r3(total.seconds + done.removed.seconds);
    }
    const what =
      first.clips.length === 1 && first.clips[0]
        ? nameOfClip(first.clips[0], names)
        : `${first.clips.length} clips of track ${first.track.name ?? draft.tracks.findIndex((t) => t.id === first.track.id) + 1}`;
    const parts = [
      ...(total.silences.count > 0 ? [`${total.silences.count} silence(s)`] : []),
      ...(total.fillers.count > 0 ? [`${total.fillers.count} filler(s)`] : []),
    ];
    if (parts.length === 0 || total.seconds === 0) {
      const asked = [
        ...(input.silences ? [`silence longer than ${input.silences.longerThan}s`] : []),
        ...(input.fillers ? ["filler"] : []),
      ].join(" or ");
      return { summary: `No ${asked} in ${what}${note}`, removedSeconds: 0, cuts: 0 };
    }
    return {
      summary: `Removed ${parts.join(" and ")} from ${what}: ${total.seconds}s shorter; later clips, captions and markers moved left${note}`,
      removedSeconds: total.seconds,
      cuts: total.silences.count + total.fillers.count,
      silences: { count: total.silences.count, seconds: r3(total.silences.seconds) },
      fillers: { count: total.fillers.count, seconds: r3(total.fillers.seconds) },
    };
  });
}

const targetInput = {
  clip: clipRef.optional(),
  track: z.string().min(1).max(200).optional().describe("Track id or name"),
};

/** The `remove_silences` tool: what it does is its `description`, shown to the model. */
export const removeSilences = defineTool({
  name: "remove_silences",
  description:
    "Cut the silences longer than `longerThan` seconds out of a clip, or of every uploaded video/audio clip of a track (default the lowest track with uploaded video), and close the gaps: later clips move left on every track (music and titles are shortened by what was cut under them), markers move with them, and caption clips in step with a recut clip (its speech's captions) are cut the same way. `keep` seconds of each silence stay next to the sound (default 0.15). Uses the upload's silence analysis (below -35 dBFS). `fillers: true` also cuts the hesitations (um, uh, erm…) found in its transcript (transcribed now if need be), as remove_fillers does.",
  input: z.object({
    ...targetInput,
    longerThan: z.number().min(0.2).max(60).default(1).describe("Seconds"),
    keep: z.number().min(0).max(2).default(0.15).describe("Seconds kept at each end of a silence"),
    fillers: z.boolean().default(false).describe("Also cut the fillers (um, uh…)"),
  }),
  async run(input, { ctx, toolCallId }) {
    if (2 * input.keep >= input.longerThan) {
      throw new ToolError(
        "invalid_input",
        `keep (${input.keep}s at each end) leaves nothing of a ${input.longerThan}s silence`,
      );
    }
    return removePausesEdit(ctx, toolCallId, "remove_silences", {
      clip: input.clip,
      track: input.track,
      silences: { longerThan: input.longerThan },
      fillers: input.fillers,
      pad: input.keep,
    });
  },
});

/** The `remove_fillers` tool: what it does is its `description`, shown to the model. */
export const removeFillers = defineTool({
  name: "remove_fillers",
  description: `Cut the spoken fillers (hesitations: ${FILLERS.en?.join(", ")} in English; also German, French, Spanish, Dutch and Italian) out of a clip, or of every uploaded video/audio clip of a track (default the lowest track with uploaded video), found in the transcript of its upload (transcribed now if need be), with the pause before each down to \`keep\` seconds; the gaps close as with remove_silences (later clips, captions and markers move left). Words that carry meaning ("like", "you know") are never cut.`,
  input: z.object({
    ...targetInput,
    keep: z.number().min(0).max(1).default(0.15).describe("Seconds kept next to the words around a filler"),
  }),
  async run(input, { ctx, toolCallId }) {
    return removePausesEdit(ctx, toolCallId, "remove_fillers", {
      clip: input.clip,
      track: input.track,
      silences: null,
      fillers: true,
      pad: input.keep,
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
