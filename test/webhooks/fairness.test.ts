// Webhook deliveries are fair across accounts and endpoints: one account's backlog to many slow
// endpoints does not hold another account's delivery behind it. Measured by order (how many of
// the backlog were delivered before the other account's message) and, for the record, time.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { insertWebhookEndpoint } from "../../src/db/repositories/webhooks.ts";
import { queueDeliveries } from "../../src/domain/webhooks/events.ts";
import { newWebhookSecret } from "../../src/domain/webhooks/secret.ts";
import { newId } from "../../src/ids.ts";
import { createEnqueue } from "../../src/queue/enqueue.ts";
import { startTestApp, type TestApp } from "../helpers/app.ts";

const SLOW_ENDPOINTS = 15;
const EVENTS = 20;
const SLOW_MS = 200;

let t: TestApp;
const arrivals: { path: string; at: number }[] = [];
const server = createServer((req, res) => {
  req.resume();
  req.on("end", () => {
    arrivals.push({ path: req.url ?? "/", at: performance.now() });
    const delay = req.url?.startsWith("/slow") ? SLOW_MS : 0;
    setTimeout(() => res.writeHead(200).end("ok"), delay);
  });
});
let base = "";
beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  t = await startTestApp({ worker: true, env: { WEBHOOK_ALLOW_PRIVATE: "true" } });
});
afterAll(async () => {
  await t.close();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

async function endpoint(userId: string, path: string) {
  return insertWebhookEndpoint(t.database.db, {
    id: newId("whk"),
    userId,
    url: `${base}${path}`,
    events: ["upload.created"],
    secret: newWebhookSecret(),
  });
}

const message = (userId: string, endpointId: string) => ({
  id: newId("dlv"),
  userId,
  endpointId,
  messageId: newId("evt"),
  eventType: "upload.created",
  payload: { type: "upload.created", timestamp: new Date().toISOString(), data: {} },
});

describe("webhook delivery fairness", () => {
  it("delivers another account's message before one account's backlog to slow endpoints drains", async () => {
    const busy = await t.createAccount();
    const other = await t.createAccount();
    const slow = await Promise.all(
      Array.from({ length: SLOW_ENDPOINTS }, (_, i) => endpoint(busy.userId, `/slow/${i}`)),
    );
    const fast = await endpoint(other.userId, "/fast");
    const enqueue = createEnqueue(t.runtime.queue);
    // A 20-file upload's events for 15 endpoints: 300 deliveries, queued first.
    await t.database.db.transaction((tx) =>
      queueDeliveries(
        enqueue,
        tx,
        Array.from({ length: EVENTS }).flatMap(() => slow.map((e) => message(busy.userId, e.id))),
      ),
    );
    const queuedAt = performance.now();
    await t.database.db.transaction((tx) => queueDeliveries(enqueue, tx, [message(other.userId, fast.id)]));
    for (let i = 0; i < 6000 && !arrivals.some((a) => a.path === "/fast"); i++) {
      await new Promise((r) => setTimeout(r, 10));
    }
    const fastAt = arrivals.findIndex((a) => a.path === "/fast");
    expect(fastAt).toBeGreaterThanOrEqual(0);
    const backlogBefore = arrivals.slice(0, fastAt).length;
    const waitedMs = Math.round((arrivals[fastAt]?.at ?? 0) - queuedAt);
    console.log(
      `webhook fairness: other account delivered after ${waitedMs} ms, ${backlogBefore} of ${SLOW_ENDPOINTS * EVENTS} backlog deliveries before it`,
    );
    // FIFO would deliver all 300 first; fairly, at most the tries already running or claimed.
    expect(backlogBefore).toBeLessThan(SLOW_ENDPOINTS * 2);
  }, 180_000);
});
