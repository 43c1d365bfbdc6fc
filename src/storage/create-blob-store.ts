import { LocalDiskStore, type LocalDiskStoreOptions } from "./local-disk.ts";
import type { S3BlobStore, S3BlobStoreOptions } from "./s3.ts";

/** Storage settings, built by the config module (this module reads no environment). */
export type BlobStoreOptions =
  | ({ driver: "local" } & LocalDiskStoreOptions)
  | ({ driver: "s3" } & S3BlobStoreOptions);

/**
 * Creates the blob store the options choose. The result's `driver` field narrows it:
 * `LocalDiskStore` (register the file route with `serveSignedFile`) or `S3BlobStore`. The S3
 * driver (and the AWS SDK under it) is loaded only when it is chosen: a process on local disk
 * does not carry it in memory.
 *
 * @example
 * const store = await createBlobStore({ driver: "local", dir: `${dataDir}/blobs`, publicBaseUrl, secret });
 * if (store.driver === "local") app.get("/files/*", (req, reply) => serveSignedFile(store, req, reply));
 */
export async function createBlobStore(opts: BlobStoreOptions): Promise<LocalDiskStore | S3BlobStore> {
  switch (opts.driver) {
    case "local": {
      const { driver: _driver, ...rest } = opts;
      return new LocalDiskStore(rest);
    }
    case "s3": {
      const { driver: _driver, ...rest } = opts;
      const { S3BlobStore } = await import("./s3.ts");
      return new S3BlobStore(rest);
    }
    default: {
      const unknownDriver: never = opts;
      throw new Error(
        `Unknown storage driver ${JSON.stringify((unknownDriver as { driver: string }).driver)}`,
      );
    }
  }
}
