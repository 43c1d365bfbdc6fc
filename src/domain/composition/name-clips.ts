/**
 * Keeps an upload's file name on the clips that use it, for when the upload is deleted: the
 * clip can then still be named ("cockatoo.mp4 at 0:06") in reads, errors and renders.
 */
import type { Db } from "../../db/client.ts";
import {
  findComposition,
  lockComposition,
  updateCompositionIfVersion,
} from "../../db/repositories/compositions.ts";
import { recordVersion, type VersionAuthor, versionState } from "./versions.ts";

/**
 * Gives every clip of composition `compositionId` that uses `upload` (media asset or caption
 * source) and has no `name` the upload's file name, as a new version by `author`, in the
 * caller's transaction `db`. Nothing is written when no clip changes.
 */
export async function nameClipsOfUpload(
  db: Db,
  input: {
    userId: string;
    compositionId: string;
    upload: { id: string; name: string };
    author: VersionAuthor;
    now: Date;
  },
): Promise<void> {
  await lockComposition(db, input.compositionId);
  const row = await findComposition(db, input.userId, input.compositionId);
  if (!row) return;
  let changed = false;
  const tracks = row.document.tracks.map((track) => ({
    ...track,
    clips: track.clips.map((clip) => {
      const asset = clip.asset as { uploadId?: string; source?: { uploadId?: string } };
      const uses = asset.uploadId === input.upload.id || asset.source?.uploadId === input.upload.id;
      if (!uses || clip.name) return clip;
      changed = true;
      return { ...clip, name: input.upload.name.slice(0, 200) };
    }),
  }));
  if (!changed) return;
  const saved = await updateCompositionIfVersion(db, {
    userId: input.userId,
    id: row.id,
    expectedVersion: row.version,
    now: input.now,
    name: row.name,
    projectId: row.projectId,
    document: { ...row.document, tracks },
  });
  if (saved) {
    await recordVersion(db, {
      row: saved,
      previous: versionState(row),
      author: input.author,
      summary: `named the clips of ${input.upload.name} before it was deleted`,
    });
  }
}
