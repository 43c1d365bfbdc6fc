import { createParser, type EventSourceMessage } from "eventsource-parser";
import type { Client } from "openapi-fetch";
import { CutroomError } from "./errors.js";
import type { paths } from "./schema.js";
import { sleep } from "./sleep.js";
import { chunks } from "./streams.js";
import type { AssistantEvent } from "./types.js";

/** Input of {@link runAssistant}. */
export interface AssistantRunInput {
  /** An assistant session of the caller (POST /api/assistant/session). */
  sessionId: string;
  /** What to do, in words. */
  message: string;
  /** Sent as `Idempotency-Key`: repeating the request re-attaches to the same run. */
  idempotencyKey?: string;
}

/** Options of {@link runAssistant}. */
export interface AssistantRunOptions {
  /** Stops reading (the run continues on the server; cancel it with POST /api/assistant/runs/{runId}/cancel). */
  signal?: AbortSignal;
  /** How many times a dropped connection is resumed before giving up (default 5). */
  maxReconnects?: number;
}

const TERMINAL = new Set(["done", "error"]);

/**
 * Starts an assistant run (`POST /api/assistant/orchestrator`) and yields its events in
 * order until the terminal `done` or `error`. When the connection drops first, it resumes
 * with `GET /api/assistant/runs/{runId}/events` and `Last-Event-ID` (the run id comes from
 * `X-Run-Id`), so no event is lost or repeated; retries wait 0.2 s, 0.4 s, … up to 5 s.
 * @throws {CutroomError} when the API refuses the run or a resume.
 * @throws an Error when the stream keeps dropping after `maxReconnects` resumes.
 */
export async function* runAssistant(
  api: Client<paths>,
  input: AssistantRunInput,
  opts: AssistantRunOptions = {},
): AsyncGenerator<AssistantEvent, void, undefined> {
  const { signal } = opts;
  const maxReconnects = opts.maxReconnects ?? 5;
  const started = await api.POST("/api/assistant/orchestrator", {
    body: { sessionId: input.sessionId, message: input.message },
    params: { header: input.idempotencyKey ? { "idempotency-key": input.idempotencyKey } : {} },
    parseAs: "stream",
    ...(signal ? { signal } : {}),
  });
  if (!started.data) throw CutroomError.from(started.response, started.error);
  const runId = started.response.headers.get("x-run-id");
  let body: ReadableStream<Uint8Array> = started.data;
  let lastEventId: string | undefined;
  for (let reconnects = 0; ; reconnects++) {
    try {
      for await (const message of messages(body)) {
        if (message.id !== undefined) lastEventId = message.id;
        const event: AssistantEvent = JSON.parse(message.data);
        yield event;
        if (TERMINAL.has(event.type)) return;
      }
    } catch (err) {
      if (signal?.aborted) throw err;
      // A dropped connection: resumed below.
    }
    if (!runId)
      throw new Error("The assistant stream ended early and the server sent no X-Run-Id to resume it");
    if (reconnects >= maxReconnects) {
      throw new Error(`The assistant stream of run ${runId} dropped ${reconnects + 1} times; giving up`);
    }
    await sleep(Math.min(200 * 2 ** reconnects, 5000), signal);
    const resumed = await api.GET("/api/assistant/runs/{runId}/events", {
      params: { path: { runId }, header: lastEventId ? { "last-event-id": lastEventId } : {} },
      parseAs: "stream",
      ...(signal ? { signal } : {}),
    });
    if (!resumed.data) throw CutroomError.from(resumed.response, resumed.error);
    body = resumed.data;
  }
}

/** The server-sent events of a response body, as they arrive (comments and pings skipped). */
async function* messages(body: ReadableStream<Uint8Array>): AsyncGenerator<EventSourceMessage> {
  const ready: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (message) => ready.push(message) });
  const decoder = new TextDecoder();
  for await (const chunk of chunks(body)) {
    parser.feed(decoder.decode(chunk, { stream: true }));
    yield* ready.splice(0);
  }
}
