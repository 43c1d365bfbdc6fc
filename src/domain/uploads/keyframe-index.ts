/**
 * The keyframe index an upload keeps (`uploads.keyframes`): read once from the container, then
 * used by every render of the upload to place segment boundaries and to seek its parts' inputs
 * to the keyframe their first frame decodes from, without an ffprobe per render or per part.
 */
import type { Db } from "../../db/client.ts";
import { setUploadKeyframes } from "../../db/repositories/uploads.ts";
import { type KeyframeIndex, probeKeyframes } from "../../media/keyframes.ts";

/**
 * The most keyframes an upload keeps (an hour of all-intra video at 14 fps): a source with more
 * is probed by each render that needs its keyframes, as before the index was kept.
 */
export const MAX_STORED_KEYFRAMES = 50_000;

/**
 * Reads the keyframe index of video upload `uploadId` from its local file `path`
 * (`probeKeyframes`) and keeps it on the upload when it has at most {@link MAX_STORED_KEYFRAMES}
 * keyframes. `opts` are `probeKeyframes`'s (its timeout, 30 s by default, and an abort).
 *
 * @returns the index (kept or not).
 * @throws MediaProbeError when ffprobe fails or finds no video packet; database errors.
 */
export async function readAndKeepKeyframes(
  db: Db,
  uploadId: string,
  path: string,
  opts: { signal?: AbortSignal; timeoutMs?: number } = {},
): Promise<KeyframeIndex> {
  const index = await probeKeyframes(path, opts);
  if (index.times.length <= MAX_STORED_KEYFRAMES) await setUploadKeyframes(db, uploadId, index);
  return index;
}
