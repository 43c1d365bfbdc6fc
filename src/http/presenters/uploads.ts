import type { UploadRow } from "../../db/repositories/uploads.ts";
import { previewProxyState } from "../../domain/uploads/preview-proxy.ts";
import { type SigningDeps, signPoster } from "./signing.ts";

/** Upload row → the `Upload` resource with freshly signed `url` and `posterUrl`. */
export async function presentUpload(deps: SigningDeps, u: UploadRow) {
  const signed = await deps.store.signedUrl(u.storageKey, {
    expiresInSec: deps.signedUrlTtlSec,
    filename: u.name,
    contentType: u.mimeType,
  });
  const poster = await signPoster(deps, u.posterKey);
  return {
    id: u.id,
    projectId: u.projectId,
    url: signed.url,
    urlExpiresAt: signed.expiresAt.toISOString(),
    type: u.type,
    mimeType: u.mimeType,
    name: u.name,
    size: u.size,
    sha256: u.sha256,
    createdAt: u.createdAt.toISOString(),
    media: u.media ?? null,
    fontFamilies: u.fontFamilies ?? null,
    origin: u.origin,
    generationId: u.generationId,
    posterUrl: poster?.url ?? null,
    previewProxy: previewProxyState(u.previewProxy),
  };
}
