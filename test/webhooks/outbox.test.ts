import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { insertWebhookEndpoint } from "../../src/db/repositories/webhooks.ts";
import { createUploads } from "../../src/domain/uploads/create-uploads.ts";
import type { WebhookEvents } from "../../src/domain/webhooks/events.ts";
import { newWebhookSecret } from "../../src/domain/webhooks/secret.ts";
import { newId } from "../../src/ids.ts";
import { bearer, startTestApp, type TestApp } from "../helpers/app.ts";

// No worker: deliveries stay pending, so what the state changes wrote can be read back.
let t: TestApp;
let owner: { userId: string; key: string };
let endpointId: string;
beforeAll(async () => {
  t = await startTestApp();
  owner = await t.createAccount();
  // Stored directly: without WEBHOOK_ALLOW_PRIVATE the API refuses unresolvable or private hosts.
  const endpoint = await insertWebhookEndpoint(t.database.db, {
    id: newId("whk"),
    userId: owner.userId,
    url: "https://hooks.example.test/cutroom",
    events: ["render.cancelled", "upload.created"],
    secret: newWebhookSecret(),
  });
  endpointId = endpoint.id;
});
afterAll(() => t.close());

async function call(method: "GET" | "POST" | "DELETE", url: string, payload?: Record<string, unknown>) {
  const res = await t.app.inject({
    method,
    url,
    headers: bearer(owner.key),
    ...(payload ? { payload } : {}),
  });
  return { status: res.statusCode, body: res.body ? res.json() : null };
}

describe("events are written with the change that causes them", () => {
  it("cancelling a queued render records render.cancelled with the render as GET returns it", async () => {
    const comp = await call("POST", "/api/compositions", {
      name: "to cancel",
      canvas: { width: 160, height: 90, fps: 25, background: "#000000" },
      tracks: [
        { kind: "video", clips: [{ start: 0, duration: 1, asset: { type: "color", color: "#00ff00" } }] },
      ],
    });
    const render = await call("POST", "/api/render", { compositionId: comp.body.id });
    expect(render.status).toBe(202);
    const cancelled = await call("DELETE", `/api/render/${render.body.id}`);
    expect(cancelled.status).toBe(200);
    const log = (await call("GET", `/api/v1/webhooks/${endpointId}/deliveries`)).body.data;
    expect(log).toHaveLength(1);
    expect(log[0]).toMatchObject({
      eventType: "render.cancelled",
      status: "pending",
      tries: 0,
      payload: { type: "render.cancelled", data: { id: render.body.id, status: "cancelled" } },
    });
    // Cancelling again changes nothing and records nothing.
    expect((await call("DELETE", `/api/render/${render.body.id}`)).status).toBe(200);
    expect((await call("GET", `/api/v1/webhooks/${endpointId}/deliveries`)).body.data).toHaveLength(1);
  });

  it("an upload whose event cannot be recorded is not kept (one transaction)", async () => {
    const failing: WebhookEvents = {
      renderEnded: async () => {},
      generationEnded: async () => {},
      transcriptionEnded: async () => {},
      autoeditEnded: async () => {},
      uploadsCreated: async () => {
        throw new Error("queue down");
      },
    };
    await expect(
      createUploads(
        { db: t.database.db, store: t.runtime.store, events: failing },
        { userId: owner.userId, projectId: null },
        [{ data: new TextEncoder().encode("1\n00:00:00,000 --> 00:00:01,000\nHi\n"), filename: "a.srt" }],
      ),
    ).rejects.toThrow("queue down");
    const uploads = await call("GET", "/api/v1/uploads");
    expect(uploads.body.data).toEqual([]);
  });
});
