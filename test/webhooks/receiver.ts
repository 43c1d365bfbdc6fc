// A local webhook receiver for the tests: an HTTP server on 127.0.0.1 port 0 that records every
// request and answers with the statuses it is told to (one per request, then the last one again).
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";

/** One request the receiver got. */
export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** The webhook headers of a request, as `Webhook#verify` takes them. */
export function webhookHeaders(r: Received): Record<string, string> {
  return {
    "webhook-id": String(r.headers["webhook-id"]),
    "webhook-timestamp": String(r.headers["webhook-timestamp"]),
    "webhook-signature": String(r.headers["webhook-signature"]),
  };
}

/** Verifies a received message with the Standard Webhooks library; returns the parsed payload. */
export function verify(
  secret: string,
  r: Received,
): { type: string; timestamp: string; data: Record<string, unknown> } {
  return new Webhook(secret).verify(r.body, webhookHeaders(r)) as {
    type: string;
    timestamp: string;
    data: Record<string, unknown>;
  };
}

/** Starts a receiver. `statuses` are answered in turn per path (default always 200). */
export async function startReceiver() {
  const received: Received[] = [];
  const plans = new Map<string, number[]>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const path = req.url ?? "/";
      received.push({ path, headers: req.headers, body: Buffer.concat(chunks).toString("utf8") });
      const plan = plans.get(path) ?? [200];
      const status = plan.length > 1 ? (plan.shift() as number) : (plan[0] as number);
      res.writeHead(status, { "content-type": "text/plain" }).end(status < 300 ? "ok" : "no");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: (path: string) => `http://127.0.0.1:${port}${path}`,
    received,
    /** The requests to `path` so far. */
    at: (path: string) => received.filter((r) => r.path === path),
    /** Answers requests to `path` with these statuses in turn (the last one from then on). */
    answer(path: string, statuses: number[]) {
      plans.set(path, [...statuses]);
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Waits until `check` returns a truthy value (polling), or fails after `timeoutMs`. */
export async function eventually<T>(
  check: () => T | null | undefined | false | Promise<T | null | undefined | false>,
  timeoutMs = 60_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 100));
  }
}
