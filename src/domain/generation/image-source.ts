import path from "node:path";
import type { Db } from "../../db/client.ts";
import { findUpload } from "../../db/repositories/uploads.ts";
import { invalidRequest } from "../../errors.ts";
import { checkRemoteUrl, fetchRemoteAsset, RemoteAssetError } from "../../media/fetch-remote-asset.ts";
import type { BlobStore } from "../../storage/blob-store.ts";
import { GenerationError } from "./errors.ts";

/** Where the still of a video comes from: one of the caller's uploads, or a public https URL. */
export type ImageSource = { uploadId: string } | { url: string };

const UPLOAD_ID = /^upl_[0-9A-HJKMNP-TV-Z]{26}$/;
/** The path of a stored upload object in the URLs this API signs (local `/files/…` or S3). */
const UPLOAD_KEY_IN_URL = /\/uploads\/(upl_[0-9A-HJKMNP-TV-Z]{26})\/(?:original|poster\.jpg)$/;

const bad = (message: string) => invalidRequest(message, [{ path: "/imageUrl", message }]);

/**
 * Reads a request's `imageUrl`: an `upl_…` id of the caller's image upload, a URL this API
 * returned for one (its signed `url` or `posterUrl`), or a public https URL, which is checked
 * with the render engine's SSRF rules now and fetched by the worker later.
 * @throws AppError 400 at `/imageUrl` for another owner's or an unknown upload, an upload that is
 *   not an image, a malformed URL, a non-https URL, or a host that resolves to a loopback,
 *   private, link-local or metadata address (or does not resolve).
 */
export async function parseImageSource(
  deps: { db: Db; resolve?: Parameters<typeof checkRemoteUrl>[1] },
  userId: string,
  imageUrl: string,
): Promise<ImageSource> {
  let uploadId: string | undefined;
  if (UPLOAD_ID.test(imageUrl)) uploadId = imageUrl;
  else {
    let url: URL;
    try {
      url = new URL(imageUrl);
    } catch {
      throw bad("must be an upl_ id of one of your image uploads or an https URL");
    }
    const own = UPLOAD_KEY_IN_URL.exec(url.pathname)?.[1];
    if (own && (await findUpload(deps.db, userId, own))) uploadId = own;
    else {
      try {
        await checkRemoteUrl(imageUrl, deps.resolve ?? {});
      } catch (err) {
        if (err instanceof RemoteAssetError) throw bad(`cannot be fetched: ${err.message}`);
        throw err;
      }
      return { url: imageUrl };
    }
  }
  const upload = await findUpload(deps.db, userId, uploadId);
  if (!upload) throw bad(`Upload ${uploadId} was not found`);
  if (upload.type !== "image")
    throw bad(
      `Upload ${uploadId} is ${/^[aeiou]/.test(upload.type) ? "an" : "a"} ${upload.type}, not an image`,
    );
  return { uploadId };
}

/**
 * Makes the still available as a local file for a worker: an upload in place (local disk) or
 * downloaded into `dir` (S3); a URL fetched into `dir` through the SSRF guard.
 * @returns the file's path.
 * @throws GenerationError `input_unavailable` when the upload is gone or the URL cannot be
 *   fetched (retryable for network failures and timeouts).
 */
export async function localStill(
  deps: { db: Db; store: BlobStore; remote: { maxBytes: number; timeoutMs: number } },
  userId: string,
  source: ImageSource,
  dir: string,
  signal: AbortSignal,
): Promise<string> {
  const target = path.join(dir, "still");
  if ("uploadId" in source) {
    const upload = await findUpload(deps.db, userId, source.uploadId);
    if (!upload) throw new GenerationError("input_unavailable", `Upload ${source.uploadId} no longer exists`);
    const inPlace = deps.store.localPath(upload.storageKey);
    if (inPlace) return inPlace;
    await deps.store.downloadTo(upload.storageKey, target);
    return target;
  }
  try {
    await fetchRemoteAsset(source.url, target, { ...deps.remote, signal });
    return target;
  } catch (err) {
    if (signal.aborted) throw signal.reason;
    if (err instanceof RemoteAssetError) {
      throw new GenerationError("input_unavailable", `The image could not be fetched: ${err.message}`, {
        retryable: err.retryable,
      });
    }
    throw err;
  }
}
