import { setTimeout as sleep } from "node:timers/promises";
import { z } from "zod";
import { findRender, TERMINAL_STATUSES } from "../../../db/repositories/renders.ts";
import type { Clip } from "../../composition/schema.ts";
import type { OutputFormat } from "../../render/types.ts";
import { cancelRender } from "../../render-jobs/cancel-render.ts";
import { startRender } from "../../render-jobs/start-render.ts";
import { applyEdit, readComposition } from "../edit.ts";
import { resolveClip, resolveUpload, uploadNamesOf } from "../references.ts";
import { type ToolContext, ToolError } from "../tool-context.ts";
import { defineTool } from "./define.ts";
import { mainVideoTrack } from "./tracks.ts";

const Place = z
  .object({
    start: z.number().min(0).describe("Timeline start, seconds"),
    duration: z.number().positive().max(3600).optional().describe("Seconds (default 5 for images)"),
  })
  .describe("Put the result on the main picture track");

/** Starts a generation and waits for it with `tool_progress` events; returns its upload ids. */
async function generate(
  ctx: ToolContext,
  toolCallId: string,
  input: { kind: "image" | "video"; prompt: string; imageUploadId?: string },
): Promise<string[]> {
  const g = ctx.generation;
  if (!g) throw new ToolError("unavailable", "generation is not available on this server");
  let paid = false;
  // Paid vendor generations are capped per run (and counted against the account's allowance
  // like any generation); a refusal is the tool's result, so the run's events say so.
  if (await g.paid({ userId: ctx.userId, kind: input.kind })) {
    const { started, max } = ctx.paidGenerations;
    if (started >= max) {
      throw new ToolError(
        "run_generation_limit",
        `This request already started ${started} paid generations, the most one assistant request may (ASSISTANT_MAX_PAID_GENERATIONS_PER_RUN=${max}); ask again in a new request to generate more`,
      );
    }
    ctx.paidGenerations.started += 1;
    paid = true;
  }
  const { generationId } = await g
    .start({
      userId: ctx.userId,
      projectId: ctx.projectId,
      ...input,
      idempotencyKey: `${ctx.runId}:${toolCallId}`,
    })
    .catch((err: unknown) => {
      // Not started (e.g. the account's allowance refused it): it does not count for the run.
      if (paid) ctx.paidGenerations.started -= 1;
      throw err;
    });
  await ctx.emit("tool_progress", { toolCallId, progress: 0, message: `generation ${generationId} started` });
  const { uploadIds } = await g.wait(
    { userId: ctx.userId, generationId },
    (p) => void ctx.emit("tool_progress", { toolCallId, ...p }),
    ctx.signal,
  );
  if (uploadIds.length === 0) throw new ToolError("generation_failed", "The generation returned nothing");
  return uploadIds;
}

/** Places a generated upload on the main picture track at `place.start`. */
async function place(
  ctx: ToolContext,
  toolCallId: string,
  tool: string,
  uploadId: string,
  at: z.infer<typeof Place>,
) {
  const upload = await resolveUpload({ ...ctx, projectId: null }, uploadId);
  const type = upload.type as "image" | "video";
  const duration = at.duration ?? upload.media?.duration ?? 5;
  return applyEdit(ctx, toolCallId, tool, (draft) => {
    mainVideoTrack(draft).clips.push({
      name: upload.name,
      start: at.start,
      duration,
      asset: { type, uploadId: upload.id },
    } as Clip);
    return { placedAt: at.start };
  });
}

/** The `generate_image` tool: what it does is its `description`, shown to the model. */
export const generateImage = defineTool({
  name: "generate_image",
  description:
    "Generate an image from a text prompt (an upload of the project when done); with `place`, also put it on the timeline.",
  input: z.object({ prompt: z.string().min(1).max(2000), place: Place.optional() }),
  async run(input, { ctx, toolCallId }) {
    const [uploadId] = (await generate(ctx, toolCallId, { kind: "image", prompt: input.prompt })) as [string];
    const placed = input.place
      ? await place(ctx, toolCallId, "generate_image", uploadId, input.place)
      : undefined;
    return {
      summary: `Generated image ${uploadId}${placed ? ` at ${input.place?.start}s` : ""}`,
      uploadId,
      ...placed,
    };
  },
});

/** The `animate_image` tool: what it does is its `description`, shown to the model. */
export const animateImage = defineTool({
  name: "animate_image",
  description:
    "Turn a still image (an image upload's id or name, or an image clip) into a short video; with `place`, put it on the timeline.",
  input: z.object({
    image: z.union([z.string().min(1).max(300), z.number().int().min(1)]),
    prompt: z.string().max(2000).default("subtle natural motion"),
    place: Place.optional(),
  }),
  async run(input, { ctx, toolCallId }) {
    let imageUploadId: string | undefined;
    if (typeof input.image === "string" && !/^clp_/.test(input.image)) {
      imageUploadId = await resolveUpload(ctx, input.image, ["image"]).then(
        (u) => u.id,
        () => undefined,
      );
    }
    if (!imageUploadId) {
      const c = await readComposition(ctx);
      const { clip } = resolveClip(c, input.image, await uploadNamesOf(ctx, c));
      if (clip.asset.type !== "image" || !clip.asset.uploadId) {
        throw new ToolError("wrong_type", `Clip ${clip.id} is not an uploaded image`);
      }
      imageUploadId = clip.asset.uploadId;
    }
    const [uploadId] = (await generate(ctx, toolCallId, {
      kind: "video",
      prompt: input.prompt,
      imageUploadId,
    })) as [string];
    const placed = input.place
      ? await place(ctx, toolCallId, "animate_image", uploadId, input.place)
      : undefined;
    return { summary: `Animated ${imageUploadId} into video ${uploadId}`, uploadId, ...placed };
  },
});

/** The `start_render` tool: what it does is its `description`, shown to the model. */
export const startRenderTool = defineTool({
  name: "start_render",
  description:
    "Render the composition as it is now (draft quality by default) and follow its progress. Ends the conversation turn.",
  input: z.object({
    quality: z.enum(["draft", "standard", "high"]).default("draft"),
    format: z
      .enum(["mp4", "webm", "gif", "mp3", "wav"] as const satisfies readonly OutputFormat[])
      .default("mp4"),
  }),
  async run(input, { ctx, toolCallId }) {
    const c = await readComposition(ctx);
    const { render } = await startRender(
      {
        db: ctx.db,
        enqueue: ctx.enqueue,
        now: ctx.now(),
        userId: ctx.userId,
        limits: ctx.renderLimits,
      },
      {
        body: {
          compositionId: c.id,
          compositionVersion: c.version,
          output: { format: input.format, quality: input.quality },
        },
        idempotencyKey: `${ctx.runId}:${toolCallId}`,
      },
    );
    await ctx.emit("tool_progress", { toolCallId, progress: 0, message: `render ${render.id} queued` });
    const deadline = Date.now() + ctx.renderFollowMs;
    let last = render;
    let lastKey = "";
    while (!TERMINAL_STATUSES.includes(last.status) && Date.now() < deadline && !ctx.signal.aborted) {
      await sleep(ctx.renderPollMs, undefined, { signal: ctx.signal }).catch(() => {});
      last = (await findRender(ctx.db, ctx.userId, render.id)) ?? last;
      const p = last.progress;
      const key = `${last.status}:${p.phase}:${p.ratio}`;
      if (key !== lastKey) {
        lastKey = key;
        await ctx.emit("tool_progress", {
          toolCallId,
          progress: p.ratio,
          message: `${last.status}${p.phase !== last.status ? ` (${p.phase})` : ""}`,
        });
      }
    }
    // A cancelled run cancels the render it started (it would otherwise go on unwatched) and
    // says so in the run's events.
    if (ctx.signal.aborted && !TERMINAL_STATUSES.includes(last.status)) {
      const cancelled = await cancelRender(
        {
          db: ctx.db,
          events: ctx.events,
          split: ctx.flows ? { flows: ctx.flows, store: ctx.store } : undefined,
        },
        { userId: ctx.userId, id: render.id, now: ctx.now() },
      );
      last = cancelled ?? last;
      await ctx.emit("tool_progress", {
        toolCallId,
        progress: last.progress.ratio,
        message: `run cancelled: render ${render.id} ${last.status}`,
      });
    }
    if (last.status === "failed") {
      throw new ToolError(
        "render_failed",
        `Render ${last.id} failed: ${last.error?.message ?? "unknown error"}`,
      );
    }
    return {
      summary:
        last.status === "succeeded"
          ? `Rendered version ${c.version}: GET /api/render/${last.id} for the file`
          : `Render ${last.id} of version ${c.version} is ${last.status}; follow it at GET /api/render/${last.id}`,
      renderId: last.id,
      status: last.status,
      compositionVersion: c.version,
    };
  },
});
