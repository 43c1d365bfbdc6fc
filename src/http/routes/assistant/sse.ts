import type { FastifyReply, FastifyRequest } from "fastify";

/** One server-sent event (WHATWG HTML "Server-sent events"): `id`, `event` and one-line JSON `data`. */
export function formatEvent(e: { seq: number; type: string; data: unknown }): string {
  return `id: ${e.seq}\nevent: ${e.type}\ndata: ${JSON.stringify(e.data)}\n\n`;
}

/**
 * Answers 200 `text/event-stream` and writes every event `events` yields until it ends,
 * with a `: ping` comment every `pingMs`. Closing the connection aborts the iteration through
 * `request.signal` (the producer keeps running: a disconnect is not a cancel).
 */
export async function streamEvents(
  request: FastifyRequest,
  reply: FastifyReply,
  opts: {
    pingMs: number;
    events: (signal: AbortSignal) => AsyncIterable<{ seq: number; type: string; data: unknown }>;
  },
): Promise<void> {
  const closed = request.signal;
  reply.hijack();
  const res = reply.raw;
  res.writeHead(200, {
    ...(reply.getHeaders() as Record<string, string>),
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-cache, no-transform",
    connection: "keep-alive",
    "x-accel-buffering": "no",
  });
  res.flushHeaders();
  const ping = setInterval(() => res.write(": ping\n\n"), opts.pingMs);
  try {
    for await (const e of opts.events(closed)) {
      if (closed.aborted) break;
      res.write(formatEvent(e));
      // Let the response uncork and reach the socket before the next database read.
      await new Promise((resolve) => setImmediate(resolve));
    }
  } catch (err) {
    request.log.error({ err }, "assistant event stream failed");
  } finally {
    clearInterval(ping);
    if (!res.writableEnded) res.end();
  }
}
