// A hostile HTTP peer for the outbound clients: a raw TCP server (node:net, 127.0.0.1, port 0)
// that parses each request, asks `respond` for a proper answer, and then sends that answer
// mangled at the byte level by the current `mode`.
import { randomUUID } from "node:crypto";
import { once } from "node:events";
import { createServer, type Socket } from "node:net";
import { gzipSync } from "node:zlib";

/** How the peer sends an answer. */
export type HostileMode =
  /** As HTTP/1.1 should be: Content-Length, then the connection closes. */
  | "well-behaved"
  /** Headers and half the body, then FIN. */
  | "close-mid-body"
  /** Headers (with a Content-Length), then FIN. */
  | "close-after-headers"
  /** HTTP/1.0 style: no Content-Length, `Connection: close`, a large body (JSON and SSE padded to 2 MiB), then FIN. */
  | "http10-large-body"
  /** The whole answer, one byte a second. */
  | "drip"
  /** A status line and 256 KiB of headers. */
  | "oversized-headers"
  /** A Content-Length 1000 bytes over the body, then FIN. */
  | "length-too-long"
  /** A Content-Length 10 bytes under the body, and the whole body. */
  | "length-too-short"
  /** `Content-Encoding: gzip` over 64 MiB of zeros (64 KiB on the wire). */
  | "gzip-bomb"
  /** `302` back to the same path, forever. */
  | "redirect-loop";

/** Every mode that is not well-behaved. */
export const HOSTILE_MODES: readonly HostileMode[] = [
  "close-mid-body",
  "close-after-headers",
  "http10-large-body",
  "drip",
  "oversized-headers",
  "length-too-long",
  "length-too-short",
  "gzip-bomb",
  "redirect-loop",
];

/** A request the peer read. */
export interface PeerRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: Buffer;
}

/** The proper answer to a request, before the mode mangles it. */
export interface PeerAnswer {
  status: number;
  headers?: Record<string, string>;
  body?: Buffer | string;
}

/** A running peer. */
export interface HostilePeer {
  /** `http://127.0.0.1:<port>`. */
  url: string;
  /** How answers are sent; change it between tests. */
  mode: HostileMode;
  /** Which requests the mode applies to (the others are answered well-behaved); default all. */
  mangles: (req: PeerRequest) => boolean;
  /** Every request read, in order. */
  requests: PeerRequest[];
  close(): Promise<void>;
}

let bomb: Buffer | undefined;
/** 64 MiB of zeros, gzipped (made once). */
function gzipBomb(): Buffer {
  bomb ??= gzipSync(Buffer.alloc(64 * 1024 * 1024), { level: 1 });
  return bomb;
}

const REASONS: Record<number, string> = {
  200: "OK",
  201: "Created",
  202: "Accepted",
  302: "Found",
  404: "Not Found",
};

/** Reads one request off `buffered` (head, then a Content-Length or chunked body), or null if incomplete. */
function parseRequest(buffered: Buffer): { req: PeerRequest; rest: Buffer } | null {
  const end = buffered.indexOf("\r\n\r\n");
  if (end < 0) return null;
  const [line = "", ...lines] = buffered.subarray(0, end).toString("latin1").split("\r\n");
  const [method = "GET", path = "/"] = line.split(" ");
  const headers: Record<string, string> = {};
  for (const l of lines) {
    const colon = l.indexOf(":");
    headers[l.slice(0, colon).trim().toLowerCase()] = l.slice(colon + 1).trim();
  }
  let rest = buffered.subarray(end + 4);
  let body: Buffer = Buffer.alloc(0);
  if (headers["content-length"]) {
    const n = Number(headers["content-length"]);
    if (rest.length < n) return null;
    body = rest.subarray(0, n);
    rest = rest.subarray(n);
  } else if (/chunked/i.test(headers["transfer-encoding"] ?? "")) {
    const parts: Buffer[] = [];
    let at = 0;
    for (;;) {
      const eol = rest.indexOf("\r\n", at);
      if (eol < 0) return null;
      const size = Number.parseInt(rest.subarray(at, eol).toString("latin1"), 16);
      if (rest.length < eol + 2 + size + 2) return null;
      if (size === 0) {
        rest = rest.subarray(eol + 4);
        break;
      }
      parts.push(rest.subarray(eol + 2, eol + 2 + size));
      at = eol + 2 + size + 2;
    }
    body = Buffer.concat(parts);
  }
  return { req: { method, path, headers, body }, rest };
}

/** Writes `data` one byte a second until it is all sent or the socket closes. */
function drip(sock: Socket, data: Buffer): void {
  let i = 0;
  const timer = setInterval(() => {
    if (sock.destroyed || i >= data.length) {
      clearInterval(timer);
      if (!sock.destroyed) sock.end();
      return;
    }
    sock.write(data.subarray(i, i + 1));
    i += 1;
  }, 1000);
  sock.once("close", () => clearInterval(timer));
}

/** Sends `answer` to `req` as `mode` says. */
function send(sock: Socket, req: PeerRequest, answer: PeerAnswer, mode: HostileMode): void {
  let body: Buffer = Buffer.from(answer.body ?? "");
  let status = answer.status;
  const headers: Record<string, string> = { ...answer.headers };
  let version = "HTTP/1.1";
  let length: number | null = body.length;
  let sent = body;
  let extraHead = "";
  switch (mode) {
    case "close-mid-body":
      sent = body.subarray(0, Math.floor(body.length / 2));
      break;
    case "close-after-headers":
      sent = Buffer.alloc(0);
      break;
    case "http10-large-body": {
      version = "HTTP/1.0";
      length = null;
      if (/json|event-stream/.test(headers["content-type"] ?? "")) {
        body = Buffer.concat([body, Buffer.alloc(Math.max(0, 2 * 1024 * 1024 - body.length), "\n")]);
      }
      sent = body;
      break;
    }
    case "oversized-headers":
      extraHead = Array.from({ length: 256 }, (_, i) => `x-pad-${i}: ${"a".repeat(1000)}\r\n`).join("");
      break;
    case "length-too-long":
      length = body.length + 1000;
      break;
    case "length-too-short":
      length = Math.max(0, body.length - 10);
      break;
    case "gzip-bomb":
      sent = gzipBomb();
      length = sent.length;
      headers["content-encoding"] = "gzip";
      break;
    case "redirect-loop":
      status = 302;
      headers.location = req.path;
      sent = Buffer.alloc(0);
      length = 0;
      break;
    default:
      break;
  }
  const head =
    `${version} ${status} ${REASONS[status] ?? "Status"}\r\n` +
    Object.entries(headers)
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join("") +
    (length === null ? "" : `content-length: ${length}\r\n`) +
    "connection: close\r\n" +
    extraHead +
    "\r\n";
  const bytes = Buffer.concat([Buffer.from(head, "latin1"), sent]);
  if (mode === "drip") drip(sock, bytes);
  else sock.end(bytes);
}

/**
 * Starts a peer. `respond` gives the proper answer to each request (e.g. the fal queue
 * protocol, an OpenAI endpoint); `mode` decides how it goes on the wire.
 */
export async function startHostilePeer(
  respond: (req: PeerRequest, peer: HostilePeer) => PeerAnswer,
  mode: HostileMode = "well-behaved",
): Promise<HostilePeer> {
  const sockets = new Set<Socket>();
  const peer: HostilePeer = {
    url: "",
    mode,
    mangles: () => true,
    requests: [],
    close: async () => {},
  };
  const server = createServer((sock) => {
    sockets.add(sock);
    sock.on("close", () => sockets.delete(sock));
    sock.on("error", () => {});
    let buffered = Buffer.alloc(0);
    let answered = false;
    sock.on("data", (chunk: Buffer) => {
      if (answered) return;
      buffered = Buffer.concat([buffered, chunk]);
      const parsed = parseRequest(buffered);
      if (!parsed) return;
      answered = true;
      peer.requests.push(parsed.req);
      const answer = respond(parsed.req, peer);
      send(sock, parsed.req, answer, peer.mangles(parsed.req) ? peer.mode : "well-behaved");
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const address = server.address();
  peer.url = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
  peer.close = async () => {
    for (const s of sockets) s.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return peer;
}

/** A JSON answer. */
export function jsonAnswer(status: number, body: unknown): PeerAnswer {
  return { status, headers: { "content-type": "application/json" }, body: JSON.stringify(body) };
}

/**
 * The answers of fal's queue protocol (what `@fal-ai/client` speaks): a submission is queued,
 * its status is COMPLETED at once, its result names one image under `/files/`, which is `file`.
 */
export function falQueueAnswers(file: PeerAnswer): (req: PeerRequest, peer: HostilePeer) => PeerAnswer {
  return (req, peer) => {
    const at = new URL(req.path, peer.url).pathname;
    if (at.startsWith("/files/")) return file;
    const m = /^\/(.+?)\/requests\/([\w-]+)(\/status|\/cancel)?$/.exec(at);
    if (m?.[3] === "/cancel") return jsonAnswer(202, { status: "CANCELLATION_REQUESTED" });
    if (m?.[3]) return jsonAnswer(200, { status: "COMPLETED", request_id: m[2] });
    if (m) {
      return jsonAnswer(200, {
        images: [{ url: `${peer.url}/files/${m[2]}.png`, content_type: "image/png" }],
      });
    }
    const id = randomUUID();
    const base = `${peer.url}/${at.split("/").slice(1, 3).join("/")}/requests/${id}`;
    return jsonAnswer(200, {
      request_id: id,
      status: "IN_QUEUE",
      response_url: base,
      status_url: `${base}/status`,
      cancel_url: `${base}/cancel`,
    });
  };
}
