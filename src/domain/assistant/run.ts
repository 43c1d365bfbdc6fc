import { setTimeout as sleep } from "node:timers/promises";
import {
  APICallError,
  hasToolCall,
  isStepCount,
  type LanguageModel,
  type ModelMessage,
  streamText,
} from "ai";
import type { Logger } from "pino";
import type { Clock } from "../../clock.ts";
import type { Db } from "../../db/client.ts";
import {
  appendRunEvent,
  finishRun,
  heartbeatRun,
  insertMessages,
  listMessages,
  type RunRow,
  type SessionRow,
} from "../../db/repositories/assistant.ts";
import { newId } from "../../ids.ts";
import { httpFailureOf } from "../../net/http-client.ts";
import type { Enqueue } from "../../queue/enqueue.ts";
import type { BlobStore } from "../../storage/blob-store.ts";
import type { RenderLimits } from "../composition/limits.ts";
import { readComposition } from "./edit.ts";
import { systemPrompt } from "./prompt.ts";
import { summarizeComposition } from "./summary.ts";
import type {
  GenerationService,
  MediaAnalysisService,
  ReframeService,
  ToolContext,
  TranscriptionService,
} from "./tool-context.ts";
import { toolErrorOf, withReadableToolErrors } from "./tool-context.ts";
import { toAiTools } from "./tools/define.ts";
import { ASSISTANT_TOOLS, FINAL_TOOL } from "./tools/index.ts";

/** Timings and limits of runs. */
export interface RunOptions {
  /** Most model steps per run. */
  maxSteps: number;
  /** Most paid vendor generations one run may start. */
  maxPaidGenerationsPerRun: number;
  /** How often the owner refreshes the heartbeat and checks for a cancel request, ms. */
  heartbeatMs: number;
  /** How long `start_render` follows a render, ms. */
  renderFollowMs: number;
  /** How often `start_render` polls the render, ms. */
  renderPollMs: number;
  /** Render cost limits and per-account allowances `start_render` keeps to. */
  renderLimits: RenderLimits;
}

/** What executing a run needs. */
export interface RunDeps {
  db: Db;
  store: BlobStore;
  /** Sends jobs (render start). */
  enqueue: Enqueue;
  /** Records `render.cancelled` when the run cancels a queued render it started. */
  events?: ToolContext["events"];
  /** Cancels a split render's queued jobs when the run cancels the render. */
  flows?: ToolContext["flows"];
  clock: Clock;
  log: Logger;
  generation: GenerationService | undefined;
  transcription?: TranscriptionService | undefined;
  analysis?: MediaAnalysisService | undefined;
  reframe?: ReframeService | undefined;
  options: RunOptions;
}

/** Longest a cancelled run waits for its tools to wind down before its terminal event, milliseconds. */
const TOOL_WIND_DOWN_MS = 10_000;

/** Why a run's abort signal fired: a cancel request, the run was ended elsewhere, or shutdown. */
export type AbortReason = "cancelled" | "lost" | "shutdown";

/** The terminal event of a run stopped by its own process shutting down. */
export const INTERRUPTED = {
  code: "interrupted",
  message: "The server stopped while running this request; the composition keeps the edits made so far",
  retryable: true,
};

/** The wire form of a model or provider failure (`error` terminal event). */
export function modelErrorOf(err: unknown): { code: string; message: string; retryable: boolean } {
  const e = err as { name?: string; message?: string; lastError?: unknown };
  const inner = e?.name === "AI_RetryError" && e.lastError ? e.lastError : err;
  const connection = httpFailureOf(inner);
  if (connection) {
    return {
      code: "model_error",
      message: `The model provider failed: ${connection.message}`,
      retryable: true,
    };
  }
  if (APICallError.isInstance(inner)) {
    return {
      code: "model_error",
      message: `The model provider failed${inner.statusCode ? ` (HTTP ${inner.statusCode})` : ""}: ${inner.message}`,
      retryable: inner.isRetryable,
    };
  }
  const m = (inner as { message?: string })?.message ?? String(inner);
  return { code: "model_error", message: `The model failed: ${m}`, retryable: false };
}

/**
 * Executes one orchestrator run to its terminal event: stores the user's message, runs the
 * AI SDK tool loop (`streamText` with the Cutroom tools, one tool at a time, a step limit,
 * stopping after `start_render`), turns the stream into stored run events, stores the new
 * history, and ends the run with exactly one `done` or `error` event — atomically with its
 * status. Never throws. Heartbeats every `heartbeatMs`; a cancel request recorded by any
 * process aborts the loop (`done` with reason `cancelled`).
 */
export async function executeRun(
  deps: RunDeps,
  input: { run: RunRow; session: SessionRow; model: () => LanguageModel; abort: AbortController },
): Promise<void> {
  const { db, clock, log } = deps;
  const { run, session, abort } = input;
  let seq = 0;
  let chain: Promise<void> = Promise.resolve();
  let lost = false;
  const append = async (type: string, data: Record<string, unknown>) => {
    if (lost) return;
    try {
      await appendRunEvent(db, run.id, ++seq, type, { type, ...data });
      // Embedded PGlite answers on this thread without I/O: yield so that this process's
      // event streams read and flush the event now rather than after the whole run.
      await new Promise((resolve) => setImmediate(resolve));
    } catch (err) {
      lost = true;
      log.warn({ err, runId: run.id }, "assistant run lost its event stream (swept or deleted)");
      abort.abort("lost" satisfies AbortReason);
    }
  };
  /** Stores events in order, one at a time; resolves once this one is stored. */
  const emit = (type: string, data: Record<string, unknown>): Promise<void> => {
    chain = chain.then(() => append(type, data));
    return chain;
  };
  // Text deltas that arrive while an earlier event is being stored join one `text` event.
  let pendingText: { messageId: string; delta: string } | null = null;
  const emitText = (messageId: string, delta: string): Promise<void> => {
    if (pendingText && pendingText.messageId === messageId) {
      pendingText.delta += delta;
      return chain;
    }
    const text = { messageId, delta };
    pendingText = text;
    chain = chain.then(() => {
      if (pendingText === text) pendingText = null;
      return append("text", text);
    });
    return chain;
  };

  const heartbeat = setInterval(() => {
    heartbeatRun(db, run.id, clock.now()).then(
      (h) => {
        if (!h.running) {
          lost = true;
          abort.abort("lost" satisfies AbortReason);
        } else if (h.cancelRequested) abort.abort("cancelled" satisfies AbortReason);
      },
      (err) => log.warn({ err, runId: run.id }, "assistant heartbeat failed"),
    );
  }, deps.options.heartbeatMs);
  heartbeat.unref();

  const ctx: ToolContext = {
    db,
    store: deps.store,
    enqueue: deps.enqueue,
    events: deps.events,
    flows: deps.flows,
    userId: session.userId,
    sessionId: session.id,
    runId: run.id,
    compositionId: session.compositionId,
    projectId: session.projectId,
    now: () => clock.now(),
    signal: abort.signal,
    emit,
    generation: deps.generation,
    transcription: deps.transcription,
    analysis: deps.analysis,
    reframe: deps.reframe,
    renderFollowMs: deps.options.renderFollowMs,
    renderPollMs: deps.options.renderPollMs,
    renderLimits: deps.options.renderLimits,
    paidGenerations: { started: 0, max: deps.options.maxPaidGenerationsPerRun },
    inFlight: new Set(),
  };
  const currentVersion = async () => (await readComposition(ctx).catch(() => null))?.version ?? null;
  type Read = Awaited<ReturnType<typeof readComposition>> | { error: string };
  const read = (): Promise<Read> => readComposition(ctx).catch((err: Error) => ({ error: err.message }));
  const instructions = async (c?: Read) => {
    const fresh = c ?? (await read());
    return systemPrompt("error" in fresh ? fresh : await summarizeComposition(ctx, fresh));
  };

  let terminal: { status: "done" | "error"; data: Record<string, unknown> };
  /** The run's response messages so far (each step's `response.messages` holds that step's only). */
  let stepMessages: ModelMessage[] = [];
  try {
    const atStart = await read();
    await emit("session", {
      sessionId: session.id,
      runId: run.id,
      model: session.model,
      compositionId: session.compositionId,
      version: "error" in atStart ? null : atStart.version,
    });
    await insertMessages(db, session.id, run.id, [{ role: "user", content: run.message }]);
    const history = (await listMessages(db, session.id)).map(
      (m) => ({ role: m.role, content: m.content }) as ModelMessage,
    );

    const started = new Set<string>();
    const announce = async (toolCallId: string, name: string, toolInput: unknown) => {
      if (started.has(toolCallId)) return;
      started.add(toolCallId);
      await emit("tool_start", { toolCallId, name, input: toolInput ?? null });
    };
    const result = streamText({
      model: input.model(),
      instructions: await instructions(atStart),
      messages: history,
      tools: toAiTools(ASSISTANT_TOOLS, ctx, announce),
      stopWhen: [isStepCount(deps.options.maxSteps), hasToolCall(FINAL_TOOL)],
      toolCallConcurrency: 1,
      maxRetries: 1,
      abortSignal: abort.signal,
      prepareStep: async ({ stepNumber, messages }) => ({
        messages: withReadableToolErrors(messages),
        ...(stepNumber === 0 ? {} : { instructions: await instructions() }),
      }),
      // Failures reach the loop below as `error` parts and end the run with an `error` event.
      onError: ({ error }) => log.debug({ err: error, runId: run.id }, "assistant model error"),
      onStepEnd: (step) => {
        stepMessages = [...stepMessages, ...(step.response.messages as ModelMessage[])];
      },
    });

    let textId: string | null = null;
    let modelError: unknown = null;
    let finishReason: string | undefined;
    let usage: { inputTokens?: number | undefined; outputTokens?: number | undefined } | undefined;
    let finalToolCalled = false;
    for await (const part of result.fullStream) {
      switch (part.type) {
        case "text-start":
          textId = newId("msg");
          break;
        case "text-delta":
          textId ??= newId("msg");
          if (part.text) void emitText(textId, part.text);
          break;
        case "tool-call":
          if (part.toolName === FINAL_TOOL && !part.invalid) finalToolCalled = true;
          await announce(part.toolCallId, part.toolName, part.input);
          break;
        case "tool-result":
          await emit("tool_result", {
            toolCallId: part.toolCallId,
            name: part.toolName,
            ok: true,
            output: part.output,
          });
          break;
        case "tool-error":
          await announce(part.toolCallId, part.toolName, part.input);
          await emit("tool_result", {
            toolCallId: part.toolCallId,
            name: part.toolName,
            ok: false,
            error: toolErrorOf(part.error),
          });
          break;
        case "error":
          modelError = part.error;
          break;
        case "finish":
          finishReason = part.finishReason;
          usage = { inputTokens: part.totalUsage.inputTokens, outputTokens: part.totalUsage.outputTokens };
          break;
        default:
          break;
      }
    }
    await chain;
    if (stepMessages.length > 0) {
      // Failed results are stored with the sentence their `tool_result` event said.
      await insertMessages(
        db,
        session.id,
        run.id,
        withReadableToolErrors(stepMessages).map((m) => ({
          role: m.role as "assistant" | "tool",
          content: m.content,
        })),
      );
    }
    const version = await currentVersion();
    if (abort.signal.aborted) {
      terminal =
        abort.signal.reason === "shutdown"
          ? { status: "error", data: INTERRUPTED }
          : { status: "done", data: { reason: "cancelled", version } };
    } else if (modelError !== null) {
      terminal = { status: "error", data: modelErrorOf(modelError) };
    } else {
      const reason = finalToolCalled
        ? "render_started"
        : finishReason === "tool-calls"
          ? "step_limit"
          : "stop";
      const u =
        usage && (usage.inputTokens !== undefined || usage.outputTokens !== undefined)
          ? { usage: { inputTokens: usage.inputTokens ?? 0, outputTokens: usage.outputTokens ?? 0 } }
          : {};
      terminal = { status: "done", data: { reason, version, ...u } };
    }
  } catch (err) {
    log.error({ err, runId: run.id }, "assistant run failed");
    terminal =
      abort.signal.reason === "shutdown"
        ? { status: "error", data: INTERRUPTED }
        : abort.signal.aborted
          ? { status: "done", data: { reason: "cancelled", version: await currentVersion() } }
          : {
              status: "error",
              data: { code: "internal_error", message: "The assistant failed unexpectedly", retryable: true },
            };
  } finally {
    clearInterval(heartbeat);
  }
  // A cancelled run's tools see the abort and wind down (a followed render is cancelled and
  // said so): their last events go before the terminal one.
  if (abort.signal.aborted && ctx.inFlight && ctx.inFlight.size > 0) {
    await Promise.race([
      Promise.allSettled([...ctx.inFlight]),
      sleep(TOOL_WIND_DOWN_MS, undefined, { ref: false }),
    ]);
  }
  await chain;
  if (lost) return;
  const type = terminal.status === "done" ? "done" : "error";
  await finishRun(db, {
    runId: run.id,
    seq: seq + 1,
    status: terminal.status,
    data: { type, ...terminal.data },
    now: clock.now(),
  }).catch((err) => log.error({ err, runId: run.id }, "assistant run could not store its terminal event"));
}
