/**
 * The render cache: parts of split renders kept in the blob store under the account's prefix
 * (`render-cache/<userId>/<content key>`), one database row each, so that a later render of the
 * same account whose part has the same content key (`partContentKeys`) copies it instead of
 * rendering it. Capped by `RENDER_CACHE_BYTES` (least recently used evicted first); an entry is
 * deleted with the account (its rows) and with any upload it read.
 */
import { availableParallelism } from "node:os";
import path from "node:path";
import type { Logger } from "pino";
import type { Clock } from "../../clock.ts";
import type { Db } from "../../db/client.ts";
import {
  deleteCacheEntry,
  evictCacheEntriesBeyond,
  touchCacheEntries,
  upsertCacheEntry,
} from "../../db/repositories/render-cache.ts";
import type { RenderRow } from "../../db/repositories/renders.ts";
import { findUploadsByIds, listFontUploads } from "../../db/repositories/uploads.ts";
import type { BlobStore } from "../../storage/blob-store.ts";
import { renderCacheKey } from "../../storage/keys.ts";
import { localCopy } from "../../storage/local-copy.ts";
import type { Timeline } from "../composition/schema.ts";
import { MAX_UPLOADED_FONTS } from "../fonts/fonts.ts";
import { type PartContentKey, partContentKeys } from "../render/content-keys.ts";
import type { FrameRange } from "../render/segments.ts";

/** What reading and writing the render cache needs. */
export interface RenderCacheDeps {
  db: Db;
  store: BlobStore;
  clock: Clock;
  log: Logger;
  /** `RENDER_CACHE_BYTES`: the cache's size cap in bytes over every account; 0 disables it. */
  capBytes: number;
  /** Lossless test encoding (part of every key). */
  lossless?: boolean;
}

/** Whether `render` may read and fill the cache: the cache is on and the render did not opt out (`output.reuse: false`). */
export function usesRenderCache(deps: Pick<RenderCacheDeps, "capBytes">, render: Pick<RenderRow, "options">) {
  return deps.capBytes > 0 && render.options.reuse !== false;
}

/** Upload ids a composition reads: media clips and subtitle files. */
function uploadIdsOf(composition: Timeline): string[] {
  const ids = new Set<string>();
  for (const track of composition.tracks) {
    for (const { asset } of track.clips) {
      if ((asset.type === "video" || asset.type === "image" || asset.type === "audio") && asset.uploadId) {
        ids.add(asset.uploadId);
      }
      if (asset.type === "caption" && "uploadId" in asset.source) ids.add(asset.source.uploadId);
    }
  }
  return [...ids];
}

/**
 * The content keys of `render`'s parts (`partContentKeys`): the video segments `ranges` and the
 * audio, with the SHA-256 of every upload the composition reads and of the account's fonts,
 * and this worker's encoder settings (thread count, lossless, smart rendering's mode and stream format).
 */
export async function renderPartKeys(
  deps: Pick<RenderCacheDeps, "db" | "lossless">,
  render: Pick<RenderRow, "userId" | "composition" | "options" | "smartRender">,
  ranges: readonly FrameRange[],
) {
  const [media, fonts] = await Promise.all([
    findUploadsByIds(deps.db, render.userId, uploadIdsOf(render.composition)),
    listFontUploads(deps.db, render.userId, MAX_UPLOADED_FONTS),
  ]);
  return partContentKeys(
    {
      composition: render.composition,
      output: render.options,
      sources: new Map([...media, ...fonts].map((u) => [u.id, u.sha256])),
      fontUploadIds: fonts.map((f) => f.id),
      encoder: {
        threads: availableParallelism(),
        ...(deps.lossless ? { lossless: true } : {}),
        ...(render.options.format === "mp4"
          ? {
              smart: {
                mode: render.options.smartRender ?? "auto",
                format: render.smartRender?.format ?? null,
              },
            }
          : {}),
      },
    },
    ranges,
  );
}

/**
 * The cache entries `render`'s parts can be copied from: for each video segment of `ranges`
 * and for the audio, the content key of the account's entry with that key, else null. Every
 * entry found is marked used now.
 */
export async function findReusableParts(
  deps: RenderCacheDeps,
  render: Pick<RenderRow, "userId" | "composition" | "options" | "smartRender">,
  ranges: readonly FrameRange[],
): Promise<{ video: (string | null)[]; audio: string | null }> {
  const keys = await renderPartKeys(deps, render, ranges);
  const wanted = [...keys.video, keys.audio].flatMap((k) => (k ? [k.key] : []));
  const found = await touchCacheEntries(deps.db, render.userId, wanted, deps.clock.now());
  const hit = (k: PartContentKey | null) => (k && found.has(k.key) ? k.key : null);
  return { video: keys.video.map(hit), audio: hit(keys.audio) };
}

/**
 * A local file with the bytes of account `userId`'s cache entry `key` (read in place on local
 * disk, else downloaded into `workDir` as `name`), or null when its file is gone (the entry is
 * then deleted).
 */
export async function readCachedPart(
  deps: RenderCacheDeps,
  userId: string,
  key: string,
  workDir: string,
  name: string,
): Promise<string | null> {
  const blob = renderCacheKey(userId, key);
  if (!(await deps.store.stat(blob))) {
    await deleteCacheEntry(deps.db, { userId, key });
    return null;
  }
  return localCopy(deps.store, blob, workDir, name);
}

/**
 * Keeps a finished part's file (`file`, left in place) as account `userId`'s cache entry for
 * `key`: the file is stored whole first (the store writes a temporary object and renames it),
 * then the row is written, so a worker killed in between leaves an unlisted file, never an
 * entry naming a partial one. Then evicts the least recently used entries beyond the cap.
 * Failures are logged, not thrown: the part is done either way.
 */
export async function keepPartInCache(
  deps: RenderCacheDeps,
  userId: string,
  key: PartContentKey,
  file: string,
): Promise<void> {
  try {
    const { size } = await deps.store.putFile(renderCacheKey(userId, key.key), file, {
      contentType: "video/mp4",
    });
    await upsertCacheEntry(deps.db, {
      userId,
      key: key.key,
      bytes: size,
      uploadIds: key.uploadIds,
      now: deps.clock.now(),
    });
    const evicted = await evictCacheEntriesBeyond(deps.db, deps.capBytes);
    await Promise.all(evicted.map((e) => deps.store.delete(renderCacheKey(e.userId, e.key))));
  } catch (err) {
    deps.log.warn(
      { userId, key: key.key, file: path.basename(file), err },
      "keeping a part in the render cache failed",
    );
  }
}

/**
 * Copies account `userId`'s cache entry `key` to the blob `target` (a part of a render): a file
 * copy on local disk, else a streamed copy. Returns false, and deletes the entry, when its file
 * is gone; a failed copy is logged and returns false (the part is then rendered or copied by its
 * job), leaving nothing at `target`.
 */
export async function copyCachedPart(
  deps: RenderCacheDeps,
  userId: string,
  key: string,
  target: string,
): Promise<boolean> {
  const blob = renderCacheKey(userId, key);
  try {
    if (!(await deps.store.stat(blob))) {
      await deleteCacheEntry(deps.db, { userId, key });
      return false;
    }
    const local = deps.store.localPath(blob);
    if (local) await deps.store.putFile(target, local, { contentType: "video/mp4" });
    else await deps.store.put(target, await deps.store.openRead(blob), { contentType: "video/mp4" });
    return true;
  } catch (err) {
    deps.log.warn({ userId, key, err }, "copying a cached part failed");
    await deps.store.delete(target).catch(() => {});
    return false;
  }
}
