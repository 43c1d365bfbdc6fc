import type { App } from "../types.ts";

/**
 * When a response is sent before the request body was read to the end (a refused upload),
 * Node drains the rest of the body so that the client can read the early answer instead of
 * a TCP reset (closing at once with unread input makes the kernel send RST, and clients then
 * lose the response). This hook bounds that: after `lingerMs` the connection is destroyed,
 * so a client that keeps sending a huge body after its 413 does not tie up the server.
 *
 * @param opts.lingerMs - how long to keep discarding a refused body, milliseconds.
 */
export function registerLingeringClose(app: App, opts: { lingerMs: number }): void {
  app.addHook("onResponse", (request, _reply, done) => {
    done();
    const raw = request.raw;
    const socket = raw.socket as { destroy?: () => void } | null;
    if (raw.complete || raw.destroyed || typeof socket?.destroy !== "function") return;
    const timer = setTimeout(() => socket.destroy?.(), opts.lingerMs);
    timer.unref();
    raw.once("end", () => clearTimeout(timer));
    raw.once("close", () => clearTimeout(timer));
  });
}
