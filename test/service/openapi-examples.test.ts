// Every operation of the OpenAPI document is called once through HTTP with a real success;
// its documented success example must validate against the response schema and have the
// keys of the real answer, and every header the answer carries must be documented.
// UPDATE_OPENAPI_EXAMPLES=1 rewrites src/http/plugins/openapi-examples.json from the answers.
import { openAsBlob } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { Ajv } from "ajv";
import addFormats from "ajv-formats";
import type { InjectOptions, LightMyRequestResponse } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { issuePasswordLink } from "../../src/domain/console/password-link.ts";
import { type ConsoleLogin, sessionCookie } from "../console/helpers.ts";
import { type MediaFixtures, makeMediaFixtures, tempDir } from "../fixtures/render/media.ts";
import { bearer, startTestApp, type TestApp } from "../helpers/app.ts";
import { videoThenStill } from "../helpers/compositions.ts";
import { startReceiver } from "../webhooks/receiver.ts";

const UPDATE = process.env.UPDATE_OPENAPI_EXAMPLES === "1";
const EXAMPLES_FILE = path.resolve("src/http/plugins/openapi-examples.json");
/** Operations that have no success answer to show. */
const NO_SUCCESS = new Set(["renderEventsGone"]);
/** Headers of the transport, not of the API (RFC 9110/9112), never documented per operation. */
const TRANSPORT = new Set([
  "content-type",
  "content-length",
  "date",
  "connection",
  "keep-alive",
  "transfer-encoding",
  "cache-control",
  "x-accel-buffering",
]);

interface Media {
  schema?: object;
  example?: unknown;
  examples?: Record<string, { value: unknown }>;
}
interface Operation {
  operationId: string;
  requestBody?: { content: Record<string, Media> };
  responses: Record<
    string,
    { description?: string; headers?: Record<string, unknown>; content?: Record<string, Media> }
  >;
}

let t: TestApp;
let key: string;
let media: MediaFixtures;
let dir: { dir: string; cleanup(): Promise<void> };
let operations: Map<string, Operation>;
let paths: Record<string, Record<string, Operation>>;
/** Operations called with a success. */
const called = new Set<string>();
/** operationId → status → the last real answer (JSON, or the text of an event stream). */
const answers = new Map<string, Map<string, unknown>>();
const ajv = new Ajv({ strict: false, allErrors: true });
addFormats.default(ajv);

beforeAll(async () => {
  dir = await tempDir();
  media = await makeMediaFixtures(dir.dir);
  t = await startTestApp({ worker: true, env: { SIGNUP: "open", WEBHOOK_ALLOW_PRIVATE: "true" } });
  ({ key } = await t.createAccount());
  const doc = (await t.app.inject({ url: "/api/v1/openapi.json" })).json();
  operations = new Map();
  paths = doc.paths;
  for (const item of Object.values(paths)) {
    for (const op of Object.values(item)) operations.set(op.operationId, op);
  }
}, 300_000);
afterAll(async () => {
  await t?.close();
  await dir?.cleanup();
});

/** Calls `operationId`, expects a success it documents (status and headers) and keeps its answer. */
async function call(operationId: string, opts: InjectOptions): Promise<LightMyRequestResponse> {
  const res = await t.app.inject(opts);
  expect(res.statusCode, `${operationId}: ${res.body.slice(0, 400)}`).toBeLessThan(400);
  const op = operations.get(operationId);
  const documented = op?.responses[String(res.statusCode)];
  expect(documented, `${operationId} documents ${res.statusCode}`).toBeDefined();
  called.add(operationId);
  const headers = Object.keys(documented?.headers ?? {}).map((h) => h.toLowerCase());
  for (const name of Object.keys(res.headers)) {
    if (!TRANSPORT.has(name))
      expect(headers, `${operationId} ${res.statusCode} documents ${name}`).toContain(name);
  }
  if (res.body.length > 0) {
    const type = String(res.headers["content-type"]);
    const body = type.startsWith("application/json")
      ? redact(res.json())
      : type.startsWith("image/")
        ? "(image bytes)"
        : res.body;
    const byStatus = answers.get(operationId) ?? new Map<string, unknown>();
    byStatus.set(String(res.statusCode), body);
    answers.set(operationId, byStatus);
  }
  return res;
}

/** The examples of a media type object (its own, then its schema's). */
function examplesOf(media: Media): unknown[] {
  return [
    media.example,
    ...Object.values(media.examples ?? {}).map((e) => e.value),
    ...((media.schema as { examples?: unknown[] } | undefined)?.examples ?? []),
  ].filter((e) => e !== undefined);
}

/** Secrets (API keys, capture tokens, webhook secrets) in answers become same-length placeholders. */
function redact(value: unknown): unknown {
  return JSON.parse(
    JSON.stringify(value).replace(
      /\b(cr[kc]_|whsec_)([A-Za-z0-9_+/=-]{12,})/g,
      (_m, p: string, s: string) => p + "x".repeat(s.length),
    ),
  );
}

const withKey = (opts: InjectOptions): InjectOptions => ({
  ...opts,
  headers: { ...bearer(key), ...(opts.headers ?? {}) },
});

const blobOf = (file: string) => openAsBlob(file);

/** Signs in through `login` (recorded like any call); returns the session cookie and CSRF token. */
async function consoleLogin(email: string, password: string): Promise<ConsoleLogin> {
  const res = await call("login", {
    method: "POST",
    url: "/api/v1/auth/login",
    payload: { email, password },
  });
  const cookie = sessionCookie(res.headers["set-cookie"]);
  const csrf = String(res.json().csrfToken);
  return { cookie, csrf, write: { cookie, "x-csrf-token": csrf } };
}

/** Polls a GET until `done` says so (the worker renders and generates meanwhile). */
async function pollUntil(operationId: string, url: string, done: (body: { status: string }) => boolean) {
  for (;;) {
    const res = await call(operationId, withKey({ url }));
    if (done(res.json())) return res.json();
    await new Promise((r) => setTimeout(r, Number(res.headers["retry-after"] ?? 1) * 250));
  }
}

describe("OpenAPI success examples", () => {
  it("every operation answers a documented success with documented headers", async () => {
    // Service
    await call("getHealth", { url: "/api/v1/health" });
    await call("getMe", withKey({ url: "/api/v1/me" }));
    await call(
      "updateSettings",
      withKey({
        method: "PATCH",
        url: "/api/v1/me/settings",
        payload: { imageModel: "fal-ai/flux/schnell" },
      }),
    );

    // Projects
    const project = (
      await call(
        "createProject",
        withKey({ method: "POST", url: "/api/v1/projects", payload: { name: "Launch video" } }),
      )
    ).json();
    await call("listProjects", withKey({ url: "/api/v1/projects" }));
    await call("getProject", withKey({ url: `/api/v1/projects/${project.id}` }));
    await call(
      "updateProject",
      withKey({
        method: "PATCH",
        url: `/api/v1/projects/${project.id}`,
        payload: { description: "Q4 launch" },
      }),
    );
    const emptyProject = (
      await call(
        "createProject",
        withKey({ method: "POST", url: "/api/v1/projects", payload: { name: "Spare" } }),
      )
    ).json();
    await call("deleteProject", withKey({ method: "DELETE", url: `/api/v1/projects/${emptyProject.id}` }));

    // Analysis (the request examples of the document)
    const requestExample = (id: string) => {
      const [p, item] = Object.entries(paths).find(([, ops]) =>
        Object.values(ops).some((o) => o.operationId === id),
      ) ?? ["", {}];
      const op = Object.values(item).find((o) => o.operationId === id);
      return { url: p, payload: op?.requestBody?.content["application/json"]?.example };
    };
    for (const id of ["detectChapters", "summarizeClip", "suggestBroll"]) {
      const { url, payload } = requestExample(id);
      await call(id, withKey({ method: "POST", url, payload: payload as object }));
    }

    // Uploads
    const form = new FormData();
    form.append("projectId", project.id);
    form.append("file", await blobOf(media.video), "intro.mp4");
    form.append("file", await blobOf(media.still), "still.png");
    const uploads = (
      await call("createUploads", withKey({ method: "POST", url: "/api/v1/uploads", payload: form }))
    ).json().data;
    const [video, still] = uploads;
    await call("listUploads", withKey({ url: "/api/v1/uploads" }));
    await call("getUpload", withKey({ url: `/api/v1/uploads/${video.id}` }));
    const spareForm = new FormData();
    spareForm.append("file", await blobOf(media.srt), "captions.srt");
    const spare = (
      await call("createUploads", withKey({ method: "POST", url: "/api/v1/uploads", payload: spareForm }))
    ).json().data[0];
    await call("deleteUpload", withKey({ method: "DELETE", url: `/api/v1/uploads/${spare.id}` }));

    // Scene, silence, loudness and peak analysis; transcription (offline engine)
    await call("getUploadAnalysis", withKey({ url: `/api/v1/uploads/${video.id}/analysis` }));
    const transcribe = () =>
      call(
        "createTranscription",
        withKey({ method: "POST", url: "/api/v1/transcriptions", payload: { uploadId: video.id } }),
      );
    const trn = (await transcribe()).json();
    await pollUntil("getTranscription", `/api/v1/transcriptions/${trn.id}`, (x) =>
      ["succeeded", "failed", "cancelled"].includes(x.status),
    );
    await call("listTranscriptions", withKey({ url: `/api/v1/transcriptions?uploadId=${video.id}` }));
    await call("exportTranscription", withKey({ url: `/api/v1/transcriptions/${trn.id}/export?format=srt` }));
    const trnToCancel = (await transcribe()).json();
    await call(
      "cancelTranscription",
      withKey({ method: "DELETE", url: `/api/v1/transcriptions/${trnToCancel.id}` }),
    );

    // Generation (offline provider)
    await call("listGenerationModels", withKey({ url: "/api/v1/generate/models" }));
    await call(
      "generateImage",
      withKey({
        method: "POST",
        url: "/api/v1/generate/image",
        payload: {
          prompt: "A lighthouse on a cliff at dusk",
          imageSize: "landscape_16_9",
          projectId: project.id,
        },
      }),
    );
    const videoGen = (
      await call(
        "generateVideo",
        withKey({
          method: "POST",
          url: "/api/v1/generate/video",
          payload: { prompt: "Slow push in", imageUrl: still.id, projectId: project.id },
        }),
      )
    ).json();
    await pollUntil("getGeneration", `/api/v1/generations/${videoGen.id}`, (g) =>
      ["succeeded", "failed", "cancelled"].includes(g.status),
    );
    await call("listGenerations", withKey({ url: "/api/v1/generations" }));
    const toCancel = (
      await call(
        "generateVideo",
        withKey({
          method: "POST",
          url: "/api/v1/generate/video",
          payload: { prompt: "Slow pull out", imageUrl: still.id },
        }),
      )
    ).json();
    await call("cancelGeneration", withKey({ method: "DELETE", url: `/api/v1/generations/${toCancel.id}` }));

    // Compositions
    const body = videoThenStill({
      name: "Launch teaser",
      projectId: project.id,
      videoId: video.id,
      stillId: still.id,
    });
    const comp = (
      await call("createComposition", withKey({ method: "POST", url: "/api/compositions", payload: body }))
    ).json();
    await call("listCompositions", withKey({ url: "/api/compositions" }));
    await call("getComposition", withKey({ url: `/api/compositions/${comp.id}` }));
    await call(
      "replaceComposition",
      withKey({ method: "PUT", url: `/api/compositions/${comp.id}`, payload: { ...body, version: 1 } }),
    );
    await call(
      "patchComposition",
      withKey({
        method: "PATCH",
        url: `/api/compositions/${comp.id}`,
        headers: { "content-type": "application/json-patch+json", "if-match": '"2"' },
        payload: JSON.stringify([{ op: "replace", path: "/name", value: "Final cut" }]),
      }),
    );
    const throwaway = (
      await call("createComposition", withKey({ method: "POST", url: "/api/compositions", payload: body }))
    ).json();
    await call("listCompositionVersions", withKey({ url: `/api/compositions/${comp.id}/versions` }));
    await call("getCompositionVersion", withKey({ url: `/api/compositions/${comp.id}/versions/1` }));
    await call(
      "diffCompositionVersions",
      withKey({ url: `/api/compositions/${comp.id}/versions/3/diff?from=2` }),
    );
    await call(
      "revertComposition",
      withKey({
        method: "POST",
        url: `/api/compositions/${throwaway.id}/revert`,
        headers: { "if-match": '"1"' },
        payload: { version: 1 },
      }),
    );
    await call(
      "relinkComposition",
      withKey({
        method: "POST",
        url: `/api/compositions/${throwaway.id}/relink`,
        headers: { "if-match": '"2"' },
        payload: { from: video.id, to: video.id },
      }),
    );
    await call(
      "reframeComposition",
      withKey({
        method: "POST",
        url: `/api/compositions/${throwaway.id}/reframe`,
        headers: { "if-match": '"3"' },
        payload: { aspectRatio: "9:16" },
      }),
    );
    await call("deleteComposition", withKey({ method: "DELETE", url: `/api/compositions/${throwaway.id}` }));

    // Auto-edit (the transcript made above is reused)
    const autoedit = () =>
      call(
        "createAutoedit",
        withKey({
          method: "POST",
          url: "/api/v1/autoedit",
          payload: {
            uploadIds: [video.id],
            projectId: project.id,
            target: { aspectRatio: "9:16", maxDuration: 30, count: 1 },
          },
        }),
      );
    const aed = (await autoedit()).json();
    await pollUntil("getAutoedit", `/api/v1/autoedits/${aed.id}`, (x) =>
      ["succeeded", "failed", "cancelled"].includes(x.status),
    );
    await call("listAutoedits", withKey({ url: "/api/v1/autoedits" }));
    const aedToCancel = (await autoedit()).json();
    await call("cancelAutoedit", withKey({ method: "DELETE", url: `/api/v1/autoedits/${aedToCancel.id}` }));
    await call("getCompositionFrame", withKey({ url: `/api/compositions/${comp.id}/frame?t=0.5&width=64` }));
    await call(
      "getCompositionPreviewVideo",
      withKey({ url: `/api/compositions/${comp.id}/preview.mp4?from=0&duration=0.5&width=64` }),
    );
    const otio = (
      await call("exportComposition", withKey({ url: `/api/compositions/${comp.id}/export?format=otio` }))
    ).json();
    await call(
      "importComposition",
      withKey({
        method: "POST",
        url: "/api/compositions/import",
        payload: { otio, name: "Imported teaser" },
      }),
    );

    // Renders
    const start = { compositionId: comp.id, output: { format: "mp4", quality: "draft" } };
    await call("checkRender", withKey({ method: "POST", url: "/api/render/check", payload: start }));
    await call("checkComposition", withKey({ url: `/api/compositions/${comp.id}/check?format=webm` }));
    const idem = { "idempotency-key": "launch-teaser-draft" };
    const render = (
      await call(
        "startRender",
        withKey({ method: "POST", url: "/api/render", headers: idem, payload: start }),
      )
    ).json();
    await call("startRender", withKey({ method: "POST", url: "/api/render", headers: idem, payload: start }));
    await pollUntil("getRender", `/api/render/${render.id}`, (r) => r.status === "succeeded");
    await call("listRenders", withKey({ url: "/api/render" }));
    const queued = (
      await call(
        "startRender",
        withKey({
          method: "POST",
          url: "/api/render",
          payload: { ...start, output: { format: "png", frameAt: 0 } },
        }),
      )
    ).json();
    await call("cancelRender", withKey({ method: "DELETE", url: `/api/render/${queued.id}` }));

    // Webhooks (a receiver on loopback: the app allows private targets)
    const receiver = await startReceiver();
    try {
      const endpoint = (
        await call(
          "createWebhookEndpoint",
          withKey({
            method: "POST",
            url: "/api/v1/webhooks",
            payload: {
              url: receiver.url("/hooks"),
              events: ["render.succeeded"],
              description: "Render notices",
            },
          }),
        )
      ).json();
      await call("listWebhookEndpoints", withKey({ url: "/api/v1/webhooks" }));
      await call("getWebhookEndpoint", withKey({ url: `/api/v1/webhooks/${endpoint.id}` }));
      await call(
        "updateWebhookEndpoint",
        withKey({
          method: "PATCH",
          url: `/api/v1/webhooks/${endpoint.id}`,
          payload: { events: ["render.succeeded", "render.failed"], description: "Render results" },
        }),
      );
      await call("getCallbackSecret", withKey({ url: "/api/v1/webhooks/callback-secret" }));
      await call(
        "rotateCallbackSecret",
        withKey({ method: "POST", url: "/api/v1/webhooks/callback-secret/rotate" }),
      );
      await call(
        "rotateWebhookSecret",
        withKey({ method: "POST", url: `/api/v1/webhooks/${endpoint.id}/rotate-secret` }),
      );
      const delivery = (
        await call(
          "testWebhookEndpoint",
          withKey({ method: "POST", url: `/api/v1/webhooks/${endpoint.id}/test` }),
        )
      ).json();
      for (let i = 0; i < 100 && receiver.at("/hooks").length === 0; i++)
        await new Promise((r) => setTimeout(r, 100));
      await call("listWebhookDeliveries", withKey({ url: `/api/v1/webhooks/${endpoint.id}/deliveries` }));
      await call(
        "redeliverWebhook",
        withKey({
          method: "POST",
          url: `/api/v1/webhooks/${endpoint.id}/deliveries/${delivery.id}/redeliver`,
        }),
      );
      await call(
        "deleteWebhookEndpoint",
        withKey({ method: "DELETE", url: `/api/v1/webhooks/${endpoint.id}` }),
      );
    } finally {
      await receiver.close();
    }

    // Assistant (offline command model)
    const session = (
      await call(
        "createAssistantSession",
        withKey({ method: "POST", url: "/api/assistant/session", payload: { projectId: project.id } }),
      )
    ).json();
    await call("getAssistantSession", withKey({ url: `/api/assistant/session/${session.id}` }));
    await call("listAssistantSessions", withKey({ url: "/api/assistant/sessions" }));
    const run = await call(
      "runAssistant",
      withKey({
        method: "POST",
        url: "/api/assistant/orchestrator",
        payload: { sessionId: session.id, message: "add a title 'Hello' at 0s for 2 seconds" },
      }),
    );
    const runId = String(run.headers["x-run-id"]);
    await call(
      "streamAssistantRun",
      withKey({ url: `/api/assistant/runs/${runId}/events`, headers: { "last-event-id": "2" } }),
    );
    await call("cancelAssistantRun", withKey({ method: "POST", url: `/api/assistant/runs/${runId}/cancel` }));
    await call(
      "deleteAssistantSession",
      withKey({ method: "DELETE", url: `/api/assistant/session/${session.id}` }),
    );

    // Console: sign-up, sessions, password, keys, capture links (session cookie + CSRF)
    await call("getAuthOptions", { url: "/api/v1/auth/options" });
    const email = `owner-${Date.now()}@example.test`;
    await call("signup", {
      method: "POST",
      url: "/api/v1/auth/signup",
      payload: { email, password: "correct horse battery", name: "Ada" },
    });
    const first = await consoleLogin(email, "correct horse battery");
    await consoleLogin(email, "correct horse battery");
    const cookieOf = (s: ConsoleLogin) => ({ headers: { cookie: s.cookie } });
    await call("getSession", { url: "/api/v1/auth/session", ...cookieOf(first) });
    const sessions = (
      await call("listSessions", { url: "/api/v1/auth/sessions", ...cookieOf(first) })
    ).json();
    const other = sessions.data.find((s: { current: boolean }) => !s.current);
    await call("revokeSession", {
      method: "DELETE",
      url: `/api/v1/auth/sessions/${other.id}`,
      headers: first.write,
    });
    await consoleLogin(email, "correct horse battery");
    await call("revokeOtherSessions", {
      method: "POST",
      url: "/api/v1/auth/sessions/revoke-others",
      headers: first.write,
    });
    await call("changePassword", {
      method: "POST",
      url: "/api/v1/auth/password",
      headers: first.write,
      payload: { currentPassword: "correct horse battery", newPassword: "battery staple horse" },
    });
    const owner = await consoleLogin(email, "battery staple horse");
    await call("listKeys", { url: "/api/v1/keys", ...cookieOf(owner) });
    const created = (
      await call("createKey", {
        method: "POST",
        url: "/api/v1/keys",
        headers: owner.write,
        payload: { name: "CI", scopes: ["read", "write"] },
      })
    ).json();
    await call("revokeKey", {
      method: "DELETE",
      url: `/api/v1/keys/${created.key.id}`,
      headers: owner.write,
    });
    const ownerProject = (
      await call("createProject", {
        method: "POST",
        url: "/api/v1/projects",
        headers: owner.write,
        payload: { name: "Phone" },
      })
    ).json();
    const capture = (
      await call("createCaptureToken", {
        method: "POST",
        url: `/api/v1/projects/${ownerProject.id}/capture-tokens`,
        headers: owner.write,
      })
    ).json();
    await call("listCaptureTokens", {
      url: `/api/v1/projects/${ownerProject.id}/capture-tokens`,
      ...cookieOf(owner),
    });
    await call("revokeCaptureToken", {
      method: "DELETE",
      url: `/api/v1/capture-tokens/${capture.captureToken.id}`,
      headers: owner.write,
    });
    await call("logout", { method: "POST", url: "/api/v1/auth/logout", headers: owner.write });
    const setup = await t.createAccount({ email: `setup-${Date.now()}@example.test` });
    const link = await issuePasswordLink(t.database.db, {
      userId: setup.userId,
      publicUrl: t.config.publicUrl,
    });
    await call("setupPassword", {
      method: "POST",
      url: "/api/v1/auth/setup",
      payload: { token: new URL(link.url).searchParams.get("token"), password: "correct horse battery" },
    });

    const missing = [...operations.keys()].filter((id) => !NO_SUCCESS.has(id) && !called.has(id));
    expect(missing, "operations this test does not call yet").toEqual([]);
  }, 300_000);

  it("every success example validates against its schema and has the keys of the real answer", async () => {
    if (UPDATE) {
      // Merged into the recorded file, so a status this run did not meet (a 202 that timing
      // turned into a 200) keeps its earlier example.
      const out: Record<string, Record<string, unknown>> = JSON.parse(await readFile(EXAMPLES_FILE, "utf8"));
      for (const [id, byStatus] of answers) out[id] = { ...out[id], ...Object.fromEntries(byStatus) };
      const sorted = Object.fromEntries(Object.entries(out).sort(([a], [b]) => a.localeCompare(b)));
      await writeFile(EXAMPLES_FILE, `${JSON.stringify(sorted, null, 1)}\n`);
      return;
    }
    const problems: string[] = [];
    const keys = (v: unknown) =>
      v && typeof v === "object" && !Array.isArray(v) ? Object.keys(v).sort() : [];
    for (const [id, op] of operations) {
      if (NO_SUCCESS.has(id)) continue;
      /** Success status → [media type, media, its examples], for responses with a body. */
      const documented = Object.entries(op.responses)
        .filter(([status]) => Number(status) < 400)
        .flatMap(([status, r]) =>
          Object.entries(r.content ?? {}).map(([type, media]) => ({ status, type, media })),
        )
        .map((d) => ({ ...d, examples: examplesOf(d.media) }));
      if (documented.length > 0 && documented.every((d) => d.examples.length === 0)) {
        problems.push(`${id}: no success example`);
      }
      for (const { status, type, media, examples } of documented) {
        // An event stream's examples are its events' data (what the schema describes); the
        // recorded stream itself is shown in the response description.
        if (type === "text/event-stream" && !/\nid: \d+\n/.test(op.responses[status]?.description ?? "")) {
          problems.push(`${id} ${status}: no recorded stream in the description`);
        }
        for (const example of examples) {
          const validate = ajv.compile(media.schema ?? {});
          if (!validate(example)) problems.push(`${id} ${status}: ${ajv.errorsText(validate.errors)}`);
        }
      }
      // The real answers have the keys of the example of their status (or, when timing gave
      // a status without one, of the operation's other success example).
      for (const [status, actual] of answers.get(id) ?? []) {
        if (typeof actual === "string") continue;
        const same = documented.find((d) => d.status === status && d.examples.length > 0);
        const example = (same ?? documented.find((d) => d.examples.length > 0))?.examples[0];
        if (JSON.stringify(keys(example)) !== JSON.stringify(keys(actual))) {
          problems.push(`${id} ${status}: example keys ${keys(example)} ≠ answer keys ${keys(actual)}`);
        }
      }
    }
    expect(problems).toEqual([]);
  });
});
