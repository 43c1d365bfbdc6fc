import type { Db } from "../../db/client.ts";
import { findUploadsByIds, findUploadsByNames, type UploadRow } from "../../db/repositories/uploads.ts";
import { conflict, invalidRequest } from "../../errors.ts";
import type { BlobStore } from "../../storage/blob-store.ts";
import { type Composition, isMediaAsset, type MediaAsset } from "../composition/schema.ts";
import { baseName, type ResolvedMedia } from "./common.ts";
import type { OtioMediaUse, ResolvedUse } from "./otio-import.ts";

/** How exported files point at media: signed URLs (anywhere) or local paths (same machine, local disk). */
export type AssetLinks = "urls" | "paths";

function mediaAssets(composition: Composition): MediaAsset[] {
  return composition.tracks.flatMap((t) => t.clips.flatMap((c) => (isMediaAsset(c.asset) ? [c.asset] : [])));
}

/**
 * Resolves every media asset of a composition to what an exported file refers to.
 *
 * @param links - `urls`: uploads as signed URLs valid `ttlSec` seconds; `paths`: absolute
 *   paths on this machine (`file://` URLs in OTIO), only with local-disk storage.
 * @returns a lookup from asset to {@link ResolvedMedia}.
 * @throws 400 when `paths` is asked with remote storage; 409 when an upload the composition
 *   uses no longer exists.
 */
export async function resolveExportMedia(
  deps: { db: Db; store: BlobStore; ttlSec: number },
  userId: string,
  composition: Composition,
  links: AssetLinks,
): Promise<(asset: MediaAsset) => ResolvedMedia> {
  if (links === "paths" && deps.store.driver !== "local") {
    throw invalidRequest("assets=paths needs local-disk storage; use assets=urls", [
      { path: "/querystring/assets", message: "storage is not local disk" },
    ]);
  }
  const assets = mediaAssets(composition);
  const ids = [...new Set(assets.flatMap((a) => (a.uploadId ? [a.uploadId] : [])))];
  const rows = new Map((await findUploadsByIds(deps.db, userId, ids)).map((u) => [u.id, u]));
  const byId = new Map<string, ResolvedMedia>();
  for (const id of ids) {
    const u = rows.get(id);
    if (!u) throw conflict(`Upload ${id} used by the composition no longer exists`);
    const path = links === "paths" ? deps.store.localPath(u.storageKey) : null;
    const targetUrl = path
      ? new URL(`file://${path}`).href
      : (
          await deps.store.signedUrl(u.storageKey, {
            expiresInSec: deps.ttlSec,
            filename: u.name,
            contentType: u.mimeType,
          })
        ).url;
    byId.set(id, { name: u.name, targetUrl, path, duration: u.media?.duration ?? null, uploadId: id });
  }
  return (asset) => {
    if (asset.uploadId) {
      const found = byId.get(asset.uploadId);
      if (found) return found;
    }
    const src = asset.src ?? "";
    return { name: baseName(src), targetUrl: src, path: null, duration: null };
  };
}

/** What to do with clips whose media match none of the caller's uploads. */
export type UnmatchedMedia = "error" | "drop" | "gap";

/**
 * Matches the media an imported timeline uses to the caller's uploads, in this order: the
 * request's `mapping` (the clip item's JSON Pointer, e.g. `/otio/tracks/children/0/children/2`,
 * which also names media without a name; else the reference name or `target_url` → upload id),
 * the upload id a Cutroom export recorded, then an upload whose file name equals the reference
 * name or the last segment of its `target_url` (the newest when several do). An `https://`
 * reference that matches nothing stays a remote `src`.
 *
 * @param unmatched - `error` (default): refuse the import; `drop` / `gap`: return the clips that
 *   match nothing in `unmatched`, for the caller to leave out.
 * @returns resolution per clip item path, and the paths of the clips that matched nothing.
 * @throws 400 `invalid_request` listing every unmatched reference (path of its clip item), with
 *   `unmatched: "error"`, and for a mapping to an id that is not one of the caller's uploads.
 */
export async function resolveImportMedia(
  db: Db,
  userId: string,
  uses: OtioMediaUse[],
  mapping: Record<string, string>,
  unmatched: UnmatchedMedia = "error",
): Promise<{ resolved: Map<string, ResolvedUse>; unmatched: Set<string> }> {
  const ids = new Set<string>(Object.values(mapping));
  const names = new Set<string>();
  for (const use of uses) {
    if (use.uploadIdHint) ids.add(use.uploadIdHint);
    if (use.name) names.add(use.name);
    for (const other of use.otherNames ?? []) names.add(other);
    if (baseName(use.targetUrl)) names.add(baseName(use.targetUrl));
  }
  const [byIdRows, byNameRows] = await Promise.all([
    findUploadsByIds(db, userId, [...ids]),
    findUploadsByNames(db, userId, [...names]),
  ]);
  const byId = new Map(byIdRows.map((u) => [u.id, u]));
  const byName = new Map<string, UploadRow>();
  for (const u of byNameRows) if (!byName.has(u.name)) byName.set(u.name, u);

  const out = new Map<string, ResolvedUse>();
  const refused: { path: string; message: string }[] = [];
  const skipped = new Set<string>();
  const labels = new Set<string>();
  for (const use of uses) {
    const label = use.name || use.targetUrl || `(unnamed media at ${use.path})`;
    const mapped = mapping[use.path] ?? (use.name ? mapping[use.name] : undefined) ?? mapping[use.targetUrl];
    let row: UploadRow | undefined;
    if (mapped !== undefined) {
      row = byId.get(mapped);
      if (!row) {
        labels.add(label);
        refused.push({
          path: use.path,
          message: `media "${label}" is mapped to ${mapped}, which is not one of your uploads`,
        });
        continue;
      }
    } else {
      row =
        (use.uploadIdHint ? byId.get(use.uploadIdHint) : undefined) ??
        byName.get(use.name) ??
        byName.get(baseName(use.targetUrl)) ??
        (use.otherNames ?? []).map((n) => byName.get(n)).find((u) => u !== undefined);
    }
    if (row)
      out.set(use.path, { uploadId: row.id, uploadType: row.type, duration: row.media?.duration ?? null });
    else if (use.targetUrl.startsWith("https://") && !use.uploadIdHint)
      out.set(use.path, { src: use.targetUrl });
    else if (unmatched !== "error" || use.sequence) skipped.add(use.path);
    else {
      labels.add(label);
      refused.push({
        path: use.path,
        message: `media "${label}" matches none of your uploads; map it in "media" (by name, or by this clip path)`,
      });
    }
  }
  if (refused.length) {
    throw invalidRequest(
      `${refused.length} media reference(s) match none of your uploads: ${[...labels].join(", ")}. Upload them, map each name (or clip path) to an upload id in "media", or send "unmatched": "drop" or "gap" to leave those clips out`,
      refused,
    );
  }
  return { resolved: out, unmatched: skipped };
}
