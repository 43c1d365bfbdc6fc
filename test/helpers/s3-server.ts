import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import type { S3Client } from "@aws-sdk/client-s3";
import { S3BlobStore, type S3BlobStoreOptions } from "../../src/storage/s3.ts";

/** A running S3-compatible server for tests, and how to reach it. */
export interface S3TestServer {
  /** e.g. `http://127.0.0.1:41234` (loopback, random free port). */
  endpoint: string;
  bucket: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** Directory the server keeps its objects in (removed by `stop`). */
  directory: string;
  /** Options for `new S3BlobStore(…)` / `createBlobStore({ driver: "s3", … })` against this server. */
  storeOptions: S3BlobStoreOptions;
  /**
   * Adapts an SDK client to s3rver: call it on `store.client` of every S3 store used against this
   * server (see {@link adaptClientToS3rver}).
   */
  adaptClient(client: S3Client): void;
  /** Stops the server process and removes its directory. */
  stop(): Promise<void>;
}

// The server runs in its own Node process: real HTTP over loopback, real SigV4 checks.
const CHILD_SCRIPT = `
const S3rver = require(process.argv[1]);
const [, , directory, bucket, anySignature] = process.argv;
const server = new S3rver({
  address: "127.0.0.1", port: 0, silent: true, directory,
  vhostBuckets: false, configureBuckets: [{ name: bucket }],
  allowMismatchedSignatures: anySignature === "any-signature",
});
server.run().then(
  (addr) => process.stdout.write(JSON.stringify({ port: addr.port }) + "\\n"),
  (err) => { console.error(err); process.exit(1); },
);
process.on("SIGTERM", () => server.close().finally(() => process.exit(0)));
process.stdin.on("end", () => process.exit(0)); // parent gone
process.stdin.resume();
`;

/**
 * Starts a real S3-compatible server (npm `@20minutes/s3rver`, a maintained fork of s3rver: an
 * S3 REST API over a directory, with SigV4 header and presigned-query authentication, multipart
 * uploads and ranges) in a child process on a random loopback port, with `bucket` created.
 * Credentials are s3rver's fixed `S3RVER`/`S3RVER`.
 *
 * @param opts.anySignature - accept a request whose SigV4 signature does not match (the access
 *   key must still be known): for clients in other processes (worker processes) that cannot be
 *   adapted with {@link adaptClientToS3rver}, whose bucket-level requests s3rver would refuse.
 *
 * @example
 * const s3 = await startS3Server();
 * const store = new S3BlobStore(s3.storeOptions);
 * afterAll(() => s3.stop());
 */
export async function startS3Server(
  opts: { bucket?: string; anySignature?: boolean } = {},
): Promise<S3TestServer> {
  const bucket = opts.bucket ?? "cutroom-test";
  const directory = await mkdtemp(path.join(os.tmpdir(), "cutroom-s3-"));
  const modulePath = createRequire(import.meta.url).resolve("@20minutes/s3rver");
  const args = [modulePath, directory, bucket, opts.anySignature ? "any-signature" : "checked"];
  const child = spawn(process.execPath, ["-e", CHILD_SCRIPT, ...args], {
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr?.on("data", (d: Buffer) => {
    stderr += d.toString();
  });

  const port = await new Promise<number>((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => reject(new Error(`s3rver did not start in 15 s: ${stderr}`)), 15_000);
    child.stdout?.on("data", (d: Buffer) => {
      out += d.toString();
      const line = out.split("\n")[0];
      if (out.includes("\n") && line) {
        clearTimeout(timer);
        resolve((JSON.parse(line) as { port: number }).port);
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`s3rver exited with ${code}: ${stderr}`));
    });
  });

  const endpoint = `http://127.0.0.1:${port}`;
  const credentials = { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" };
  return {
    endpoint,
    bucket,
    region: "us-east-1",
    ...credentials,
    directory,
    storeOptions: { endpoint, bucket, region: "us-east-1", forcePathStyle: true, ...credentials },
    adaptClient: adaptClientToS3rver,
    stop: () => stopChild(child, directory),
  };
}

/**
 * Works around an s3rver bug: for bucket-level requests (ListObjectsV2, …) it signs the path
 * `/<bucket>` where the SDK sends and signs `/<bucket>/`, so every such call fails with
 * SignatureDoesNotMatch. This middleware (before signing) drops that trailing slash, which real
 * S3 servers accept as well. Object requests are untouched.
 */
export function adaptClientToS3rver(client: S3Client): void {
  client.middlewareStack.add(
    (next) => async (args) => {
      const request = args.request as { path?: unknown };
      if (typeof request.path === "string" && /^\/[^/]+\/$/.test(request.path)) {
        request.path = request.path.slice(0, -1);
      }
      return next(args);
    },
    { step: "build", name: "s3rverBucketPath", override: true },
  );
}

/** An `S3BlobStore` on this test server, adapted with {@link adaptClientToS3rver}. */
export function createTestS3Store(
  server: S3TestServer,
  extra: Partial<S3BlobStoreOptions> = {},
): S3BlobStore {
  const store = new S3BlobStore({ ...server.storeOptions, ...extra });
  server.adaptClient(store.client);
  return store;
}

async function stopChild(child: ChildProcess, directory: string): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) {
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
    await exited;
    clearTimeout(timer);
  }
  await rm(directory, { recursive: true, force: true });
}
