import path from "node:path";
import type { BlobStore } from "./blob-store.ts";

/**
 * A local path for a stored object, for tools (ffmpeg, recognisers) that read files: the object
 * in place on local disk, else downloaded into `dir` as `name`.
 * @throws AppError `not_found` when the object does not exist (remote stores).
 */
export async function localCopy(store: BlobStore, key: string, dir: string, name: string): Promise<string> {
  const inPlace = store.localPath(key);
  if (inPlace) return inPlace;
  const target = path.join(dir, name);
  await store.downloadTo(key, target);
  return target;
}
