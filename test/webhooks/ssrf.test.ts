import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.ts";
import { insertWebhookDeliveries, insertWebhookEndpoint } from "../../src/db/repositories/webhooks.ts";
import { newWebhookSecret } from "../../src/domain/webhooks/secret.ts";
import { tryWebhookDelivery } from "../../src/domain/webhooks/webhook-delivery-job.ts";
import { newId } from "../../src/ids.ts";
import { createLogger } from "../../src/logger.ts";
import { bearer, startTestApp, type TestApp } from "../helpers/app.ts";
import { startReceiver } from "./receiver.ts";

// Without WEBHOOK_ALLOW_PRIVATE: loopback, private, link-local and metadata targets are refused
// when an endpoint or callback is created, and again when a delivery is tried.
let t: TestApp;
let owner: { userId: string; key: string };
beforeAll(async () => {
  t = await startTestApp();
  owner = await t.createAccount();
});
afterAll(() => t.close());

async function post(url: string, payload: Record<string, unknown>) {
  const res = await t.app.inject({ method: "POST", url, headers: bearer(owner.key), payload });
  return { status: res.statusCode, body: res.json() };
}

describe("webhook targets without WEBHOOK_ALLOW_PRIVATE", () => {
  it.each([
    "https://127.0.0.1/hook",
    "https://[::1]/hook",
    "https://10.1.2.3/hook",
    "https://192.168.0.10/hook",
    "https://169.254.169.254/latest/meta-data",
    "https://[fd00:ec2::254]/hook",
    "http://93.184.215.14/hook",
  ])("refuses %s with 400 naming /url and the setting that would allow it", async (url) => {
    const res = await post("/api/v1/webhooks", { url, events: ["render.succeeded"] });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("invalid_request");
    expect(res.body.error.details).toEqual([expect.objectContaining({ path: "/url" })]);
    expect(res.body.error.message).toContain("WEBHOOK_ALLOW_PRIVATE=true");
  });

  it("does not point to WEBHOOK_ALLOW_PRIVATE for a refusal it would not lift", async () => {
    const res = await post("/api/v1/webhooks", {
      url: "https://user:secret@93.184.215.14/hook",
      events: ["render.succeeded"],
    });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toMatch(/credentials/);
    expect(res.body.error.message).not.toContain("WEBHOOK_ALLOW_PRIVATE");
  });

  it("refuses a private url in PATCH with 400 naming /url and leaves the endpoint as it was", async () => {
    // Stored directly: creating through the API would resolve the public host.
    const endpoint = await insertWebhookEndpoint(t.database.db, {
      id: newId("whk"),
      userId: owner.userId,
      url: "https://hooks.example.com/cutroom",
      events: ["render.succeeded"],
      secret: newWebhookSecret(),
    });
    for (const url of [
      "https://169.254.169.254/latest/meta-data",
      "https://[::1]/hook",
      "http://93.184.215.14/hook",
    ]) {
      const res = await t.app.inject({
        method: "PATCH",
        url: `/api/v1/webhooks/${endpoint.id}`,
        headers: bearer(owner.key),
        payload: { url, description: "moved" },
      });
      expect(res.statusCode, url).toBe(400);
      expect(res.json().error.details).toEqual([expect.objectContaining({ path: "/url" })]);
    }
    const got = await t.app.inject({ url: `/api/v1/webhooks/${endpoint.id}`, headers: bearer(owner.key) });
    expect(got.json()).toMatchObject({ url: "https://hooks.example.com/cutroom", description: null });
  });

  it("refuses a private callbackUrl on renders and generations with 400 naming /callbackUrl", async () => {
    const render = await post("/api/render", {
      compositionId: "cmp_01JD3Q5V0M8YB6Y2J4T6Z9KX1C",
      callbackUrl: "https://127.0.0.1:9/done",
    });
    expect(render.status).toBe(400);
    expect(render.body.error.details).toEqual([expect.objectContaining({ path: "/callbackUrl" })]);
    const generation = await post("/api/v1/generate/image", {
      prompt: "x",
      callbackUrl: "https://192.168.1.1/done",
    });
    expect(generation.status).toBe(400);
    expect(generation.body.error.details).toEqual([expect.objectContaining({ path: "/callbackUrl" })]);
  });

  it("names the refused field in the message: url of an endpoint, callbackUrl of a job", async () => {
    for (const [path, payload, field] of [
      ["/api/v1/webhooks", { url: "not a url", events: ["render.succeeded"] }, "url"],
      [
        "/api/render",
        { compositionId: "cmp_01JD3Q5V0M8YB6Y2J4T6Z9KX1C", callbackUrl: "not a url" },
        "callbackUrl",
      ],
      ["/api/v1/generate/image", { prompt: "x", callbackUrl: "https://10.0.0.1/done" }, "callbackUrl"],
    ] as const) {
      const res = await post(path, payload);
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body.error.message).toMatch(new RegExp(`^The ${field} `));
      expect(JSON.stringify(res.body)).not.toMatch(/asset URL/);
      expect(res.body.error.details).toEqual([expect.objectContaining({ path: `/${field}` })]);
    }
  });

  it("refuses a private target again at delivery time (an endpoint stored while it was allowed)", async () => {
    const rx = await startReceiver();
    try {
      const db = t.database.db;
      const endpoint = await insertWebhookEndpoint(db, {
        id: newId("whk"),
        userId: owner.userId,
        // The receiver's address over https: refused for its address before any connection.
        url: rx.url("/private").replace("http:", "https:"),
        events: ["upload.created"],
        secret: newWebhookSecret(),
      });
      const now = new Date();
      const [delivery] = await insertWebhookDeliveries(db, [
        {
          id: newId("dlv"),
          userId: owner.userId,
          endpointId: endpoint.id,
          messageId: newId("evt"),
          eventType: "webhook.test",
          payload: { type: "webhook.test", timestamp: now.toISOString(), data: {} },
        },
      ]);
      const sent: unknown[] = [];
      const config = loadConfig({}).webhooks;
      const outcome = await tryWebhookDelivery(
        {
          db,
          clock: { now: () => new Date() },
          enqueue: async (job) => {
            sent.push(job);
          },
          config: { ...config, retryScheduleSec: [] },
          log: createLogger("silent"),
        },
        { v: 1, deliveryId: delivery?.id as string, seq: 1 },
      );
      expect(outcome).toBe("failed");
      expect(rx.received).toHaveLength(0);
      expect(sent).toHaveLength(0);
      const res = await t.app.inject({
        method: "GET",
        url: `/api/v1/webhooks/${endpoint.id}/deliveries`,
        headers: bearer(owner.key),
      });
      const [row] = res.json().data;
      expect(row).toMatchObject({ status: "failed", tries: 1, lastResponseStatus: null });
      expect(row.lastError).toMatch(/127\.0\.0\.1 \(loopback\), which is not allowed/);
    } finally {
      await rx.close();
    }
  });
});
