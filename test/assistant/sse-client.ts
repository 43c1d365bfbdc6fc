import { createParser } from "eventsource-parser";

/** One parsed server-sent event. */
export interface SseEvent {
  id: number;
  event: string;
  data: Record<string, unknown> & { type: string };
}

/** What a streamed request answered: status, headers, JSON body (errors) or events. */
export interface StreamAnswer {
  status: number;
  headers: Headers;
  events: SseEvent[];
  comments: string[];
  json?: { error?: { code: string; message: string } } & Record<string, unknown>;
}

/**
 * Sends a request and reads its `text/event-stream` answer with eventsource-parser until the
 * server ends it, or until `stopAfter` events (then the connection is dropped: a disconnect).
 */
export async function requestStream(
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: unknown; stopAfter?: number },
): Promise<StreamAnswer> {
  const controller = new AbortController();
  const res = await fetch(url, {
    method: init.method ?? "GET",
    headers: { ...(init.body !== undefined ? { "content-type": "application/json" } : {}), ...init.headers },
    ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
    signal: controller.signal,
  });
  const answer: StreamAnswer = { status: res.status, headers: res.headers, events: [], comments: [] };
  if (!(res.headers.get("content-type") ?? "").startsWith("text/event-stream")) {
    answer.json = (await res.json()) as StreamAnswer["json"];
    return answer;
  }
  const parser = createParser({
    onEvent: (e) =>
      answer.events.push({ id: Number(e.id), event: e.event ?? "message", data: JSON.parse(e.data) }),
    onComment: (c) => answer.comments.push(c),
  });
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      parser.feed(decoder.decode(value, { stream: true }));
      if (init.stopAfter !== undefined && answer.events.length >= init.stopAfter) {
        controller.abort();
        break;
      }
    }
  } catch (err) {
    if (!controller.signal.aborted) throw err;
  }
  return answer;
}
