import type jsonPatch from "fast-json-patch";
import { z } from "zod";
import { latestUndoableEdit, markEditUndone } from "../../../db/repositories/assistant.ts";
import { listUploadsPage } from "../../../db/repositories/uploads.ts";
import { AppError } from "../../../errors.ts";
import { UPLOAD_TYPES } from "../../uploads/upload-type.ts";
import { applyEdit, readComposition, revertEdit } from "../edit.ts";
import { summarizeComposition } from "../summary.ts";
import { ToolError, toolErrorOf } from "../tool-context.ts";
import { defineTool } from "./define.ts";

/** The `get_composition` tool: what it does is its `description`, shown to the model. */
export const getComposition = defineTool({
  name: "get_composition",
  description:
    "Read the composition: tracks, numbered clips with ids, types, start/duration/end in seconds, source names, markers and version.",
  input: z.object({}),
  async run(_input, { ctx }) {
    const summary = await summarizeComposition(ctx, await readComposition(ctx));
    return {
      summary: `Version ${summary.version}: ${summary.clips.length} clip(s) on ${summary.tracks.length} track(s), ${summary.duration}s`,
      composition: summary,
    };
  },
});

/** The `list_uploads` tool: what it does is its `description`, shown to the model. */
export const listUploads = defineTool({
  name: "list_uploads",
  description: "List the uploads of the project (newest first): id, name, type and duration in seconds.",
  input: z.object({ type: z.enum(UPLOAD_TYPES).optional() }),
  async run(input, { ctx }) {
    const { rows, hasMore } = await listUploadsPage(ctx.db, {
      userId: ctx.userId,
      projectId: ctx.projectId ?? undefined,
      type: input.type,
      limit: 100,
      afterId: undefined,
    });
    const uploads = rows.map((u) => ({
      id: u.id,
      name: u.name,
      type: u.type,
      ...(u.media?.duration != null ? { duration: u.media.duration } : {}),
    }));
    return {
      summary: `${uploads.length}${hasMore ? "+" : ""} upload(s): ${uploads.map((u) => u.name).join(", ")}`,
      uploads,
      truncated: hasMore,
    };
  },
});

/** The `undo` tool: what it does is its `description`, shown to the model. */
export const undo = defineTool({
  name: "undo",
  description:
    "Revert the assistant's last edit in this session (one step per call): back to the version before it when nothing else changed the composition since, else only what that edit changed. Fails without changing anything when the parts it changed were edited since.",
  input: z.object({}),
  async run(_input, { ctx, toolCallId }) {
    const edit = await latestUndoableEdit(ctx.db, ctx.sessionId);
    if (!edit)
      throw new ToolError("nothing_to_undo", "There is no assistant edit left to undo in this session");
    let result: { version: number } | null;
    try {
      result = await revertEdit(ctx, toolCallId, edit.version);
    } catch (err) {
      if (err instanceof AppError && err.code === "invalid_request") {
        throw new ToolError(
          "undo_conflict",
          `Cannot undo ${edit.tool}: the composition before it no longer validates (${toolErrorOf(err).message}); nothing was changed`,
        );
      }
      throw err;
    }
    try {
      result ??= await applyEdit(ctx, toolCallId, "undo", () => ({}), {
        record: false,
        ops: () => edit.inverse as jsonPatch.Operation[],
      });
    } catch (err) {
      if (err instanceof AppError && (err.code === "conflict" || err.code === "invalid_request")) {
        throw new ToolError(
          "undo_conflict",
          `Cannot undo ${edit.tool}: what it changed was edited since (${err.message}); nothing was changed`,
        );
      }
      throw err;
    }
    await markEditUndone(ctx.db, edit.id, ctx.now());
    return {
      summary: `Undid ${edit.tool} (now version ${result.version})`,
      undone: edit.tool,
      version: result.version,
    };
  },
});
