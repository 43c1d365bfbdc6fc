// An HTTP proxy in front of a test server (the S3 stand-in) that forwards every request as it
// is and sends the response bodies of the GETs it is told to slow down at a fixed rate: a slow
// link to the object store, for tests that need a download to take observable time.
import { once } from "node:events";
import { createServer, request } from "node:http";
import type { AddressInfo } from "node:net";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { setTimeout as sleep } from "node:timers/promises";

/** A slowed GET whose body is being sent. */
export interface SlowDownload {
  /** The request's path (with its query). */
  path: string;
  /** The client's port of the connection (on 127.0.0.1). */
  clientPort: number;
  /** Body bytes sent so far, and in all (the upstream `Content-Length`, 0 when unknown). */
  sent: number;
  total: number;
}

/** A running proxy. */
export interface SlowProxy {
  /** `http://127.0.0.1:<port>`: use it as the server's address. */
  endpoint: string;
  /** Which GETs are slowed, by path (with its query); change it at any time. Default none. */
  slows: (path: string) => boolean;
  /** The slowed GETs whose body is being sent now. */
  downloads: ReadonlySet<SlowDownload>;
  close(): Promise<void>;
}

/** Ticks per second of a slowed body: it is sent in slices of `bytesPerSecond / TICKS`. */
const TICKS = 10;

/**
 * Starts a proxy (127.0.0.1, random port) to `target` (an `http://host:port` origin). Requests
 * are forwarded unchanged (the `Host` header too, so SigV4 signatures still match); the bodies
 * of GETs `slows` matches are sent at `bytesPerSecond`, the others as they come. A client that
 * goes away ends its upstream request.
 */
export async function startSlowProxy(target: string, opts: { bytesPerSecond: number }): Promise<SlowProxy> {
  const upstream = new URL(target);
  const slice = Math.max(1, Math.floor(opts.bytesPerSecond / TICKS));
  const downloads = new Set<SlowDownload>();
  const server = createServer((req, res) => {
    const path = req.url ?? "/";
    const out = request(
      { host: upstream.hostname, port: upstream.port, method: req.method, path, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        if (req.method !== "GET" || !proxy.slows(path) || (answer.statusCode ?? 0) >= 300) {
          pipeline(answer, res).catch(() => {});
          return;
        }
        const download: SlowDownload = {
          path,
          clientPort: req.socket.remotePort ?? 0,
          sent: 0,
          total: Number(answer.headers["content-length"] ?? 0),
        };
        downloads.add(download);
        async function* drip() {
          for await (const chunk of answer as AsyncIterable<Buffer>) {
            for (let i = 0; i < chunk.length; i += slice) {
              yield chunk.subarray(i, i + slice);
              download.sent += Math.min(slice, chunk.length - i);
              await sleep(1000 / TICKS);
            }
          }
        }
        pipeline(Readable.from(drip()), res)
          .catch(() => answer.destroy())
          .finally(() => downloads.delete(download));
      },
    );
    out.on("error", () => res.destroy());
    res.on("close", () => {
      if (!res.writableFinished) out.destroy();
    });
    pipeline(req, out).catch(() => out.destroy());
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  const proxy: SlowProxy = {
    endpoint: `http://127.0.0.1:${port}`,
    slows: () => false,
    downloads,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return proxy;
}
