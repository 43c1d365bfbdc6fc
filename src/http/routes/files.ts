import type { BlobStore } from "../../storage/blob-store.ts";
import { LocalDiskStore } from "../../storage/local-disk.ts";
import { serveSignedFile } from "../../storage/serve-signed-file.ts";
import type { PublicApp } from "../types.ts";

/**
 * `GET /files/*` (local storage only): serves signed, expiring file URLs without a key,
 * with Range support (206), `nosniff` and attachment disposition for anything a browser
 * could execute. A bad or expired signature is a 403. Downloads count against the caller IP's
 * file-download quota (`FILES_DAILY_LIMIT`), not the anonymous one: the signature is the
 * credential, and a player's range requests must not use up the IP's API calls. S3 storage
 * uses presigned URLs instead.
 */
export function registerFileRoute(app: PublicApp, deps: { store: BlobStore }): void {
  const store = deps.store;
  if (!(store instanceof LocalDiskStore)) return;
  app.get(
    "/files/*",
    {
      schema: { hide: true },
    },
    (request, reply) => serveSignedFile(store, request, reply),
  );
}
