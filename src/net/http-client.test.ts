import { execFile } from "node:child_process";
import { once } from "node:events";
import { createServer, type Server } from "node:net";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { configureHttpClient, HttpClientError, httpFetch, httpRequest, readLimited } from "./http-client.ts";

const run = promisify(execFile);
const BODY = Buffer.alloc(4 * 1024 * 1024, 0x61);

/**
 * The shape that crashed Node's built-in fetch: an HTTP/1.0 answer with no length and
 * `Connection: close`, a body far larger than a stream's buffer, then FIN at once.
 */
function startHttp10Server(): Server {
  return createServer((sock) => {
    sock.on("error", () => {});
    sock.once("data", () => {
      sock.write("HTTP/1.0 200 OK\r\ncontent-type: application/octet-stream\r\nconnection: close\r\n\r\n");
      sock.end(BODY);
    });
  }).listen(0, "127.0.0.1");
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("the HTTP client against an HTTP/1.0 peer that closes under a slow reader", () => {
  let server: Server;
  let url: string;
  beforeAll(async () => {
    server = startHttp10Server();
    await once(server, "listening");
    const address = server.address();
    url = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}/`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("reproduces the crash with Node's built-in fetch (server and client in a child process)", async () => {
    const script = `
      import { createServer } from "node:net";
      const body = Buffer.alloc(${BODY.length}, 0x61);
      const server = createServer((sock) => sock.once("data", () => {
        sock.write("HTTP/1.0 200 OK\\r\\nconnection: close\\r\\n\\r\\n");
        sock.end(body);
      })).listen(0, "127.0.0.1");
      await new Promise((r) => server.once("listening", r));
      const res = await fetch("http://127.0.0.1:" + server.address().port + "/");
      const reader = res.body.getReader();
      for (;;) { await new Promise((r) => setTimeout(r, 20)); if ((await reader.read()).done) break; }
      console.log("read it all");
      server.close();`;
    // Whether the FIN finds the parser paused depends on timing: a few tries, one crash is enough.
    const outcomes = [];
    for (let i = 0; i < 4; i++) {
      const outcome = await run(process.execPath, ["--input-type=module", "-e", script]).then(
        ({ stdout }) => ({ code: 0, output: stdout }),
        (err: { code: number; stderr: string }) => ({ code: err.code, output: err.stderr }),
      );
      outcomes.push(outcome);
      if (outcome.code !== 0) break;
    }
    const crash = outcomes.find((o) => o.code !== 0);
    expect(crash?.output).toContain("assert(!this.paused)");
  });

  it("reads the whole body through httpFetch, one slow read at a time", async () => {
    const res = await httpFetch(url);
    expect(res.status).toBe(200);
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    let size = 0;
    for (;;) {
      await pause(20);
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
    }
    expect(size).toBe(BODY.length);
  });

  it("reads the whole body through httpRequest after leaving it unread a while", async () => {
    const res = await httpRequest(url);
    await pause(300);
    expect((await readLimited(res, BODY.length, url)).equals(BODY)).toBe(true);
  });

  it("refuses a body over the reader's limit with a sentence", async () => {
    const res = await httpRequest(url);
    const err = await readLimited(res, 1024 * 1024, url).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HttpClientError);
    expect((err as Error).message).toMatch(
      /^127\.0\.0\.1:\d+ sent a response body over the 1048576 byte limit$/,
    );
  });

  it("ends a fetch whose body is not read by the total time limit, with a sentence", async () => {
    configureHttpClient({ requestTimeoutMs: 200 });
    try {
      const res = await httpFetch(url);
      await pause(400);
      const err = await res.arrayBuffer().catch((e: unknown) => e);
      expect((err as Error).message).toMatch(/did not finish the response within 200 ms/);
    } finally {
      configureHttpClient({});
    }
  });
});
