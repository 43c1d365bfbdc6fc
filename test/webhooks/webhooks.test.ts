import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  countWebhookEndpointFailure,
  insertWebhookDeliveries,
  requeueWebhookDelivery,
} from "../../src/db/repositories/webhooks.ts";
import { newId } from "../../src/ids.ts";
import { bearer, startTestApp, type TestApp } from "../helpers/app.ts";
import { eventually, type Received, startReceiver, verify } from "./receiver.ts";

// One app with an in-process worker, private targets allowed (the receiver is on 127.0.0.1),
// retries at once (two retries: three tries per delivery) and endpoints disabled after two
// deliveries in a row failed every try.
let t: TestApp;
let rx: Awaited<ReturnType<typeof startReceiver>>;
let owner: { userId: string; key: string };
let other: { userId: string; key: string };

beforeAll(async () => {
  rx = await startReceiver();
  t = await startTestApp({
    worker: true,
    env: {
      WEBHOOK_ALLOW_PRIVATE: "true",
      WEBHOOK_RETRY_SCHEDULE: "0,0",
      WEBHOOK_DISABLE_AFTER_FAILURES: "2",
    },
  });
  owner = await t.createAccount();
  other = await t.createAccount();
});
afterAll(async () => {
  await t.close();
  await rx.close();
});

async function call(
  key: string,
  method: "GET" | "POST" | "PATCH" | "DELETE",
  url: string,
  payload?: unknown,
) {
  const res = await t.app.inject({
    method,
    url,
    headers: bearer(key),
    ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
  });
  return { status: res.statusCode, body: res.body ? res.json() : null, headers: res.headers };
}

async function createEndpoint(key: string, path: string, events: string[]) {
  const res = await call(key, "POST", "/api/v1/webhooks", { url: rx.url(path), events, description: path });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string; secret: string; status: string };
}

async function deliveries(key: string, endpointId: string) {
  const res = await call(key, "GET", `/api/v1/webhooks/${endpointId}/deliveries`);
  expect(res.status).toBe(200);
  return res.body.data as {
    id: string;
    messageId: string;
    eventType: string;
    status: string;
    tries: number;
    lastResponseStatus: number | null;
    lastError: string | null;
  }[];
}

describe("webhook endpoints", () => {
  it("create answers 201 with a whsec_ secret shown once; get and list never show it", async () => {
    const created = await createEndpoint(owner.key, "/crud", ["render.succeeded"]);
    expect(created.id).toMatch(/^whk_/);
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    const got = await call(owner.key, "GET", `/api/v1/webhooks/${created.id}`);
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({ id: created.id, events: ["render.succeeded"], status: "enabled" });
    expect(got.body.secret).toBeUndefined();
    const list = await call(owner.key, "GET", "/api/v1/webhooks?limit=1");
    expect(list.status).toBe(200);
    expect(list.body.data).toHaveLength(1);
    expect(list.body.data[0].secret).toBeUndefined();
    expect(JSON.stringify(list.body)).not.toContain(created.secret);
  });

  it("an account has at most 20 endpoints (409 beyond)", async () => {
    const crowded = await t.createAccount();
    for (let i = 0; i < 20; i++) await createEndpoint(crowded.key, `/many-${i}`, ["render.failed"]);
    const over = await call(crowded.key, "POST", "/api/v1/webhooks", {
      url: rx.url("/many-x"),
      events: ["render.failed"],
    });
    expect(over.status).toBe(409);
    expect(over.body.error).toMatchObject({ code: "conflict", limit: 20 });
    const page = await call(crowded.key, "GET", "/api/v1/webhooks?limit=15");
    expect(page.body.data).toHaveLength(15);
    const rest = await call(crowded.key, "GET", `/api/v1/webhooks?limit=15&cursor=${page.body.nextCursor}`);
    expect(rest.body.data).toHaveLength(5);
    expect(rest.body.nextCursor).toBeNull();
  });

  it("validation 400s name the fields", async () => {
    const noUrl = await call(owner.key, "POST", "/api/v1/webhooks", { events: ["render.failed"] });
    expect(noUrl.status).toBe(400);
    expect(JSON.stringify(noUrl.body.error.details)).toContain("url");
    const badEvent = await call(owner.key, "POST", "/api/v1/webhooks", {
      url: rx.url("/x"),
      events: ["render.done"],
    });
    expect(badEvent.status).toBe(400);
    expect(badEvent.body.error.details.map((d: { path: string }) => d.path)).toContain("/events/0");
    const empty = await call(owner.key, "POST", "/api/v1/webhooks", { url: rx.url("/x"), events: [] });
    expect(empty.status).toBe(400);
    expect(empty.body.error.details.map((d: { path: string }) => d.path)).toContain("/events");
    const notUrl = await call(owner.key, "POST", "/api/v1/webhooks", {
      url: "not a url",
      events: ["render.failed"],
    });
    expect(notUrl.status).toBe(400);
    expect(notUrl.body.error.details).toEqual([expect.objectContaining({ path: "/url" })]);
    const extra = await call(owner.key, "POST", "/api/v1/webhooks", {
      url: rx.url("/x"),
      events: ["render.failed"],
      secret: "mine",
    });
    expect(extra.status).toBe(400);
  });

  it("a read-only key may list but not create, change, test, rotate or delete (403)", async () => {
    const endpoint = await createEndpoint(owner.key, "/scopes", ["upload.created"]);
    const { key: readKey } = await t.addKey(owner.userId, ["read"]);
    expect((await call(readKey, "GET", "/api/v1/webhooks")).status).toBe(200);
    expect((await call(readKey, "GET", `/api/v1/webhooks/${endpoint.id}/deliveries`)).status).toBe(200);
    const refused = [
      await call(readKey, "POST", "/api/v1/webhooks", { url: rx.url("/r"), events: ["upload.created"] }),
      await call(readKey, "POST", `/api/v1/webhooks/${endpoint.id}/test`),
      await call(readKey, "POST", `/api/v1/webhooks/${endpoint.id}/rotate-secret`),
      await call(readKey, "PATCH", `/api/v1/webhooks/${endpoint.id}`, { status: "disabled" }),
      await call(readKey, "DELETE", `/api/v1/webhooks/${endpoint.id}`),
      await call(readKey, "GET", "/api/v1/webhooks/callback-secret"),
    ];
    for (const r of refused) expect(r.status).toBe(403);
    const got = await call(owner.key, "GET", `/api/v1/webhooks/${endpoint.id}`);
    expect(got.body).toMatchObject({ status: "enabled" });
  });

  it("another owner's endpoint is a 404 everywhere, and their delete leaves it alone", async () => {
    const endpoint = await createEndpoint(owner.key, "/owned", ["upload.created"]);
    for (const [method, url] of [
      ["GET", `/api/v1/webhooks/${endpoint.id}`],
      ["GET", `/api/v1/webhooks/${endpoint.id}/deliveries`],
      ["POST", `/api/v1/webhooks/${endpoint.id}/test`],
      ["POST", `/api/v1/webhooks/${endpoint.id}/rotate-secret`],
      ["POST", `/api/v1/webhooks/${endpoint.id}/deliveries/dlv_01JD3Q7A2B3C4D5E6F7G8H9J0K/redeliver`],
      ["PATCH", `/api/v1/webhooks/${endpoint.id}`],
    ] as const) {
      const res = await call(other.key, method, url, method === "PATCH" ? { status: "disabled" } : undefined);
      expect(res.status, `${method} ${url}`).toBe(404);
      expect(res.body.error.code).toBe("not_found");
    }
    expect((await call(other.key, "DELETE", `/api/v1/webhooks/${endpoint.id}`)).status).toBe(204);
    const untouched = await call(owner.key, "GET", `/api/v1/webhooks/${endpoint.id}`);
    expect(untouched.body).toMatchObject({ status: "enabled", events: ["upload.created"] });
    // Deleting is idempotent for the owner too.
    expect((await call(owner.key, "DELETE", `/api/v1/webhooks/${endpoint.id}`)).status).toBe(204);
    expect((await call(owner.key, "DELETE", `/api/v1/webhooks/${endpoint.id}`)).status).toBe(204);
    expect((await call(owner.key, "GET", `/api/v1/webhooks/${endpoint.id}`)).status).toBe(404);
  });
});

describe("changing an endpoint (PATCH)", () => {
  const patch = (key: string, id: string, body: unknown) =>
    call(key, "PATCH", `/api/v1/webhooks/${id}`, body);

  it("changes url, events and description; later messages go to the new url; never shows the secret", async () => {
    const endpoint = await createEndpoint(owner.key, "/moved-from", ["render.failed"]);
    const changed = await patch(owner.key, endpoint.id, {
      url: rx.url("/moved-to"),
      events: ["upload.created", "render.succeeded"],
      description: "Moved",
    });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    expect(changed.body).toMatchObject({
      id: endpoint.id,
      url: rx.url("/moved-to"),
      events: ["upload.created", "render.succeeded"],
      description: "Moved",
      status: "enabled",
    });
    expect(changed.body.secret).toBeUndefined();
    expect(JSON.stringify(changed.body)).not.toContain(endpoint.secret);
    // Only the fields given change; null removes the description.
    const cleared = await patch(owner.key, endpoint.id, { description: null });
    expect(cleared.body).toMatchObject({
      url: rx.url("/moved-to"),
      events: ["upload.created", "render.succeeded"],
    });
    expect(cleared.body.description).toBeNull();
    expect((await call(owner.key, "GET", `/api/v1/webhooks/${endpoint.id}`)).body).toEqual(cleared.body);

    await call(owner.key, "POST", `/api/v1/webhooks/${endpoint.id}/test`);
    const [msg] = await eventually(() => rx.at("/moved-to").length > 0 && rx.at("/moved-to"));
    // Same secret after a change of URL.
    expect(verify(endpoint.secret, msg as Received).type).toBe("webhook.test");
    expect(rx.at("/moved-from")).toEqual([]);
  });

  it("validation 400s name the fields; unknown fields and an empty body are refused; nothing changes", async () => {
    const endpoint = await createEndpoint(owner.key, "/patch-400", ["render.failed"]);
    const cases: [unknown, string][] = [
      [{ events: ["render.done"] }, "/events/0"],
      [{ events: [] }, "/events"],
      [{ url: "not a url" }, "/url"],
      [{ status: "paused" }, "/status"],
      [{ description: "x".repeat(501) }, "/description"],
    ];
    for (const [body, path] of cases) {
      const res = await patch(owner.key, endpoint.id, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.code).toBe("invalid_request");
      expect(res.body.error.details.map((d: { path: string }) => d.path)).toContain(path);
    }
    // `enabled` was the old name of `status` here; one model for the endpoint and its PATCH.
    for (const body of [{ secret: "whsec_mine" }, { enabled: true }, {}]) {
      const res = await patch(owner.key, endpoint.id, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
    const got = await call(owner.key, "GET", `/api/v1/webhooks/${endpoint.id}`);
    expect(got.body).toMatchObject({
      url: rx.url("/patch-400"),
      events: ["render.failed"],
      description: "/patch-400",
    });
    expect(got.body.updatedAt).toBe(got.body.createdAt);
  });

  it("status: disabled disables it by hand and stops its pending deliveries; enabled enables it again without resending them", async () => {
    const endpoint = await createEndpoint(owner.key, "/by-hand", ["upload.created"]);
    // A delivery waiting for its next try (no job queued for it).
    const [pending] = await insertWebhookDeliveries(t.database.db, [
      {
        id: newId("dlv"),
        userId: owner.userId,
        endpointId: endpoint.id,
        messageId: newId("evt"),
        eventType: "webhook.test",
        payload: { type: "webhook.test", timestamp: new Date().toISOString(), data: {} },
        nextTryAt: new Date(Date.now() + 3600_000),
      },
    ]);
    const off = await patch(owner.key, endpoint.id, { status: "disabled" });
    expect(off.status).toBe(200);
    expect(off.body).toMatchObject({ status: "disabled", disabledReason: "Disabled by the owner" });
    expect(off.body.disabledAt).toEqual(expect.any(String));
    const [stopped] = await deliveries(owner.key, endpoint.id);
    expect(stopped).toMatchObject({
      id: pending?.id,
      status: "failed",
      tries: 0,
      lastError: "Not tried again: the endpoint was disabled",
    });
    // Disabling again keeps the first reason and time.
    const again = await patch(owner.key, endpoint.id, { status: "disabled", description: "paused" });
    expect(again.body).toMatchObject({
      status: "disabled",
      disabledAt: off.body.disabledAt,
      description: "paused",
    });

    const on = await patch(owner.key, endpoint.id, { status: "enabled" });
    expect(on.status).toBe(200);
    expect(on.body).toMatchObject({
      status: "enabled",
      disabledReason: null,
      disabledAt: null,
      consecutiveFailures: 0,
    });
    // What ended while it was disabled is not resent.
    expect(await deliveries(owner.key, endpoint.id)).toEqual([
      expect.objectContaining({ id: pending?.id, status: "failed", tries: 0 }),
    ]);
    expect(rx.at("/by-hand")).toEqual([]);
  });

  it("status: enabled enables an endpoint disabled after failures and starts its failure count again", async () => {
    const endpoint = await createEndpoint(owner.key, "/revive", ["upload.created"]);
    expect(
      await countWebhookEndpointFailure(t.database.db, {
        id: endpoint.id,
        disableAfter: 1,
        reason: "1 delivery in a row failed on every try; the last one: The receiver answered 503",
        now: new Date(),
      }),
    ).toBe(true);
    const disabled = await call(owner.key, "GET", `/api/v1/webhooks/${endpoint.id}`);
    expect(disabled.body).toMatchObject({ status: "disabled", consecutiveFailures: 1 });
    const on = await patch(owner.key, endpoint.id, { status: "enabled" });
    expect(on.body).toMatchObject({
      status: "enabled",
      disabledReason: null,
      disabledAt: null,
      consecutiveFailures: 0,
    });
  });
});

describe("webhook delivery", () => {
  it("a test send arrives signed per Standard Webhooks and verifies with the library", async () => {
    const endpoint = await createEndpoint(owner.key, "/test-send", ["render.failed"]);
    const sent = await call(owner.key, "POST", `/api/v1/webhooks/${endpoint.id}/test`);
    expect(sent.status).toBe(202);
    expect(sent.body).toMatchObject({ eventType: "webhook.test", status: "pending", tries: 0 });
    const [msg] = await eventually(() => rx.at("/test-send").length > 0 && rx.at("/test-send"));
    const payload = verify(endpoint.secret, msg as Received);
    expect(payload).toMatchObject({ type: "webhook.test", data: { endpointId: endpoint.id } });
    expect(msg?.headers["webhook-id"]).toBe(sent.body.messageId);
    expect(msg?.headers["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    const [log] = await eventually(async () => {
      const d = await deliveries(owner.key, endpoint.id);
      return d[0]?.status === "succeeded" && d;
    });
    expect(log).toMatchObject({ tries: 1, lastResponseStatus: 200, lastError: null });
  });

  it("retries after a 500 with the same webhook-id until the receiver answers 200", async () => {
    rx.answer("/flaky", [500, 200]);
    const endpoint = await createEndpoint(owner.key, "/flaky", ["upload.created"]);
    await call(owner.key, "POST", `/api/v1/webhooks/${endpoint.id}/test`);
    const msgs = await eventually(() => rx.at("/flaky").length >= 2 && rx.at("/flaky"));
    expect(msgs[0]?.headers["webhook-id"]).toBe(msgs[1]?.headers["webhook-id"]);
    for (const m of msgs) expect(verify(endpoint.secret, m).type).toBe("webhook.test");
    const [log] = await eventually(async () => {
      const d = await deliveries(owner.key, endpoint.id);
      return d[0]?.status === "succeeded" && d;
    });
    expect(log).toMatchObject({ tries: 2, lastResponseStatus: 200, lastError: null });
  });

  it("disables an endpoint after deliveries in a row fail every try, shows why, and a good redelivery re-enables it", async () => {
    rx.answer("/down", [503]);
    const endpoint = await createEndpoint(owner.key, "/down", ["upload.created"]);
    for (let i = 0; i < 2; i++) {
      await call(owner.key, "POST", `/api/v1/webhooks/${endpoint.id}/test`);
      await eventually(async () =>
        (await deliveries(owner.key, endpoint.id)).every((d) => d.status === "failed"),
      );
    }
    const got = await call(owner.key, "GET", `/api/v1/webhooks/${endpoint.id}`);
    expect(got.body).toMatchObject({ status: "disabled", consecutiveFailures: 2 });
    expect(got.body.disabledReason).toContain("The receiver answered 503");
    const log = await deliveries(owner.key, endpoint.id);
    expect(log.map((d) => [d.status, d.tries, d.lastResponseStatus])).toEqual([
      ["failed", 3, 503],
      ["failed", 3, 503],
    ]);
    expect(rx.at("/down")).toHaveLength(6);

    rx.answer("/down", [200]);
    const again = await call(
      owner.key,
      "POST",
      `/api/v1/webhooks/${endpoint.id}/deliveries/${log[0]?.id}/redeliver`,
    );
    expect(again.status).toBe(202);
    expect(again.body).toMatchObject({ status: "pending", tries: 3 });
    await eventually(
      async () => (await call(owner.key, "GET", `/api/v1/webhooks/${endpoint.id}`)).body.status === "enabled",
    );
    const after = await deliveries(owner.key, endpoint.id);
    expect(after[0]).toMatchObject({ status: "succeeded", tries: 4, lastResponseStatus: 200 });
    const last = rx.at("/down").at(-1) as Received;
    expect(last.headers["webhook-id"]).toBe(after[0]?.messageId);
    expect(verify(endpoint.secret, last).type).toBe("webhook.test");
  });

  it("requeueing a delivery that no longer exists (its endpoint deleted meanwhile) finds nothing", async () => {
    // The redeliver route answers 404 on this, not 500: the row can go between its check and the requeue.
    expect(await requeueWebhookDelivery(t.database.db, newId("dlv"), new Date())).toBeNull();
  });

  it("rotate-secret: messages signed after it fail verification with the old secret", async () => {
    const endpoint = await createEndpoint(owner.key, "/rotate", ["upload.created"]);
    await call(owner.key, "POST", `/api/v1/webhooks/${endpoint.id}/test`);
    const [before] = await eventually(() => rx.at("/rotate").length >= 1 && rx.at("/rotate"));
    expect(verify(endpoint.secret, before as Received).type).toBe("webhook.test");

    const rotated = await call(owner.key, "POST", `/api/v1/webhooks/${endpoint.id}/rotate-secret`);
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(endpoint.secret);
    await call(owner.key, "POST", `/api/v1/webhooks/${endpoint.id}/test`);
    const msgs = await eventually(() => rx.at("/rotate").length >= 2 && rx.at("/rotate"));
    const after = msgs[1] as Received;
    expect(() => verify(endpoint.secret, after)).toThrow();
    expect(verify(rotated.body.secret, after).type).toBe("webhook.test");
  });

  it("endpoints get only the events they subscribed to (upload.created with the upload as the API returns it)", async () => {
    const uploads = await createEndpoint(owner.key, "/uploads", ["upload.created"]);
    const renders = await createEndpoint(owner.key, "/renders-only", ["render.succeeded", "render.failed"]);
    const theirs = await createEndpoint(other.key, "/theirs", ["upload.created"]);
    const form = new FormData();
    form.append("file", new Blob(["1\n00:00:00,000 --> 00:00:01,000\nHello\n"]), "hello.srt");
    const res = await fetch(`${await listening()}/api/v1/uploads`, {
      method: "POST",
      headers: bearer(owner.key),
      body: form,
    });
    expect(res.status).toBe(201);
    const [upload] = ((await res.json()) as { data: { id: string; name: string }[] }).data;
    const [msg] = await eventually(() => rx.at("/uploads").length >= 1 && rx.at("/uploads"));
    const payload = verify(uploads.secret, msg as Received);
    expect(payload).toMatchObject({
      type: "upload.created",
      data: { id: upload?.id, name: "hello.srt", type: "subtitle" },
    });
    // Deliveries are written with the upload: none exist for the others.
    expect(await deliveries(owner.key, renders.id)).toEqual([]);
    expect(await deliveries(other.key, theirs.id)).toEqual([]);
  });
});

let base: string | undefined;
async function listening(): Promise<string> {
  base ??= await t.listen();
  return base;
}

describe("per-request callbacks", () => {
  it("a render started with callbackUrl notifies it, signed with the account's callback secret", async () => {
    const secret = await call(owner.key, "GET", "/api/v1/webhooks/callback-secret");
    expect(secret.status).toBe(200);
    expect(secret.body.secret).toMatch(/^whsec_/);
    expect((await call(owner.key, "GET", "/api/v1/webhooks/callback-secret")).body.secret).toBe(
      secret.body.secret,
    );
    const endpoint = await createEndpoint(owner.key, "/render-endpoint", ["render.succeeded"]);
    const comp = await call(owner.key, "POST", "/api/compositions", {
      name: "callback",
      canvas: { width: 160, height: 90, fps: 25, background: "#000000" },
      tracks: [
        { kind: "video", clips: [{ start: 0, duration: 0.5, asset: { type: "color", color: "#ff0000" } }] },
      ],
    });
    expect(comp.status, JSON.stringify(comp.body)).toBe(201);
    const started = await call(owner.key, "POST", "/api/render", {
      compositionId: comp.body.id,
      output: { format: "mp4", quality: "draft" },
      callbackUrl: rx.url("/render-callback"),
    });
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    const [msg] = await eventually(
      () => rx.at("/render-callback").length >= 1 && rx.at("/render-callback"),
      120_000,
    );
    const payload = verify(secret.body.secret, msg as Received);
    expect(payload.type).toBe("render.succeeded");
    expect(payload.data).toMatchObject({
      id: started.body.id,
      status: "succeeded",
      output: { format: "mp4" },
    });
    // The account endpoint subscribed to render.succeeded got the same event, with its own secret.
    const [fromEndpoint] = await eventually(
      () => rx.at("/render-endpoint").length >= 1 && rx.at("/render-endpoint"),
    );
    expect(verify(endpoint.secret, fromEndpoint as Received).data).toMatchObject({ id: started.body.id });
    expect(() => verify(endpoint.secret, msg as Received)).toThrow();
  });

  it("a render that fails notifies render.failed with its error", async () => {
    const secret = (await call(owner.key, "GET", "/api/v1/webhooks/callback-secret")).body.secret as string;
    const comp = await call(owner.key, "POST", "/api/compositions", {
      name: "fails",
      canvas: { width: 160, height: 90, fps: 25, background: "#000000" },
      // A remote asset on a loopback address: the render's SSRF guard refuses it.
      tracks: [
        {
          kind: "video",
          clips: [{ start: 0, duration: 1, asset: { type: "video", src: "https://127.0.0.1:9/a.mp4" } }],
        },
      ],
    });
    expect(comp.status, JSON.stringify(comp.body)).toBe(201);
    const started = await call(owner.key, "POST", "/api/render", {
      compositionId: comp.body.id,
      callbackUrl: rx.url("/render-failed"),
    });
    expect(started.status).toBe(202);
    const [msg] = await eventually(
      () => rx.at("/render-failed").length >= 1 && rx.at("/render-failed"),
      120_000,
    );
    const payload = verify(secret, msg as Received);
    expect(payload).toMatchObject({
      type: "render.failed",
      data: { id: started.body.id, status: "failed", error: { code: "ASSET_FETCH_FAILED" } },
    });
  });

  it("an image generation started with callbackUrl notifies it when it ends", async () => {
    const secret = (await call(owner.key, "GET", "/api/v1/webhooks/callback-secret")).body.secret as string;
    const res = await call(owner.key, "POST", "/api/v1/generate/image", {
      prompt: "A lighthouse at dusk",
      imageSize: { width: 64, height: 64 },
      callbackUrl: rx.url("/generation-callback"),
    });
    expect([201, 202]).toContain(res.status);
    const [msg] = await eventually(
      () => rx.at("/generation-callback").length >= 1 && rx.at("/generation-callback"),
    );
    const payload = verify(secret, msg as Received);
    expect(payload).toMatchObject({
      type: "generation.succeeded",
      data: { id: res.body.id, status: "succeeded" },
    });
    expect((payload.data.outputs as unknown[]).length).toBe(1);
  });

  it("rotating the callback secret signs later callbacks with the new one", async () => {
    const old = (await call(owner.key, "GET", "/api/v1/webhooks/callback-secret")).body.secret as string;
    const rotated = await call(owner.key, "POST", "/api/v1/webhooks/callback-secret/rotate");
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).not.toBe(old);
    await call(owner.key, "POST", "/api/v1/generate/image", {
      prompt: "A second lighthouse",
      imageSize: { width: 64, height: 64 },
      callbackUrl: rx.url("/generation-callback-2"),
    });
    const [msg] = await eventually(
      () => rx.at("/generation-callback-2").length >= 1 && rx.at("/generation-callback-2"),
    );
    expect(() => verify(old, msg as Received)).toThrow();
    expect(verify(rotated.body.secret, msg as Received).type).toBe("generation.succeeded");
  });

  it("a refused callbackUrl is a 400 naming it", async () => {
    const res = await call(owner.key, "POST", "/api/render", {
      compositionId: "cmp_01JD3Q5V0M8YB6Y2J4T6Z9KX1C",
      callbackUrl: "ftp://example.com/x",
    });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual([expect.objectContaining({ path: "/callbackUrl" })]);
  });
});
