import { setTimeout as sleep } from "node:timers/promises";
import { z } from "zod";
import { findAutoeditById } from "../../../db/repositories/autoedits.ts";
import { listUploadsPage } from "../../../db/repositories/uploads.ts";
import { cancelAutoedit, isAutoeditFinished, requestAutoedit } from "../../autoedit/autoedits.ts";
import { AUTOEDIT_ASPECT_RATIOS } from "../../autoedit/types.ts";
import { isMediaAsset } from "../../composition/schema.ts";
import { readComposition } from "../edit.ts";
import { resolveUpload } from "../references.ts";
import { type ToolContext, ToolError } from "../tool-context.ts";
import { defineTool } from "./define.ts";

/** How often the tool re-reads the auto-edit it waits for, ms. */
const POLL_MS = 500;

/**
 * The uploads to auto-edit: the one named, else those the session's composition plays as video,
 * else the project's videos with sound (newest first, at most 10).
 */
async function sourceUploads(ctx: ToolContext, ref: string | undefined): Promise<string[]> {
  if (ref !== undefined) return [(await resolveUpload(ctx, ref, ["video"])).id];
  const c = await readComposition(ctx);
  const played = [
    ...new Set(
      c.tracks.flatMap((t) =>
        t.clips.flatMap((x) =>
          isMediaAsset(x.asset) && x.asset.type === "video" && x.asset.uploadId ? [x.asset.uploadId] : [],
        ),
      ),
    ),
  ];
  if (played.length > 0) return played.slice(0, 10);
  const { rows } = await listUploadsPage(ctx.db, {
    userId: ctx.userId,
    projectId: ctx.projectId ?? undefined,
    type: "video",
    limit: 100,
    afterId: undefined,
  });
  const videos = rows.filter((u) => u.media?.hasAudio).map((u) => u.id);
  if (videos.length === 0)
    throw new ToolError("not_found", "No video with sound in the project to auto-edit");
  return videos.slice(0, 10);
}

/** The `auto_edit` tool: what it does is its `description`, shown to the model. */
export const autoEdit = defineTool({
  name: "auto_edit",
  description:
    "Make short clips from a long recording, as new compositions in the project (the session's composition is not changed): the same job as POST /api/v1/autoedit. Transcribes the video (or reuses its transcript), ranks candidate stretches of whole sentences no longer than `maxDuration` seconds, and builds the best `count` as compositions, one version per step: cut, reframe to `aspectRatio` (9:16 vertical, 1:1 square, 16:9) following the faces, karaoke captions from speech, silences and fillers removed, the loudness target, `music` (an audio upload) ducked under the speech. Waits for the job; returns the candidates and the compositions' ids.",
  input: z.object({
    upload: z
      .string()
      .min(1)
      .max(300)
      .optional()
      .describe("Video upload id or name; default the composition's video"),
    aspectRatio: z.enum(AUTOEDIT_ASPECT_RATIOS).optional(),
    maxDuration: z.number().min(5).max(600).optional().describe("Seconds, default 60"),
    count: z.number().int().min(1).max(10).optional().describe("Clips to make, default 1"),
    captions: z.boolean().optional(),
    removeSilences: z.boolean().optional(),
    music: z.string().min(1).max(300).optional().describe("Audio upload id or name for a music bed"),
    prompt: z.string().max(2000).optional().describe("What the clips should be about"),
  }),
  async run(input, { ctx, toolCallId }) {
    const uploadIds = await sourceUploads(ctx, input.upload);
    const music = input.music ? await resolveUpload(ctx, input.music, ["audio"]) : undefined;
    const row = await requestAutoedit(
      { db: ctx.db, clock: { now: ctx.now }, enqueue: ctx.enqueue },
      ctx.userId,
      {
        uploadIds,
        ...(ctx.projectId ? { projectId: ctx.projectId } : {}),
        target: {
          ...(input.aspectRatio ? { aspectRatio: input.aspectRatio } : {}),
          ...(input.maxDuration !== undefined ? { maxDuration: input.maxDuration } : {}),
          count: input.count ?? 1,
        },
        ...(input.captions !== undefined ? { captions: input.captions } : {}),
        ...(input.removeSilences !== undefined ? { removeSilences: input.removeSilences } : {}),
        ...(music ? { musicUploadId: music.id } : {}),
        ...(input.prompt ? { prompt: input.prompt } : {}),
      },
    );
    try {
      for (;;) {
        const now = await findAutoeditById(ctx.db, row.id);
        if (!now) throw new ToolError("not_found", `Auto-edit ${row.id} is gone`);
        if (isAutoeditFinished(now)) {
          if (now.status !== "succeeded" || !now.result) {
            throw new ToolError(
              now.error?.code ?? now.status,
              `The auto-edit ${now.status}: ${now.error?.message ?? "cancelled"}`,
            );
          }
          const r = now.result;
          return {
            summary: `Made ${r.compositions.length} composition(s) from the best of ${r.candidates.length} candidate(s): ${r.compositions
              .map(
                (c) =>
                  `${c.id} "${r.candidates[c.candidate]?.title ?? ""}" (${c.steps.map((s) => s.summary).join("; ")})`,
              )
              .join(
                ", ",
              )}${r.skipped.length ? `. Not done: ${r.skipped.map((s) => s.reason).join("; ")}` : ""}`,
            autoeditId: now.id,
            compositions: r.compositions.map((c) => ({
              id: c.id,
              candidate: r.candidates[c.candidate],
              steps: c.steps,
            })),
          };
        }
        await ctx.emit("tool_progress", {
          toolCallId,
          progress: now.progress ?? 0,
          message: `auto-edit ${now.id} ${now.stage ?? now.status}`,
        });
        await sleep(POLL_MS, undefined, { signal: ctx.signal });
      }
    } catch (err) {
      if (ctx.signal.aborted)
        await cancelAutoedit({ db: ctx.db, clock: { now: ctx.now } }, ctx.userId, row.id).catch(() => {});
      throw err;
    }
  },
});
