import { z } from "zod";
import { REFRAME_ASPECTS } from "../../reframe/reframe-composition.ts";
import { applyEdit } from "../edit.ts";
import { ToolError } from "../tool-context.ts";
import { defineTool } from "./define.ts";

/** The `reframe` tool: what it does is its `description`, shown to the model. */
export const reframeTool = defineTool({
  name: "reframe",
  description:
    "Reframe the composition for another aspect ratio (9:16 vertical, 1:1 square, 16:9 landscape): the canvas changes and each video clip is cropped by a window that follows the faces in it, shot by shot (two people far apart: two stacked windows; no face: the most active region or the centre). One version, undoable.",
  input: z.object({
    aspectRatio: z.enum(REFRAME_ASPECTS),
    clips: z
      .array(z.string().min(1).max(100))
      .min(1)
      .max(1000)
      .optional()
      .describe("Clip ids to reframe (default: every full-frame video clip)"),
  }),
  async run(input, { ctx, toolCallId }) {
    const service = ctx.reframe;
    if (!service) throw new ToolError("unavailable", "Reframing is not available on this server");
    return applyEdit(
      ctx,
      toolCallId,
      "reframe",
      async (draft) => {
        const out = await service.reframe({
          userId: ctx.userId,
          composition: draft,
          aspectRatio: input.aspectRatio,
          clipIds: input.clips,
          signal: ctx.signal,
        });
        draft.canvas = out.composition.canvas;
        draft.tracks = out.composition.tracks;
        return { summary: out.summary, shots: out.shots, reasons: out.reasons };
      },
      { summary: (r) => r.summary },
    );
  },
});
