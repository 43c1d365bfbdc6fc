import { z } from "zod";
import { isMediaAsset } from "../../composition/schema.ts";
import { captionCues } from "../../transcription/exports.ts";
import { readComposition } from "../edit.ts";
import { resolveUpload, soleUploadClip } from "../references.ts";
import { orderedClips } from "../summary.ts";
import { type ToolContext, ToolError } from "../tool-context.ts";
import { addChapterMarkers } from "./analysis.ts";
import { addCaptionClip } from "./captions-audio.ts";
import { defineTool } from "./define.ts";
import { TextStyleInput } from "./timeline.ts";

/** The transcript of a project upload with sound (id or name), transcribed now if need be. */
export async function transcriptOf(ctx: ToolContext, toolCallId: string, ref: string) {
  if (!ctx.transcription) {
    throw new ToolError("unavailable", "Transcription is not available on this server");
  }
  const upload = await resolveUpload(ctx, ref, ["video", "audio"]);
  const t = await ctx.transcription.transcribe(
    { userId: ctx.userId, uploadId: upload.id, projectId: ctx.projectId },
    (p) => void ctx.emit("tool_progress", { toolCallId, ...p }).catch(() => {}),
    ctx.signal,
  );
  const draft =
    t.quality === "draft" ? " (draft quality: the offline engine gets about a third of the words wrong)" : "";
  return { upload, ...t, note: draft };
}

/** The `transcribe_speech` tool: what it does is its `description`, shown to the model. */
export const transcribeSpeech = defineTool({
  name: "transcribe_speech",
  description:
    "Transcribe the speech of a video or audio upload of the project (id or name). Reuses an earlier transcript of it. Changes nothing; returns the text with times.",
  input: z.object({ upload: z.string().min(1).max(300) }),
  async run(input, { ctx, toolCallId }) {
    const t = await transcriptOf(ctx, toolCallId, input.upload);
    const segments = t.result.segments.map((s) => ({ start: s.start, end: s.end, text: s.text }));
    return {
      summary: `Transcribed ${t.upload.name}: ${segments.length} segments${t.note}`,
      transcriptionId: t.transcriptionId,
      quality: t.quality,
      segments: segments.slice(0, 200),
    };
  },
});

/** The `add_captions_from_speech` tool: what it does is its `description`, shown to the model. */
export const addCaptionsFromSpeech = defineTool({
  name: "add_captions_from_speech",
  description:
    "Caption what is said in a video or audio upload (id or name): transcribes it (or reuses its transcript) and adds a caption clip that takes its cues from that transcription, on a captions track. Without `start` the captions follow the upload's clip on the timeline (its start, length, trim and speed; the first one when it is used twice), else they start at 0; `start` places them there instead. `mode: karaoke` highlights each word as it is spoken.",
  input: z.object({
    upload: z
      .string()
      .min(1)
      .max(300)
      .optional()
      .describe("Upload id or name; default the upload the timeline's video/audio clips play"),
    start: z.number().min(0).optional(),
    mode: z.enum(["static", "karaoke"]).optional(),
    style: TextStyleInput.optional(),
  }),
  async run(input, { ctx, toolCallId }) {
    const upload =
      input.upload ??
      (
        soleUploadClip(await readComposition(ctx), "name the upload to caption", {
          audio: true,
          sameUpload: true,
        }).asset as { uploadId: string }
      ).uploadId;
    const t = await transcriptOf(ctx, toolCallId, upload);
    const cues = captionCues(t.result);
    if (cues.length === 0) throw new ToolError("no_speech", `No speech was recognised in ${t.upload.name}`);
    const clip =
      input.start === undefined
        ? orderedClips(await readComposition(ctx))
            .map((x) => x.clip)
            .find((x) => isMediaAsset(x.asset) && x.asset.uploadId === t.upload.id)
        : undefined;
    return addCaptionClip(ctx, toolCallId, "add_captions_from_speech", {
      source: { transcriptionId: t.transcriptionId },
      cues,
      label: `the speech of ${t.upload.name}${t.note}`,
      placement: clip ? { alignWith: clip, fileName: t.upload.name } : { start: input.start ?? 0 },
      mode: input.mode,
      style: input.style,
    });
  },
});

/** The `make_chapters` tool: what it does is its `description`, shown to the model. */
export const makeChapters = defineTool({
  name: "make_chapters",
  description:
    "Make chapter markers from what is said in a video or audio upload (id or name): transcribes it (or reuses its transcript), finds the topic changes and adds them as timeline markers.",
  input: z.object({
    upload: z.string().min(1).max(300),
    maxChapters: z.number().int().min(1).max(50).optional(),
  }),
  async run(input, { ctx, toolCallId }) {
    const t = await transcriptOf(ctx, toolCallId, input.upload);
    const transcript = t.result.segments.filter((s) => s.text.trim());
    if (transcript.length === 0)
      throw new ToolError("no_speech", `No speech was recognised in ${t.upload.name}`);
    return addChapterMarkers(ctx, toolCallId, "make_chapters", {
      transcript: transcript.map((s) => ({ start: s.start, end: s.end, text: s.text })),
      duration: Math.max(t.result.duration, ...transcript.map((s) => s.end)),
      maxChapters: input.maxChapters,
      label: `${t.upload.name}${t.note}`,
    });
  },
});
