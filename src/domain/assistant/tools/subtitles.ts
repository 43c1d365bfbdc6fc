import { text } from "node:stream/consumers";
import { listUploadsPage, type UploadRow } from "../../../db/repositories/uploads.ts";
import type { Cue } from "../../composition/schema.ts";
import { parseSubtitles } from "../../render/subtitle-parse.ts";
import { readComposition } from "../edit.ts";
import { resolveUpload } from "../references.ts";
import { type ToolContext, ToolError } from "../tool-context.ts";

/** Largest subtitle file a tool reads, bytes. */
const MAX_SUBTITLE_BYTES = 10 * 1024 * 1024;

/**
 * The subtitle upload a tool works on: the one named, else the one the timeline's captions
 * use, else the project's only subtitle upload.
 * @throws ToolError `not_found` / `ambiguous` listing the candidates.
 */
export async function pickSubtitleUpload(ctx: ToolContext, ref: string | undefined): Promise<UploadRow> {
  if (ref) return resolveUpload(ctx, ref, ["subtitle"]);
  const c = await readComposition(ctx);
  for (const t of c.tracks)
    for (const clip of t.clips)
      if (clip.asset.type === "caption" && "uploadId" in clip.asset.source) {
        return resolveUpload(ctx, clip.asset.source.uploadId, ["subtitle"]);
      }
  const { rows } = await listUploadsPage(ctx.db, {
    userId: ctx.userId,
    projectId: ctx.projectId ?? undefined,
    type: "subtitle",
    limit: 20,
    afterId: undefined,
  });
  if (rows.length === 1) return rows[0] as UploadRow;
  if (rows.length === 0)
    throw new ToolError("not_found", "There is no subtitle upload (SRT or WebVTT) to use");
  throw new ToolError(
    "ambiguous",
    `Name the subtitle upload: ${rows.map((u) => `${u.name} (${u.id})`).join(", ")}`,
  );
}

/**
 * Reads and parses a subtitle upload (SRT or WebVTT) into cues, seconds.
 * @throws ToolError when it is too large or holds no cue.
 */
export async function readCues(ctx: ToolContext, upload: UploadRow): Promise<Cue[]> {
  if (upload.size > MAX_SUBTITLE_BYTES) {
    throw new ToolError("too_large", `${upload.name} is larger than ${MAX_SUBTITLE_BYTES} bytes`);
  }
  const cues = parseSubtitles(await text(await ctx.store.openRead(upload.storageKey)));
  if (cues.length === 0) throw new ToolError("empty", `${upload.name} holds no subtitle cue`);
  return cues;
}
