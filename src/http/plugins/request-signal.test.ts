import { once } from "node:events";
import http from "node:http";
import type { AddressInfo } from "node:net";
import Fastify from "fastify";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { App } from "../types.ts";
import { handleError } from "./error-handler.ts";
import { ClientGoneError, registerRequestSignal } from "./request-signal.ts";

let app: App | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

async function serve(register: (app: App) => void, logLines?: string[]): Promise<number> {
  app = (logLines
    ? Fastify({ logger: { level: "info", stream: { write: (line: string) => logLines.push(line) } } })
    : Fastify()) as unknown as App;
  registerRequestSignal(app);
  register(app);
  await app.listen({ port: 0, host: "127.0.0.1" });
  return (app.server.address() as AddressInfo).port;
}

/** Starts a request without waiting for its answer. */
function open(port: number, path: string, body?: string): http.ClientRequest {
  const req = http.request({ port, host: "127.0.0.1", path, method: body === undefined ? "GET" : "POST" });
  req.on("error", () => {});
  if (body !== undefined) req.write(body);
  else req.end();
  return req;
}

describe("request.signal", () => {
  it("aborts with ClientGoneError when the client disconnects mid-request", async () => {
    let seen: AbortSignal | undefined;
    const started = Promise.withResolvers<void>();
    const port = await serve((a) =>
      a.get("/wait", async (request) => {
        seen = request.signal;
        started.resolve();
        await once(request.signal, "abort");
        return "never sent";
      }),
    );
    const req = open(port, "/wait");
    await started.promise;
    expect(seen?.aborted).toBe(false);
    req.destroy();
    if (!seen?.aborted) await once(seen as AbortSignal, "abort");
    expect(seen?.reason).toBeInstanceOf(ClientGoneError);
  });

  it("aborts when the client leaves while the request body is still arriving", async () => {
    const aborted = Promise.withResolvers<unknown>();
    const port = await serve((a) => {
      a.addContentTypeParser("text/plain", (_request, payload, done) => done(null, payload));
      a.post("/upload", async (request) => {
        request.signal.addEventListener("abort", () => aborted.resolve(request.signal.reason));
        for await (const _chunk of request.body as AsyncIterable<Buffer>) {
          // Reads until the client goes away.
        }
        return "done";
      });
    });
    const req = http.request({
      port,
      host: "127.0.0.1",
      path: "/upload",
      method: "POST",
      headers: { "content-type": "text/plain", "content-length": "1000000" },
    });
    req.on("error", () => {});
    req.write("x".repeat(1000));
    await new Promise((resolve) => setTimeout(resolve, 50));
    req.destroy();
    expect(await aborted.promise).toBeInstanceOf(ClientGoneError);
  });

  it("never aborts after a complete response", async () => {
    let seen: AbortSignal | undefined;
    const port = await serve((a) =>
      a.get("/quick", async (request) => {
        seen = request.signal;
        return "ok";
      }),
    );
    const res = await fetch(`http://127.0.0.1:${port}/quick`);
    expect(await res.text()).toBe("ok");
    await app?.close();
    app = undefined;
    expect(seen?.aborted).toBe(false);
  });

  it("is the same signal on every read within one request", async () => {
    const port = await serve((a) =>
      a.get("/same", async (request) => {
        const first = request.signal;
        return first === request.signal;
      }),
    );
    const res = await fetch(`http://127.0.0.1:${port}/same`);
    expect(await res.text()).toBe("true");
  });

  it("work stopped on it is logged as the client leaving, not as a server error", async () => {
    const lines: string[] = [];
    const started = Promise.withResolvers<void>();
    const port = await serve((a) => {
      a.setErrorHandler(handleError);
      a.get("/work", async (request) => {
        started.resolve();
        await once(request.signal, "abort");
        throw request.signal.reason;
      });
    }, lines);
    const req = open(port, "/work");
    await started.promise;
    req.destroy();
    const entries = () => lines.map((l) => JSON.parse(l) as { level: number; msg: string });
    await vi.waitFor(() =>
      expect(entries().some((l) => l.level === 30 && l.msg.includes("went away"))).toBe(true),
    );
    expect(entries().filter((l) => l.level >= 50)).toEqual([]);
  });
});
