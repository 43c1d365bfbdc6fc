/**
 * Every storage key Cutroom writes, in one place. Objects of one resource share a folder
 * (`<kind>/<id>/`), so deleting the resource is one `deletePrefix`.
 */

/** Folder of upload `id`: its original, poster and preview proxy. */
export const uploadPrefix = (id: string): string => `uploads/${id}/`;

/** The upload a key belongs to (`uploads/upl_…/original` → `upl_…`), or null for another kind of object. */
export function uploadIdOfKey(key: string): string | null {
  return /^uploads\/(upl_[A-Za-z0-9]+)\//.exec(key)?.[1] ?? null;
}

/** The uploaded (or generated) file itself. */
export const uploadOriginalKey = (id: string): string => `${uploadPrefix(id)}original`;

/** The JPEG poster of a video or image upload. */
export const uploadPosterKey = (id: string): string => `${uploadPrefix(id)}poster.jpg`;

/** The preview proxy of a video upload (a small H.264 MP4 with short keyframe intervals). */
export const uploadPreviewProxyKey = (id: string): string => `${uploadPrefix(id)}proxy.mp4`;

/** Folder of render `id`: its output and poster. */
export const renderPrefix = (id: string): string => `renders/${id}/`;

/** A render's output file, e.g. `renders/rnd_…/output.mp4`. */
export const renderOutputKey = (id: string, format: string): string => `${renderPrefix(id)}output.${format}`;

/** The JPEG poster of a video render. */
export const renderPosterKey = (id: string): string => `${renderPrefix(id)}poster.jpg`;

/** Folder of a split render's parts (video segments and audio) until the join. */
export const renderPartsPrefix = (id: string): string => `${renderPrefix(id)}parts/`;

/** One part of a split render, e.g. `renders/rnd_…/parts/seg-000.mp4`. */
export const renderPartKey = (id: string, file: string): string => `${renderPartsPrefix(id)}${file}`;

/** Folder of an account's render cache (parts kept for reuse by its later renders). */
export const renderCachePrefix = (userId: string): string => `render-cache/${userId}/`;

/** One cached part of an account: its content key (hex SHA-256) names it. */
export const renderCacheKey = (userId: string, key: string): string => `${renderCachePrefix(userId)}${key}`;
