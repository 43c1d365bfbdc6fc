import type { BlobStore } from "../../storage/blob-store.ts";

/** What presenting a resource with file URLs needs: the store that signs them and their lifetime (seconds). */
export interface SigningDeps {
  store: BlobStore;
  signedUrlTtlSec: number;
}

/** A freshly signed URL of a JPEG poster at `key`, or null when there is none. */
export async function signPoster(deps: SigningDeps, key: string | null | undefined) {
  return key
    ? deps.store.signedUrl(key, { expiresInSec: deps.signedUrlTtlSec, contentType: "image/jpeg" })
    : null;
}
