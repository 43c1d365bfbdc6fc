import type { ServerResponse } from "node:http";
import type { FastifyRequest } from "fastify";
import type { App } from "../types.ts";

declare module "fastify" {
  interface FastifyRequest {
    /**
     * Aborts when the client goes away before the response is complete (the connection closed
     * mid-upload, mid-stream or before the first byte); never after a complete response.
     * Created on first use; already aborted when the client left before that.
     */
    readonly signal: AbortSignal;
  }
}

const kResponse = Symbol("requestSignal.response");
const kController = Symbol("requestSignal.controller");

interface SignalSlots {
  [kResponse]: ServerResponse | null;
  [kController]: AbortController | null;
}

/** Why `request.signal` aborted: the client closed the connection before the response was complete. */
export class ClientGoneError extends Error {
  constructor() {
    super("the client went away before the response was complete");
    this.name = "ClientGoneError";
  }
}

function signalOf(request: FastifyRequest & SignalSlots): AbortSignal {
  const existing = request[kController];
  if (existing) return existing.signal;
  const controller = new AbortController();
  request[kController] = controller;
  const res = request[kResponse];
  if (!res) return controller.signal;
  const onClose = () => {
    if (!res.writableEnded) controller.abort(new ClientGoneError());
  };
  if (res.closed || res.destroyed) onClose();
  else res.once("close", onClose);
  return controller.signal;
}

/**
 * Decorates every request with `request.signal` (see its TSDoc), one `AbortSignal` per request
 * that work done for the client (an upload's storing, a preview's ffmpeg, a preflight's
 * downloads, an event stream) stops on. Listens to the raw response's `close` event, only for
 * the requests that read the signal. Register before the routes.
 */
export function registerRequestSignal(app: App): void {
  app.decorateRequest(kResponse, null);
  app.decorateRequest(kController, null);
  app.decorateRequest("signal", {
    getter(this: FastifyRequest) {
      return signalOf(this as FastifyRequest & SignalSlots);
    },
  });
  app.addHook("onRequest", (request, reply, done) => {
    (request as FastifyRequest & SignalSlots)[kResponse] = reply.raw;
    done();
  });
}
