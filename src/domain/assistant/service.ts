import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import type { LanguageModel } from "ai";
import type { Logger } from "pino";
import type { Clock } from "../../clock.ts";
import type { Database } from "../../db/client.ts";
import type { Notifications } from "../../db/notifications.ts";
import {
  findRunByIdempotencyKey,
  findRunningRun,
  findSession,
  insertRun,
  type RunRow,
  requestRunCancel,
  type SessionRow,
  sweepStaleRuns,
} from "../../db/repositories/assistant.ts";
import type { AssistantModelInfo } from "../../db/schema/assistant.ts";
import { conflict, notFound } from "../../errors.ts";
import type { Enqueue } from "../../queue/enqueue.ts";
import type { FlowQueue } from "../../queue/flow.ts";
import type { BlobStore } from "../../storage/blob-store.ts";
import { DEFAULT_RENDER_LIMITS } from "../composition/limits.ts";
import type { WebhookEvents } from "../webhooks/events.ts";
import { createLanguageModel, type ModelSettings, modelInfo } from "./model.ts";
import { executeRun, type RunOptions } from "./run.ts";
import { tailRunEvents } from "./run-events.ts";
import type {
  GenerationService,
  MediaAnalysisService,
  ReframeService,
  TranscriptionService,
} from "./tool-context.ts";

/** Timings of the orchestrator (all milliseconds) and the run limits. */
export interface AssistantOptions extends RunOptions {
  /** A run whose heartbeat is older than this ends as `error` `interrupted`. */
  staleMs: number;
  /** How often this process sweeps stale runs. */
  sweepMs: number;
  /** How often a stream polls for new events besides LISTEN/NOTIFY wake-ups. */
  pollMs: number;
  /** Comment heartbeat (`: ping`) interval of event streams. */
  pingMs: number;
}

/** Defaults: heartbeat 2 s, stale after 15 s, swept every 5 s (interrupted within 20 s). */
export const DEFAULT_ASSISTANT_OPTIONS: AssistantOptions = {
  maxSteps: 12,
  maxPaidGenerationsPerRun: 2,
  heartbeatMs: 2_000,
  staleMs: 15_000,
  sweepMs: 5_000,
  pollMs: 1_000,
  pingMs: 15_000,
  renderFollowMs: 10 * 60_000,
  renderPollMs: 1_000,
  renderLimits: DEFAULT_RENDER_LIMITS,
};

/** What the assistant needs from the process. */
export interface AssistantDeps {
  database: Database;
  /** The process's database notifications (run-event wake-ups). */
  notifications: Notifications;
  store: BlobStore;
  /** Sends jobs (render start). */
  enqueue: Enqueue;
  /** Records `render.cancelled` when a cancelled run cancels the queued render it started. */
  events?: Pick<WebhookEvents, "renderEnded"> | undefined;
  /** Cancels a split render's queued part and join jobs when a cancelled run cancels it. */
  flows?: Pick<FlowQueue, "cancel"> | undefined;
  clock: Clock;
  log: Logger;
  model: ModelSettings;
  generation?: GenerationService | undefined;
  transcription?: TranscriptionService | undefined;
  analysis?: MediaAnalysisService | undefined;
  reframe?: ReframeService | undefined;
  /** Replaces the configured model (tests: scripted models). */
  languageModel?: LanguageModel | undefined;
  options?: Partial<AssistantOptions>;
}

/** The assistant of one API process. */
export interface Assistant {
  options: AssistantOptions;
  /** The model new sessions record. */
  modelInfo(): AssistantModelInfo;
  /**
   * Starts a run of `sessionId` with the user's `message`, or returns the run an earlier
   * request with the same Idempotency-Key started (`attached: true`).
   * @throws 404 unknown/foreign session; 409 another run of the session is running, or the
   *   key was used with another session or message.
   */
  startRun(
    userId: string,
    input: { sessionId: string; message: string; idempotencyKey: string | undefined },
  ): Promise<{ run: RunRow; attached: boolean }>;
  /** The events of a run after `afterSeq`, then live ones until the terminal event. */
  events(
    runId: string,
    afterSeq: number,
    signal: AbortSignal,
  ): AsyncGenerator<{ seq: number; type: string; data: Record<string, unknown> }>;
  /**
   * Records a cancel request on a running run (honoured by the owning process within a
   * heartbeat); an ended run is returned unchanged. @throws 404
   */
  cancel(userId: string, runId: string): Promise<RunRow>;
  /**
   * Ends this process's runs as interrupted, then the event streams it serves, the sweeper and
   * the listener. Call before the HTTP server closes (open streams would keep it open).
   */
  close(): Promise<void>;
}

/**
 * Creates the assistant of an API process: runs execute here and store their events; any
 * process serves their streams from the database; a sweeper ends runs of dead processes.
 */
export async function createAssistant(deps: AssistantDeps): Promise<Assistant> {
  const options = { ...DEFAULT_ASSISTANT_OPTIONS, ...deps.options };
  const { database, clock, log } = deps;
  const db = database.db;
  const owner = `${hostname()}:${process.pid}:${randomBytes(4).toString("hex")}`;
  const active = new Map<string, { abort: AbortController; done: Promise<void> }>();
  const closing = new AbortController();
  const info = (): AssistantModelInfo =>
    deps.languageModel && typeof deps.languageModel !== "string"
      ? {
          provider: deps.languageModel.provider,
          id: deps.languageModel.modelId,
          offline: deps.languageModel.provider === "offline",
        }
      : modelInfo(deps.model.model);
  const modelFor = (session: SessionRow): LanguageModel =>
    deps.languageModel ?? createLanguageModel(session.model, deps.model);

  const sweeper = setInterval(() => {
    const now = clock.now();
    sweepStaleRuns(db, new Date(now.getTime() - options.staleMs), now).then(
      (ids) => {
        if (ids.length > 0) log.warn({ runIds: ids }, "assistant runs interrupted (their process stopped)");
      },
      (err) => log.warn({ err }, "assistant sweep failed"),
    );
  }, options.sweepMs);
  sweeper.unref();

  const attach = (existing: RunRow, input: { sessionId: string; message: string }) => {
    if (existing.sessionId !== input.sessionId || existing.message !== input.message) {
      throw conflict("This Idempotency-Key was already used with a different request body", {
        runId: existing.id,
      });
    }
    return { run: existing, attached: true };
  };

  return {
    options,
    modelInfo: info,
    async startRun(userId, input) {
      const session = await findSession(db, userId, input.sessionId);
      if (!session) throw notFound(`Session ${input.sessionId}`);
      if (input.idempotencyKey) {
        const existing = await findRunByIdempotencyKey(db, userId, input.idempotencyKey);
        if (existing) return attach(existing, input);
      }
      const inserted = await insertRun(db, {
        sessionId: session.id,
        userId,
        message: input.message,
        idempotencyKey: input.idempotencyKey ?? null,
        owner,
      });
      if ("conflict" in inserted) {
        if (inserted.conflict === "idempotency" && input.idempotencyKey) {
          const existing = await findRunByIdempotencyKey(db, userId, input.idempotencyKey);
          if (existing) return attach(existing, input);
        }
        const running = await findRunningRun(db, session.id);
        throw conflict("The session already has a running request; wait for it or cancel it", {
          ...(running ? { runId: running.id } : {}),
        });
      }
      const run = inserted.run;
      const abort = new AbortController();
      const done = executeRun(
        {
          db,
          store: deps.store,
          enqueue: deps.enqueue,
          events: deps.events,
          flows: deps.flows,
          clock,
          log,
          generation: deps.generation,
          transcription: deps.transcription,
          analysis: deps.analysis,
          reframe: deps.reframe,
          options,
        },
        { run, session, model: () => modelFor(session), abort },
      ).finally(() => active.delete(run.id));
      active.set(run.id, { abort, done });
      return { run, attached: false };
    },
    events(runId, afterSeq, signal) {
      return tailRunEvents(
        { database, notifications: deps.notifications, pollMs: options.pollMs },
        runId,
        afterSeq,
        AbortSignal.any([signal, closing.signal]),
      );
    },
    async cancel(userId, runId) {
      const run = await requestRunCancel(db, userId, runId, clock.now());
      if (!run) throw notFound(`Run ${runId}`);
      active.get(runId)?.abort.abort("cancelled");
      return run;
    },
    async close() {
      clearInterval(sweeper);
      for (const a of active.values()) a.abort.abort("shutdown");
      await Promise.allSettled([...active.values()].map((a) => a.done));
      // The streams served here have sent those runs' terminal events; end the others (their
      // clients resume elsewhere with Last-Event-ID).
      closing.abort();
    },
  };
}
