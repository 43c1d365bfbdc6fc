import { Type } from "typebox";
import type { Clock } from "../../../clock.ts";
import type { Db } from "../../../db/client.ts";
import type { Assistant } from "../../../domain/assistant/service.ts";
import {
  createSession,
  deleteSession,
  followRun,
  getSession,
  listSessions,
  type SessionDetails,
} from "../../../domain/assistant/sessions.ts";
import { pageWindow, toPage } from "../../pagination.ts";
import { presentRunCancelled, presentSession } from "../../presenters/assistant.ts";
import {
  AssistantEvent,
  AssistantSession,
  AssistantSessionSummary,
  OrchestratorRequest,
  RunCancelled,
  RunParams,
  SessionCreate,
  SessionParams,
  StreamHeaders,
} from "../../schemas/assistant.ts";
import { AUTH_ERRORS, Page, PageQuery, responses, STANDARD_HEADERS } from "../../schemas/common.ts";
import type { KeyApp } from "../../types.ts";
import { streamEvents } from "./sse.ts";

const EVENT_STREAM_DOC =
  "A `text/event-stream` of the run's events. Each event is `id: <n>` (1, 2, … within the run; send it back as `Last-Event-ID` to resume), `event: <type>` and `data: <JSON>` whose `type` repeats the event name: `session` first; then `text`, `tool_start`, `tool_progress`, `patch` (RFC 6902 ops from `baseVersion` to `version`, before its `tool_result`) and `tool_result`; and exactly one terminal `done` or `error`. Comment lines `: ping` keep the connection alive every 15 s. Clients must ignore event types they do not know.";

/** The 200 event-stream response of the orchestrator and run-event routes. */
function eventStreamResponse(errors: readonly number[]) {
  return {
    ...responses({}, errors),
    200: {
      description: EVENT_STREAM_DOC,
      headers: STANDARD_HEADERS,
      content: { "text/event-stream": { schema: AssistantEvent } },
    },
  };
}

const lastEventId = (h: string | undefined) => (h ? Number(h) : 0);

/**
 * The assistant routes: sessions (create, fetch with history, list, delete), the orchestrator
 * (a run streamed as server-sent events), resuming a run's stream and cancelling a run.
 */
export function registerAssistantRoutes(
  app: KeyApp,
  deps: { db: Db; clock: Clock; assistant: Assistant },
): void {
  const { db, assistant } = deps;

  const present = (s: SessionDetails) => presentSession(s.session, s.activeRunId, s.messages);

  app.post(
    "/api/assistant/session",
    {
      config: { scope: "write" },
      schema: {
        operationId: "createAssistantSession",
        summary: "Open an assistant session on a composition",
        description:
          "With `compositionId` the session edits that composition. Without it, a new empty composition (1920×1080, 30 fps) is created in `projectId` — or outside any project when `projectId` is absent too, in which case the tools see all of the caller's uploads. The session's model is the server's `ASSISTANT_MODEL` at creation.",
        tags: ["Assistant"],
        body: SessionCreate,
        response: responses({ 201: AssistantSession }, [...AUTH_ERRORS, 403, 404]),
      },
    },
    async (request, reply) => {
      const auth = request.auth;
      const session = await createSession(
        { db, userId: auth.userId, now: deps.clock.now() },
        { ...request.body, model: assistant.modelInfo() },
      );
      return reply.code(201).send(present(session));
    },
  );

  app.get(
    "/api/assistant/session/:id",
    {
      schema: {
        operationId: "getAssistantSession",
        summary: "Fetch a session with its history",
        tags: ["Assistant"],
        params: SessionParams,
        response: responses({ 200: AssistantSession }, [...AUTH_ERRORS, 404]),
      },
    },
    async (request) => {
      const auth = request.auth;
      return present(await getSession(db, auth.userId, request.params.id));
    },
  );

  app.get(
    "/api/assistant/sessions",
    {
      schema: {
        operationId: "listAssistantSessions",
        summary: "List sessions, newest first (without history)",
        tags: ["Assistant"],
        querystring: Type.Object(PageQuery),
        response: responses({ 200: Page(AssistantSessionSummary, "AssistantSessionPage") }),
      },
    },
    async (request) => {
      const auth = request.auth;
      const page = await listSessions(db, auth.userId, pageWindow(request.query));
      const { nextCursor } = toPage(
        { rows: page.rows.map((s) => s.session), hasMore: page.hasMore },
        () => null,
      );
      return { data: page.rows.map(present), nextCursor };
    },
  );

  app.delete(
    "/api/assistant/session/:id",
    {
      config: { scope: "write" },
      schema: {
        operationId: "deleteAssistantSession",
        summary: "Delete a session and its history (idempotent)",
        description:
          "Cancels its running request first. The composition stays. Answers 204 whether or not it existed.",
        tags: ["Assistant"],
        params: SessionParams,
        response: responses({ 204: null }, [...AUTH_ERRORS, 403]),
      },
    },
    async (request, reply) => {
      const auth = request.auth;
      await deleteSession({ db, assistant }, auth.userId, request.params.id);
      return reply.code(204).send();
    },
  );

  app.post(
    "/api/assistant/orchestrator",
    {
      config: { scope: "write" },
      schema: {
        operationId: "runAssistant",
        summary: "Send a message; stream the assistant's run",
        description: `Starts a run of the session with the user's message and streams it. The run executes on the server, not in the connection: closing the socket does not cancel it (use the cancel route), and \`GET /api/assistant/runs/{runId}/events\` resumes the stream from any server process. A retry with the same \`Idempotency-Key\` attaches to its run (from \`Last-Event-ID\` when sent) instead of starting another. One run at a time per session (409 with \`runId\` otherwise). Errors before the stream starts are JSON errors; a model or provider failure afterwards is an \`error\` event.\n\n${EVENT_STREAM_DOC}`,
        tags: ["Assistant"],
        body: OrchestratorRequest,
        headers: StreamHeaders,
        response: eventStreamResponse([...AUTH_ERRORS, 403, 404, 409]),
      },
    },
    async (request, reply) => {
      const auth = request.auth;
      const { run } = await assistant.startRun(auth.userId, {
        ...request.body,
        idempotencyKey: request.headers["idempotency-key"],
      });
      reply.header("X-Run-Id", run.id);
      await streamEvents(request, reply, {
        pingMs: assistant.options.pingMs,
        events: (signal) => assistant.events(run.id, lastEventId(request.headers["last-event-id"]), signal),
      });
    },
  );

  app.get(
    "/api/assistant/runs/:runId/events",
    {
      schema: {
        operationId: "streamAssistantRun",
        summary: "Replay and follow a run's events",
        description: `Replays the run's stored events after \`Last-Event-ID\` (all without it) and follows the live run until its terminal event; a finished run's stream ends after the replay. Any server process can serve it.\n\n${EVENT_STREAM_DOC}`,
        tags: ["Assistant"],
        params: RunParams,
        headers: StreamHeaders,
        response: eventStreamResponse([...AUTH_ERRORS, 404]),
      },
    },
    async (request, reply) => {
      const auth = request.auth;
      const events = await followRun(
        { db, assistant },
        auth.userId,
        request.params.runId,
        lastEventId(request.headers["last-event-id"]),
      );
      await streamEvents(request, reply, { pingMs: assistant.options.pingMs, events });
    },
  );

  app.post(
    "/api/assistant/runs/:runId/cancel",
    {
      config: { scope: "write" },
      schema: {
        operationId: "cancelAssistantRun",
        summary: "Cancel a run",
        description:
          "A running run: **202** with `cancelRequested: true`; it stops at its next step (a tool in progress finishes its current write) and its stream ends with `done` and reason `cancelled`. Edits already applied stay. A run that has ended: **200** with its final `status` (`done` or `error`), and nothing changes (`cancelRequested` says whether it had been asked to stop before it ended).",
        tags: ["Assistant"],
        params: RunParams,
        response: responses({ 202: RunCancelled, 200: RunCancelled }, [...AUTH_ERRORS, 403, 404]),
      },
    },
    async (request, reply) => {
      const auth = request.auth;
      const run = await assistant.cancel(auth.userId, request.params.runId);
      return reply.code(run.status === "running" ? 202 : 200).send(presentRunCancelled(run));
    },
  );
}
