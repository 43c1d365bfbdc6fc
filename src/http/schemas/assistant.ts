import { Type } from "typebox";
import { Timestamp } from "./common.ts";

/** The model a session talks to. */
export const AssistantModel = Type.Object(
  {
    provider: Type.String({
      examples: ["offline"],
      description: "offline | openai | anthropic | openai-compatible",
    }),
    id: Type.String({ examples: ["command-v1"] }),
    offline: Type.Boolean({ description: "True for the built-in offline command model" }),
  },
  { title: "AssistantModel" },
);

/** One compact history entry: a user message, an assistant message (text and tool calls) or tool results. */
export const HistoryEntry = Type.Object(
  {
    id: Type.String(),
    runId: Type.Union([Type.String(), Type.Null()]),
    role: Type.Union([Type.Literal("user"), Type.Literal("assistant"), Type.Literal("tool")]),
    text: Type.Optional(Type.String()),
    toolCalls: Type.Optional(
      Type.Array(Type.Object({ toolCallId: Type.String(), name: Type.String(), input: Type.Unknown() })),
    ),
    results: Type.Optional(
      Type.Array(
        Type.Object({
          toolCallId: Type.String(),
          name: Type.String(),
          ok: Type.Boolean(),
          output: Type.Optional(Type.Unknown()),
          error: Type.Optional(Type.Object({ message: Type.String() })),
        }),
      ),
    ),
    createdAt: Timestamp(),
  },
  { title: "AssistantHistoryEntry" },
);

const SessionFields = {
  id: Type.String({ examples: ["ses_01JD3Q5V0M8YB6Y2J4T6Z9KX1C"] }),
  projectId: Type.Union([Type.String(), Type.Null()]),
  compositionId: Type.String(),
  model: AssistantModel,
  activeRunId: Type.Union([Type.String(), Type.Null()], { description: "The run in progress, if any" }),
  createdAt: Timestamp(),
};

/** A session with its history (oldest first). */
export const AssistantSession = Type.Object(
  { ...SessionFields, messages: Type.Array(HistoryEntry) },
  { title: "AssistantSession" },
);

/** A session in lists (without history). */
export const AssistantSessionSummary = Type.Object(SessionFields, { title: "AssistantSessionSummary" });

/** `POST /api/assistant/session` body. */
export const SessionCreate = Type.Object(
  {
    projectId: Type.Optional(
      Type.String({ minLength: 1, maxLength: 64, description: "Project of the new composition" }),
    ),
    compositionId: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 64,
        description: "Edit this composition instead of a new empty one",
      }),
    ),
  },
  {
    title: "AssistantSessionCreate",
    additionalProperties: false,
    examples: [{ projectId: "prj_01JD3Q5V0M8YB6Y2J4T6Z9KX1C" }],
  },
);

/** `:id` of the session routes. */
export const SessionParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });
/** `:runId` of the run routes. */
export const RunParams = Type.Object({ runId: Type.String({ minLength: 1, maxLength: 64 }) });

/** `POST /api/assistant/orchestrator` body. */
export const OrchestratorRequest = Type.Object(
  {
    sessionId: Type.String({ minLength: 1, maxLength: 64 }),
    message: Type.String({
      minLength: 1,
      maxLength: 8000,
      examples: ["add a title 'Hello' at 2s for 3 seconds, then render a draft"],
    }),
  },
  {
    title: "OrchestratorRequest",
    additionalProperties: false,
    examples: [
      {
        sessionId: "ses_01JD3Q5V0M8YB6Y2J4T6Z9KX1C",
        message: "add a title 'Hello' at 2s for 3 seconds, then render a draft",
      },
    ],
  },
);

/** Headers of the stream routes. */
export const StreamHeaders = Type.Object({
  "last-event-id": Type.Optional(
    Type.String({ pattern: "^\\d{1,9}$", description: "Resume after this event id" }),
  ),
  "idempotency-key": Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
});

/** `POST /api/assistant/runs/:runId/cancel` answer. */
export const RunCancelled = Type.Object(
  {
    id: Type.String(),
    sessionId: Type.String(),
    status: Type.Union([Type.Literal("running"), Type.Literal("done"), Type.Literal("error")]),
    cancelRequested: Type.Boolean(),
  },
  { title: "AssistantRunCancel" },
);

const Event = (type: string, description: string, fields: Parameters<typeof Type.Object>[0]) =>
  Type.Object({ type: Type.Literal(type), ...fields }, { title: `AssistantEvent_${type}`, description });

/**
 * The data of each event of an orchestrator stream (SSE `event:` = `type`). Clients must
 * ignore event types they do not know.
 */
export const AssistantEvent = Type.Union(
  [
    Event("session", "First event of every run", {
      sessionId: Type.String(),
      runId: Type.String(),
      model: AssistantModel,
      compositionId: Type.String(),
      version: Type.Union([Type.Integer(), Type.Null()]),
    }),
    Event("text", "Text as the model writes it", { messageId: Type.String(), delta: Type.String() }),
    Event("tool_start", "A tool call begins", {
      toolCallId: Type.String(),
      name: Type.String(),
      input: Type.Unknown(),
    }),
    Event("tool_progress", "Progress of a long tool (generation, render); progress is 0..1", {
      toolCallId: Type.String(),
      progress: Type.Optional(Type.Number()),
      message: Type.Optional(Type.String()),
    }),
    Event(
      "patch",
      "RFC 6902 ops turning the composition at baseVersion into the one at version; before its tool_result",
      {
        toolCallId: Type.String(),
        compositionId: Type.String(),
        baseVersion: Type.Integer(),
        version: Type.Integer(),
        ops: Type.Array(
          Type.Object({ op: Type.String(), path: Type.String() }, { additionalProperties: true }),
        ),
      },
    ),
    Event("tool_result", "A tool call ended: output when ok, else error", {
      toolCallId: Type.String(),
      name: Type.String(),
      ok: Type.Boolean(),
      output: Type.Optional(Type.Unknown()),
      error: Type.Optional(Type.Object({ code: Type.String(), message: Type.String() })),
    }),
    Event("done", "Terminal: the run ended (reason stop | step_limit | render_started | cancelled)", {
      reason: Type.String(),
      version: Type.Union([Type.Integer(), Type.Null()]),
      usage: Type.Optional(Type.Object({ inputTokens: Type.Integer(), outputTokens: Type.Integer() })),
    }),
    Event("error", "Terminal: the model or provider failed, or the run was interrupted", {
      code: Type.String(),
      message: Type.String(),
      retryable: Type.Boolean(),
    }),
  ],
  { title: "AssistantEvent" },
);
