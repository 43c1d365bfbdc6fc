import { z } from "zod";
import { clipLabel } from "../../composition/clip-label.ts";
import type { Clip, Track } from "../../composition/schema.ts";
import { applyEdit } from "../edit.ts";
import { findTrackIndex, nameOfClip, resolveClip, uploadNamesOf } from "../references.ts";
import { type ToolContext, ToolError } from "../tool-context.ts";
import { defineTool } from "./define.ts";
import { pickSubtitleUpload, readCues } from "./subtitles.ts";
import { TextStyleInput, textStyle } from "./timeline.ts";
import { freeTrack } from "./tracks.ts";

const Cue = z.object({ start: z.number().min(0), end: z.number().min(0), text: z.string().max(2000) });

/** The `add_captions` tool: what it does is its `description`, shown to the model. */
export const addCaptions = defineTool({
  name: "add_captions",
  description:
    "Add captions on a track above the picture, from a subtitle upload (SRT/WebVTT; id or name; default the project's only one) or from `cues` (seconds). `start` shifts them on the timeline (default 0).",
  input: z.object({
    upload: z.string().min(1).max(300).optional(),
    cues: z.array(Cue).min(1).max(10_000).optional(),
    start: z.number().min(0).default(0),
    mode: z.enum(["static", "karaoke"]).optional(),
    style: TextStyleInput.optional(),
  }),
  async run(input, { ctx, toolCallId }) {
    let source: { uploadId: string } | { cues: z.infer<typeof Cue>[] };
    let cues: { end: number }[];
    let label: string;
    if (input.cues) {
      source = { cues: input.cues };
      cues = input.cues;
      label = `${input.cues.length} cues`;
    } else {
      const upload = await pickSubtitleUpload(ctx, input.upload);
      cues = await readCues(ctx, upload);
      source = { uploadId: upload.id };
      label = upload.name;
    }
    return addCaptionClip(ctx, toolCallId, "add_captions", {
      source,
      cues,
      label,
      placement: { start: input.start },
      mode: input.mode,
      style: input.style,
    });
  },
});

/** Where a caption clip goes: a timeline `start`, or in step with a clip of the media it captions. */
export type CaptionPlacement =
  | { start: number }
  /** The clip's start, length, trim and speed, so each cue shows when its words are heard. */
  | {
      alignWith: Pick<Clip, "id" | "start" | "duration" | "trim" | "speed" | "name" | "asset">;
      /** The file name of the media it captions, to name the clip in the reply. */
      fileName?: string;
    };

/**
 * Adds one caption clip on a free track above the picture: at `start`, as long as its cues, or
 * in step with a clip of the captioned media (same start, length, trim and speed).
 * @param tool - the tool name recorded with the edit.
 */
export function addCaptionClip(
  ctx: ToolContext,
  toolCallId: string,
  tool: string,
  c: {
    source:
      | { uploadId: string }
      | { cues: { start: number; end: number; text: string }[] }
      | { transcriptionId: string };
    cues: { end: number }[];
    label: string;
    placement: CaptionPlacement;
    mode: "static" | "karaoke" | undefined;
    style: z.infer<typeof TextStyleInput> | undefined;
  },
) {
  const timing =
    "alignWith" in c.placement
      ? {
          start: c.placement.alignWith.start,
          duration: c.placement.alignWith.duration,
          ...(c.placement.alignWith.trim ? { trim: c.placement.alignWith.trim } : {}),
          ...(c.placement.alignWith.speed && c.placement.alignWith.speed !== 1
            ? { speed: c.placement.alignWith.speed }
            : {}),
        }
      : { start: c.placement.start, duration: Math.max(...c.cues.map((cue) => cue.end)) };
  const { start, duration } = timing;
  const where =
    "alignWith" in c.placement
      ? ` in step with ${clipLabel(c.placement.alignWith, c.placement.fileName)}`
      : "";
  return applyEdit(ctx, toolCallId, tool, (draft) => {
    const track = freeTrack(draft, "video", "Captions", start, start + duration);
    const size = Math.round(draft.canvas.height / 20);
    track.clips.push({
      ...timing,
      asset: {
        type: "caption",
        style: textStyle(c.style, "bottom", size),
        ...(c.mode ? { mode: c.mode } : {}),
        source: c.source,
      },
    } as Clip);
    return { summary: `Added captions from ${c.label}${where} (${Math.round(duration)}s)`, start, duration };
  });
}

const SPEECH_NAMES = /voice|speech|dialog|narrat|vo\b|interview/i;

/** The track that carries music: named so, else the only audio track. */
function musicTrack(tracks: Track[]): Track | undefined {
  const audio = tracks.filter((t) => t.kind === "audio");
  return (
    audio.find((t) => /music|song|soundtrack|score/i.test(t.name ?? "")) ??
    (audio.length === 1 ? audio[0] : undefined)
  );
}

/** The `set_volume` tool: what it does is its `description`, shown to the model. */
export const setVolume = defineTool({
  name: "set_volume",
  description:
    'Set the volume of a track (`track`: id, name, or "music") or of one clip: linear `gain` (1 = unchanged, 0.5 ≈ −6 dB), `fadeIn`/`fadeOut` seconds on its clips, `mute`, and `duckUnder` (track ids/names, or "speech" for every other track with sound) to lower it while those play.',
  input: z.object({
    track: z.string().min(1).max(200).optional(),
    clip: z.union([z.string(), z.number().int().min(1)]).optional(),
    gain: z.number().min(0).max(4).optional(),
    fadeIn: z.number().min(0).max(60).optional(),
    fadeOut: z.number().min(0).max(60).optional(),
    mute: z.boolean().optional(),
    duckUnder: z.union([z.literal("speech"), z.array(z.string()).min(1)]).optional(),
    duckAmountDb: z.number().min(0).max(40).optional(),
  }),
  async run(input, { ctx, toolCallId }) {
    return applyEdit(ctx, toolCallId, "set_volume", async (draft) => {
      if (input.clip !== undefined) {
        const names = await uploadNamesOf(ctx, draft);
        const { clip } = resolveClip(draft, input.clip, names);
        if (input.gain !== undefined) clip.volume = input.gain;
        if (input.mute !== undefined) clip.muted = input.mute;
        if (input.fadeIn !== undefined) clip.fadeIn = input.fadeIn;
        if (input.fadeOut !== undefined) clip.fadeOut = input.fadeOut;
        return { summary: `Set the sound of ${nameOfClip(clip, names)}`, clipId: clip.id };
      }
      const ref = input.track ?? "music";
      const track =
        ref.toLowerCase() === "music" && findTrackIndex(draft, ref) < 0
          ? musicTrack(draft.tracks)
          : draft.tracks[findTrackIndex(draft, ref)];
      if (!track) {
        throw new ToolError(
          "not_found",
          `No track "${ref}"; tracks: ${draft.tracks.map((t) => `${t.id}${t.name ? ` (${t.name})` : ""} ${t.kind}`).join(", ")}`,
        );
      }
      const done: string[] = [];
      if (input.gain !== undefined) {
        track.volume = input.gain;
        done.push(`gain ${input.gain}`);
      }
      if (input.mute !== undefined) {
        track.muted = input.mute;
        done.push(input.mute ? "muted" : "unmuted");
      }
      const sorted = [...track.clips].sort((a, b) => a.start - b.start);
      if (input.fadeIn !== undefined && sorted[0]) {
        sorted[0].fadeIn = input.fadeIn;
        done.push(`fade in ${input.fadeIn}s`);
      }
      const last = sorted[sorted.length - 1];
      if (input.fadeOut !== undefined && last) {
        last.fadeOut = input.fadeOut;
        done.push(`fade out ${input.fadeOut}s`);
      }
      if (input.duckUnder !== undefined) {
        const others = draft.tracks.filter((t) => t !== track);
        const under =
          input.duckUnder === "speech"
            ? others.filter(
                (t) =>
                  SPEECH_NAMES.test(t.name ?? "") ||
                  t.clips.some(
                    (c) => c.asset.type === "video" || (t.kind === "audio" && c.asset.type === "audio"),
                  ),
              )
            : input.duckUnder.map((r) => {
                const i = findTrackIndex(draft, r);
                if (i < 0) throw new ToolError("not_found", `No track "${r}" to duck under`);
                return draft.tracks[i] as Track;
              });
        const ids = under.filter((t) => t.id).map((t) => t.id);
        if (ids.length === 0) throw new ToolError("not_found", "No other track with sound to duck under");
        track.ducking = {
          under: ids,
          ...(input.duckAmountDb !== undefined ? { amountDb: input.duckAmountDb } : {}),
        };
        done.push(`ducks under ${ids.join(", ")}`);
      }
      if (done.length === 0)
        throw new ToolError("invalid_input", "Give gain, mute, fadeIn, fadeOut or duckUnder");
      return { summary: `Track ${track.id}: ${done.join(", ")}`, trackId: track.id };
    });
  },
});
