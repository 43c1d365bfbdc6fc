import { lookup as dnsLookup } from "node:dns/promises";
import { createWriteStream } from "node:fs";
import { rm } from "node:fs/promises";
import { isIP, type LookupFunction } from "node:net";
import { Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import ipaddr from "ipaddr.js";
import {
  createDispatcher,
  describeHttpError,
  discard,
  HttpClientError,
  type HttpDispatcher,
  httpRequest,
} from "../net/http-client.ts";

/** Why a remote asset could not be fetched. */
export type RemoteAssetFailure =
  /** The URL or one of its addresses is not allowed (not https, private/loopback/metadata address…). */
  | "refused"
  /** Larger than `maxBytes`. */
  | "too_large"
  /** Did not finish within `timeoutMs`. */
  | "timeout"
  /** The server answered with a non-2xx status (or too many redirects). */
  | "http_status"
  /** DNS, TCP or TLS failed, or the connection broke. */
  | "network";

/** A refused or failed remote fetch. `retryable` says whether trying again later may help. */
export class RemoteAssetError extends Error {
  readonly reason: RemoteAssetFailure;
  readonly retryable: boolean;
  constructor(
    reason: RemoteAssetFailure,
    message: string,
    opts: { retryable?: boolean; cause?: unknown } = {},
  ) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = "RemoteAssetError";
    this.reason = reason;
    this.retryable = opts.retryable ?? (reason === "network" || reason === "timeout");
  }
}

/** Cloud metadata endpoints, refused whatever range they fall in (most are link-local already). */
const METADATA_ADDRESSES = new Set([
  "169.254.169.254", // AWS, GCP, Azure, OpenStack, DigitalOcean…
  "169.254.170.2", // AWS ECS task metadata
  "100.100.100.200", // Alibaba Cloud
  "192.0.0.192", // Oracle Cloud (classic)
  "fd00:ec2::254", // AWS IMDS over IPv6
]);

/**
 * Whether an IP address may be fetched from: only public unicast addresses are. IPv4-mapped
 * IPv6 addresses are judged as the IPv4 address they carry.
 *
 * @param address - an IPv4 or IPv6 address (no brackets, no zone).
 * @returns `null` when allowed, else the reason (`"loopback"`, `"private"`, `"linkLocal"`,
 *   `"carrierGradeNat"`, `"metadata"`, `"invalid"`…, the ipaddr.js range name).
 */
export function addressRefusal(address: string): string | null {
  if (!ipaddr.isValid(address)) return "invalid";
  let ip = ipaddr.parse(address);
  if (ip.kind() === "ipv6" && (ip as ipaddr.IPv6).isIPv4MappedAddress()) {
    ip = (ip as ipaddr.IPv6).toIPv4Address();
  }
  if (METADATA_ADDRESSES.has(ip.toNormalizedString()) || METADATA_ADDRESSES.has(ip.toString())) {
    return "metadata";
  }
  const range = ip.range();
  if (range !== "unicast") return range;
  // Global unicast IPv6 is 2000::/3; anything else ipaddr.js calls "unicast" (e.g. the
  // deprecated IPv4-compatible ::a.b.c.d) is refused as well.
  if (ip.kind() === "ipv6" && !(ip as ipaddr.IPv6).match(ipaddr.IPv6.parse("2000::"), 3)) return "reserved";
  return null;
}

/** A resolved address of a host name. */
export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Options of {@link fetchRemoteAsset}. */
export interface FetchRemoteAssetOptions {
  /** Largest body accepted, bytes (checked on Content-Length and while streaming). */
  maxBytes: number;
  /** Time limit of the whole fetch (all redirects, headers and body), milliseconds. */
  timeoutMs: number;
  /** Aborts the fetch (e.g. the render was cancelled); rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Redirects followed, each one re-checked like the first URL. Default 3. */
  maxRedirects?: number;
  /** Test seam: resolves a host name to every address (default: the system resolver). */
  resolve?: (hostname: string) => Promise<ResolvedAddress[]>;
  /** Test seam: replaces {@link addressRefusal} (e.g. to allow a loopback test server). */
  refusal?: (address: string) => string | null;
  /** Test seam: extra trusted CA certificate(s), PEM. */
  ca?: string;
  /** Also accept plain `http:` URLs (self-hosted targets, e.g. webhooks with private addresses allowed). */
  allowHttp?: boolean;
}

/** What a URL check looks at: the scheme rule and the address rule. */
export type UrlCheckOptions = Pick<FetchRemoteAssetOptions, "resolve" | "refusal" | "allowHttp">;

/** What {@link fetchRemoteAsset} stored. */
export interface FetchedRemoteAsset {
  /** Bytes written to the destination file. */
  size: number;
  /** The server's Content-Type (informational: callers sniff the bytes). */
  contentType: string | null;
  /** The URL the body came from, after redirects. */
  finalUrl: string;
}

const systemResolve = async (hostname: string): Promise<ResolvedAddress[]> =>
  (await dnsLookup(hostname, { all: true, verbatim: true })).map((a) => ({
    address: a.address,
    family: a.family === 6 ? 6 : 4,
  }));

/**
 * Checks a URL and resolves it to one address that every later connection is pinned to:
 * https only (or http too with `allowHttp`), no credentials, and every address the host
 * resolves to must be allowed (one bad address refuses the host, so a DNS answer mixing
 * public and private addresses cannot slip through).
 * @returns the address to connect to (see {@link pinnedAgent}).
 * @throws RemoteAssetError `refused` (not allowed) or `network` (DNS failed).
 */
export async function checkUrl(url: URL, opts: UrlCheckOptions): Promise<ResolvedAddress> {
  if (url.protocol !== "https:" && !(opts.allowHttp && url.protocol === "http:")) {
    throw new RemoteAssetError(
      "refused",
      `Only ${opts.allowHttp ? "http(s)" : "https"} URLs are allowed, not ${url.protocol}`,
    );
  }
  if (url.username || url.password) {
    throw new RemoteAssetError("refused", "URLs with credentials are not fetched");
  }
  const host = url.hostname.replace(/^\[|\]$/g, "");
  let addresses: ResolvedAddress[];
  if (isIP(host)) {
    addresses = [{ address: host, family: isIP(host) === 6 ? 6 : 4 }];
  } else {
    try {
      addresses = await (opts.resolve ?? systemResolve)(host);
    } catch (err) {
      throw new RemoteAssetError("network", `Could not resolve ${host}: ${(err as Error).message}`, {
        cause: err,
      });
    }
    if (addresses.length === 0) throw new RemoteAssetError("network", `${host} has no address`);
  }
  const refusal = opts.refusal ?? addressRefusal;
  for (const a of addresses) {
    const why = refusal(a.address);
    if (why) {
      throw new RemoteAssetError(
        "refused",
        `${host} resolves to ${a.address} (${why}), which is not allowed: only public addresses are fetched`,
      );
    }
  }
  return addresses[0] as ResolvedAddress;
}

/**
 * Checks a URL the way {@link fetchRemoteAsset} does before it connects (https, no credentials,
 * every address of the host public), without fetching it: lets an API refuse a URL at once.
 * @param subject - what the URL is, for messages (e.g. "The callbackUrl").
 * @throws RemoteAssetError `refused` (not a URL, or not allowed) or `network` (DNS failed).
 */
export async function checkRemoteUrl(
  src: string,
  opts: UrlCheckOptions = {},
  subject = "The asset URL",
): Promise<void> {
  let url: URL;
  try {
    url = new URL(src);
  } catch {
    throw new RemoteAssetError("refused", `${subject} is not a valid URL`);
  }
  await checkUrl(url, opts);
}

/** A `lookup` that answers every query with the checked address (no second DNS query). */
function pinnedLookup(pinned: ResolvedAddress): LookupFunction {
  return ((_hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options?.all) callback(null, [{ address: pinned.address, family: pinned.family }]);
    else callback(null, pinned.address, pinned.family);
  }) as unknown as LookupFunction;
}

/**
 * A dispatcher of the process's HTTP client whose connections all go to `pinned` (the address
 * {@link checkUrl} checked) while TLS still verifies the certificate for the URL's host name.
 * Destroy it after use.
 * @param opts.connectTimeoutMs - TCP/TLS connect limit, milliseconds.
 */
export function pinnedAgent(
  pinned: ResolvedAddress,
  opts: { connectTimeoutMs: number; ca?: string },
): Promise<HttpDispatcher> {
  return createDispatcher({
    lookup: pinnedLookup(pinned),
    connectTimeoutMs: opts.connectTimeoutMs,
    ...(opts.ca ? { ca: opts.ca } : {}),
  });
}

/**
 * Downloads a composition's remote asset (`{ src: "https://…" }`) to a local file, guarding
 * against server-side request forgery:
 * - https only, no credentials in the URL;
 * - the host is resolved and every address checked ({@link addressRefusal}: loopback, private,
 *   link-local, CGNAT, unique-local, multicast, reserved and cloud-metadata addresses are
 *   refused); the TCP connection is pinned to the checked address (no second lookup, so DNS
 *   rebinding cannot swap it), TLS still verifies the certificate for the host name;
 * - redirects are followed by hand (at most `maxRedirects`), each target checked the same way;
 * - the body is limited to `maxBytes` (Content-Length and streamed count) and the whole fetch
 *   to `timeoutMs`.
 * Nothing is left at `dest` when it fails.
 *
 * @param src - the asset URL.
 * @param dest - local file to write (overwritten).
 * @throws RemoteAssetError with `reason` `refused` | `too_large` | `timeout` | `http_status` |
 *   `network`; the caller's `signal` reason when it aborts.
 */
export async function fetchRemoteAsset(
  src: string,
  dest: string,
  opts: FetchRemoteAssetOptions,
): Promise<FetchedRemoteAsset> {
  let url: URL;
  try {
    url = new URL(src);
  } catch {
    throw new RemoteAssetError("refused", "The asset URL is not a valid URL");
  }
  const timeout = AbortSignal.timeout(opts.timeoutMs);
  const signal = opts.signal ? AbortSignal.any([opts.signal, timeout]) : timeout;
  const maxRedirects = opts.maxRedirects ?? 3;
  const agents: HttpDispatcher[] = [];
  const failOnAbort = (err: unknown): never => {
    if (opts.signal?.aborted) throw opts.signal.reason;
    if (timeout.aborted) {
      throw new RemoteAssetError("timeout", `Fetching the asset took longer than ${opts.timeoutMs} ms`);
    }
    if (err instanceof RemoteAssetError) throw err;
    const described = describeHttpError(err, url);
    const message =
      described instanceof HttpClientError
        ? described.message
        : `Fetching the asset failed: ${(err as Error).message}`;
    throw new RemoteAssetError("network", message, {
      cause: err,
    });
  };
  try {
    for (let hop = 0; ; hop += 1) {
      const pinned = await checkUrl(url, opts);
      signal.throwIfAborted();
      const agent = await pinnedAgent(pinned, {
        connectTimeoutMs: Math.min(opts.timeoutMs, 15_000),
        ...(opts.ca ? { ca: opts.ca } : {}),
      });
      agents.push(agent);
      const res = await httpRequest(url, {
        method: "GET",
        dispatcher: agent,
        signal,
        headers: {
          accept: "video/*, audio/*, image/*, */*;q=0.5",
          "accept-encoding": "identity",
          "user-agent": "cutroom-render/1",
        },
      }).catch(failOnAbort);
      if (res.statusCode >= 300 && res.statusCode < 400 && res.headers.location) {
        await discard(res);
        if (hop >= maxRedirects) {
          throw new RemoteAssetError("http_status", `More than ${maxRedirects} redirects`);
        }
        const location = String(res.headers.location);
        try {
          url = new URL(location, url);
        } catch {
          throw new RemoteAssetError("http_status", "The server redirected to an invalid URL");
        }
        continue;
      }
      if (res.statusCode < 200 || res.statusCode >= 300) {
        await discard(res);
        throw new RemoteAssetError("http_status", `The server answered ${res.statusCode}`, {
          retryable: res.statusCode === 408 || res.statusCode === 429 || res.statusCode >= 500,
        });
      }
      const encoding = String(res.headers["content-encoding"] ?? "identity").toLowerCase();
      if (encoding !== "identity") {
        res.body.destroy();
        throw new RemoteAssetError(
          "http_status",
          `The server sent the asset ${encoding}-encoded; media files must be sent as they are`,
        );
      }
      const declared = Number(res.headers["content-length"]);
      if (Number.isFinite(declared) && declared > opts.maxBytes) {
        res.body.on("error", () => {}).destroy();
        throw new RemoteAssetError(
          "too_large",
          `The asset is ${declared} bytes, over the ${opts.maxBytes} limit`,
        );
      }
      let size = 0;
      const limit = new Transform({
        transform(chunk: Buffer, _enc, cb) {
          size += chunk.length;
          if (size > opts.maxBytes) {
            cb(new RemoteAssetError("too_large", `The asset is larger than the ${opts.maxBytes} byte limit`));
          } else {
            cb(null, chunk);
          }
        },
      });
      try {
        await pipeline(res.body, limit, createWriteStream(dest), { signal });
      } catch (err) {
        await rm(dest, { force: true });
        failOnAbort(err);
      }
      const type = res.headers["content-type"];
      return { size, contentType: type ? String(type) : null, finalUrl: url.toString() };
    }
  } finally {
    await Promise.all(agents.map((a) => a.destroy().catch(() => {})));
  }
}
