import { z } from "zod";
import type { Clip, Composition, Track } from "../../composition/schema.ts";
import { sourceRate, TRANSITION_TYPES } from "../../composition/schema.ts";
import { applyEdit, readComposition } from "../edit.ts";
import { type ClipRef, nameOfClip, resolveClip, resolveUpload, uploadNamesOf } from "../references.ts";
import { type ToolContext, ToolError } from "../tool-context.ts";
import { defineTool } from "./define.ts";
import { freeTrack, isFree, mainVideoTrack, trackEnd } from "./tracks.ts";

const seconds = (what: string) => z.number().min(0).max(86_400).describe(`${what}, seconds`);
/** How tools take a clip: id, summary number or source name. */
export const clipRef = z
  .union([z.string().min(1).max(200), z.number().int().min(1)])
  .describe("The clip: its id (clp_…), its number in get_composition, or its source name");

const r3 = (x: number) => Math.round(x * 1000) / 1000;

/** Resolves a clip in a draft with the upload names of that draft; `label` names it for replies. */
async function clipIn(ctx: ToolContext, draft: Composition, ref: ClipRef) {
  const names = await uploadNamesOf(ctx, draft);
  const found = resolveClip(draft, ref, names);
  return { ...found, label: nameOfClip(found.clip, names) };
}

/** Seconds of source material a media clip may use from `trim` on; undefined when unbounded. */
function sourceLeft(clip: Clip, mediaDuration: number | null | undefined): number | undefined {
  if (mediaDuration == null) return undefined;
  return Math.max(0, mediaDuration - (clip.trim ?? 0));
}

/** Shifts clips of `track` starting at or after `from` by `by` seconds (ripple). */
function ripple(track: Track, from: number, by: number, except?: string): void {
  for (const c of track.clips) if (c.id !== except && c.start >= from - 1e-6) c.start = r3(c.start + by);
}

/** The `add_clip` tool: what it does is its `description`, shown to the model. */
export const addClip = defineTool({
  name: "add_clip",
  description:
    "Put an upload (video, image or audio) on the timeline. Position: `start` seconds, or `after` a clip (later clips on that track move right to make room), default the end of the track. Video and images go on the main picture track, audio on an audio track.",
  input: z.object({
    upload: z.string().min(1).max(300).describe("Upload id (upl_…) or name"),
    start: seconds("Timeline start").optional(),
    after: clipRef.optional(),
    duration: z
      .number()
      .positive()
      .max(86_400)
      .optional()
      .describe("Seconds; default the media length (5 for images)"),
    trim: seconds("Source in-point").optional(),
    track: z.string().optional().describe("Track id or name to place it on"),
  }),
  async run(input, { ctx, toolCallId }) {
    const upload = await resolveUpload(ctx, input.upload, ["video", "image", "audio"]);
    const type = upload.type as "video" | "image" | "audio";
    return applyEdit(ctx, toolCallId, "add_clip", async (draft) => {
      let track: Track;
      let start = input.start;
      if (input.after !== undefined) {
        const ref = await clipIn(ctx, draft, input.after);
        track = ref.track;
        start = ref.clip.start + ref.clip.duration;
      } else if (input.track) {
        const t = draft.tracks.find((x) => x.id === input.track || x.name === input.track);
        if (!t) throw new ToolError("not_found", `No track "${input.track}"`);
        track = t;
      } else if (type === "audio") {
        track = freeTrack(draft, "audio", "Audio", start ?? 0, start ?? 0);
      } else {
        track = mainVideoTrack(draft);
      }
      start = start ?? trackEnd(track);
      const trim = input.trim ?? 0;
      const mediaLeft = upload.media?.duration != null ? upload.media.duration - trim : undefined;
      if (mediaLeft !== undefined && mediaLeft <= 0) {
        throw new ToolError(
          "invalid_input",
          `trim ${trim}s is past the end of ${upload.name} (${upload.media?.duration}s)`,
        );
      }
      const duration = r3(input.duration ?? mediaLeft ?? 5);
      const inside = track.clips.find((c) => c.start < start - 1e-6 && c.start + c.duration > start + 1e-6);
      if (inside) {
        throw new ToolError(
          "overlap",
          `${start}s falls inside ${nameOfClip(inside, await uploadNamesOf(ctx, draft))} (${inside.start}–${r3(inside.start + inside.duration)}s); split it first or pick another time`,
        );
      }
      ripple(track, start, duration);
      const clip = {
        name: upload.name,
        start: r3(start),
        duration,
        asset: { type, uploadId: upload.id },
        ...(trim > 0 ? { trim } : {}),
      } as Clip;
      track.clips.push(clip);
      return {
        summary: `Added ${upload.name} at ${r3(start)}s for ${duration}s`,
        uploadId: upload.id,
        start: r3(start),
        duration,
      };
    });
  },
});

/** The `trim_clip` tool: what it does is its `description`, shown to the model. */
export const trimClip = defineTool({
  name: "trim_clip",
  description:
    "Change which part of the source a clip plays: `in` and/or `out` are source times (seconds into the media), or give the new timeline `duration`. The clip keeps its start.",
  input: z.object({
    clip: clipRef,
    in: seconds("Source in-point").optional(),
    out: seconds("Source out-point").optional(),
    duration: z.number().positive().max(86_400).optional().describe("New length on the timeline, seconds"),
  }),
  async run(input, { ctx, toolCallId }) {
    if (input.in === undefined && input.out === undefined && input.duration === undefined) {
      throw new ToolError("invalid_input", "Give in, out or duration");
    }
    const first = await readComposition(ctx);
    const { clip: c0 } = await clipIn(ctx, first, input.clip);
    const uploadId = (c0.asset as { uploadId?: string }).uploadId;
    const media = uploadId ? (await resolveUpload({ ...ctx, projectId: null }, uploadId)).media : null;
    return applyEdit(ctx, toolCallId, "trim_clip", async (draft) => {
      const { clip, label } = await clipIn(ctx, draft, c0.id);
      const speed = clip.speed ?? 1;
      const isMedia = clip.asset.type === "video" || clip.asset.type === "audio";
      const inPoint = input.in ?? clip.trim ?? 0;
      if (input.in !== undefined && isMedia) clip.trim = input.in;
      let duration = input.duration ?? clip.duration;
      if (input.out !== undefined) {
        if (!(input.out > inPoint))
          throw new ToolError("invalid_input", `out (${input.out}s) must be after in (${inPoint}s)`);
        duration = (input.out - inPoint) / speed;
      }
      const left = isMedia ? sourceLeft(clip, media?.duration) : undefined;
      // A frozen clip holds one frame however long it lasts.
      if (left !== undefined && !clip.freeze && duration * speed > left + 1e-3) {
        throw new ToolError(
          "out_of_range",
          `The source has only ${r3(left)}s after the in-point ${inPoint}s; the clip can last at most ${r3(left / speed)}s`,
        );
      }
      clip.duration = r3(duration);
      return {
        summary: `Trimmed ${label}: in ${r3(inPoint)}s, ${r3(duration)}s long`,
        clipId: clip.id,
        trim: r3(inPoint),
        duration: r3(duration),
      };
    });
  },
});

/** The `move_clip` tool: what it does is its `description`, shown to the model. */
export const moveClip = defineTool({
  name: "move_clip",
  description:
    "Move a clip to a new `start` (seconds) or right `after` another clip, optionally onto another `track`.",
  input: z.object({
    clip: clipRef,
    start: seconds("New timeline start").optional(),
    after: clipRef.optional(),
    track: z.string().optional().describe("Track id or name to move it to"),
  }),
  async run(input, { ctx, toolCallId }) {
    if (input.start === undefined && input.after === undefined) {
      throw new ToolError("invalid_input", "Give start or after");
    }
    return applyEdit(ctx, toolCallId, "move_clip", async (draft) => {
      const { clip, track, label } = await clipIn(ctx, draft, input.clip);
      let target = track;
      let start = input.start ?? 0;
      if (input.after !== undefined) {
        const ref = await clipIn(ctx, draft, input.after);
        if (ref.clip.id === clip.id) throw new ToolError("invalid_input", "A clip cannot follow itself");
        target = ref.track;
        start = ref.clip.start + ref.clip.duration;
      }
      if (input.track) {
        const t = draft.tracks.find((x) => x.id === input.track || x.name === input.track);
        if (!t) throw new ToolError("not_found", `No track "${input.track}"`);
        target = t;
      }
      track.clips = track.clips.filter((c) => c.id !== clip.id);
      if (input.after !== undefined && !isFree(target, start, start + clip.duration, clip.id)) {
        ripple(target, start, clip.duration);
      }
      clip.start = r3(start);
      target.clips.push(clip);
      return { summary: `Moved ${label} to ${r3(start)}s`, clipId: clip.id, start: r3(start) };
    });
  },
});

/** The `split_clip` tool: what it does is its `description`, shown to the model. */
export const splitClip = defineTool({
  name: "split_clip",
  description: "Cut a clip in two at a timeline time `at` (seconds, strictly inside the clip).",
  input: z.object({ clip: clipRef, at: seconds("Timeline time of the cut") }),
  async run(input, { ctx, toolCallId }) {
    return applyEdit(ctx, toolCallId, "split_clip", async (draft) => {
      const { clip, track, label } = await clipIn(ctx, draft, input.clip);
      const offset = input.at - clip.start;
      if (!(offset > 1e-3 && offset < clip.duration - 1e-3)) {
        throw new ToolError(
          "out_of_range",
          `${input.at}s is not inside ${label} (${clip.start}–${r3(clip.start + clip.duration)}s)`,
        );
      }
      const { id: _id, transition: _t, fadeIn: _fi, ...rest } = structuredClone(clip);
      const second = { ...rest, start: r3(input.at), duration: r3(clip.duration - offset) } as Clip;
      if (clip.asset.type === "video" || clip.asset.type === "audio") {
        // A frozen clip's halves hold the same frame.
        second.trim = r3((clip.trim ?? 0) + offset * sourceRate(clip));
      }
      clip.duration = r3(offset);
      delete clip.fadeOut;
      track.clips.push(second);
      return { summary: `Split ${label} at ${input.at}s`, clipId: clip.id, at: input.at };
    });
  },
});

/** The `delete_clip` tool: what it does is its `description`, shown to the model. */
export const deleteClip = defineTool({
  name: "delete_clip",
  description: "Remove a clip. With `ripple: true` later clips on its track move left to close the gap.",
  input: z.object({ clip: clipRef, ripple: z.boolean().optional() }),
  async run(input, { ctx, toolCallId }) {
    return applyEdit(ctx, toolCallId, "delete_clip", async (draft) => {
      const { clip, track, label } = await clipIn(ctx, draft, input.clip);
      track.clips = track.clips.filter((c) => c.id !== clip.id);
      if (input.ripple) ripple(track, clip.start + clip.duration, -clip.duration);
      return { summary: `Deleted ${label}`, clipId: clip.id };
    });
  },
});

/** Text style overrides a tool accepts (family, size in px at the canvas height, colour, weight, italic). */
const TextStyleInput = z
  .object({
    family: z.string().min(1).max(100).optional(),
    size: z.number().positive().max(1000).optional().describe("Pixels at the canvas height"),
    color: z
      .string()
      .regex(/^#[0-9a-fA-F]{6}([0-9a-fA-F]{2})?$/)
      .optional(),
    weight: z.number().int().min(100).max(900).optional(),
    italic: z.boolean().optional(),
  })
  .strict();

/** The text style of titles and captions: white DejaVu Sans with a dark outline, overridable. */
export function textStyle(
  input: z.infer<typeof TextStyleInput> | undefined,
  valign: "top" | "center" | "bottom",
  size: number,
) {
  return {
    family: "DejaVu Sans",
    size,
    color: "#ffffff",
    align: "center" as const,
    valign,
    stroke: { color: "#000000", width: 3 },
    ...input,
  };
}
export { TextStyleInput };

/** The `add_text` tool: what it does is its `description`, shown to the model. */
export const addText = defineTool({
  name: "add_text",
  description:
    "Show a title or text from `start` for `duration` seconds on an overlay track above the picture. `position`: top, center or bottom (default center).",
  input: z.object({
    text: z.string().min(1).max(2000),
    start: seconds("Timeline start"),
    duration: z.number().positive().max(86_400).describe("Seconds"),
    style: TextStyleInput.optional(),
    position: z.enum(["top", "center", "bottom"]).optional(),
  }),
  async run(input, { ctx, toolCallId }) {
    return applyEdit(ctx, toolCallId, "add_text", (draft) => {
      const track = freeTrack(draft, "video", "Text", input.start, input.start + input.duration);
      const size = Math.round(draft.canvas.height / 12);
      track.clips.push({
        start: input.start,
        duration: input.duration,
        asset: {
          type: "text",
          text: input.text,
          style: textStyle(input.style, input.position ?? "center", size),
        },
      } as Clip);
      return {
        summary: `Added text "${input.text}" at ${input.start}s for ${input.duration}s`,
        start: input.start,
        duration: input.duration,
      };
    });
  },
});

/** Clips of picture tracks that start exactly where the previous clip on their track ends. */
function cuts(c: Composition): { clip: Clip; previous: Clip }[] {
  const out: { clip: Clip; previous: Clip }[] = [];
  for (const t of c.tracks) {
    if (t.kind !== "video" && t.kind !== "audio") continue;
    const clips = [...t.clips]
      .filter((x) => x.asset.type !== "text" && x.asset.type !== "caption")
      .sort((a, b) => a.start - b.start);
    for (let i = 1; i < clips.length; i++) {
      const prev = clips[i - 1] as Clip;
      const clip = clips[i] as Clip;
      if (Math.abs(prev.start + prev.duration - clip.start) < 1e-3) out.push({ clip, previous: prev });
    }
  }
  return out;
}

/** The `add_transition` tool: what it does is its `description`, shown to the model. */
export const addTransition = defineTool({
  name: "add_transition",
  description:
    "Add a transition into a clip, centred on the cut with the clip before it (they must touch). Name the `clip` it leads into, or `between` two clips, or `all: true` for every cut. Types are ffmpeg xfade names (fade or dissolve = crossfade, wipeleft, slideleft, circleopen…; pixeldissolve = random-pixel dissolve).",
  input: z.object({
    clip: clipRef.optional(),
    between: z.tuple([clipRef, clipRef]).optional(),
    all: z.boolean().optional(),
    type: z.enum(TRANSITION_TYPES).default("fade"),
    duration: z.number().positive().max(10).default(0.5).describe("Seconds"),
  }),
  async run(input, { ctx, toolCallId }) {
    return applyEdit(ctx, toolCallId, "add_transition", async (draft) => {
      const all = cuts(draft);
      let targets: Clip[];
      if (input.all) {
        targets = all.map((x) => x.clip);
        if (targets.length === 0)
          throw new ToolError("no_cuts", "The composition has no cuts (no clips that touch)");
      } else {
        let intoId: string;
        if (input.between) {
          const a = await clipIn(ctx, draft, input.between[0]);
          const b = await clipIn(ctx, draft, input.between[1]);
          intoId = a.clip.start <= b.clip.start ? b.clip.id : a.clip.id;
        } else if (input.clip !== undefined) {
          intoId = (await clipIn(ctx, draft, input.clip)).clip.id;
        } else {
          throw new ToolError("invalid_input", "Give clip, between or all");
        }
        const cut = all.find((x) => x.clip.id === intoId);
        if (!cut)
          throw new ToolError("no_cut", `Clip ${intoId} does not start where another clip on its track ends`);
        targets = [cut.clip];
      }
      for (const clip of targets) clip.transition = { type: input.type, duration: input.duration };
      return {
        summary: `Added ${input.type} (${input.duration}s) into ${targets.length} clip(s)`,
        clipIds: targets.map((c) => c.id),
      };
    });
  },
});
