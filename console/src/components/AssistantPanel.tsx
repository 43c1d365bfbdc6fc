import { EventSourceParserStream } from "eventsource-parser/stream";
import { useCallback, useEffect, useRef, useState } from "react";
import type { AssistantEvent, AssistantSession } from "../../../clients/typescript/src/types.ts";
import { api, errorMessage } from "../api/client";

/** A `patch` event of a run: ops turning the composition at `baseVersion` into `version`. */
export type AssistantPatch = Extract<AssistantEvent, { type: "patch" }>;

/** One line of the conversation as shown. */
type Line =
  | { kind: "user"; key: string; text: string }
  | { kind: "assistant"; key: string; text: string }
  | { kind: "tool"; key: string; name: string; input: unknown; result?: { ok: boolean; text: string } }
  | { kind: "patch"; key: string; version: number; count?: number }
  | { kind: "end"; key: string; text: string; error: boolean };

/** Times the panel reconnects to a run whose stream broke before its terminal event. */
const MAX_RECONNECTS = 5;

const short = (v: unknown) => {
  const s = typeof v === "string" ? v : JSON.stringify(v);
  return s.length > 160 ? `${s.slice(0, 157)}…` : s;
};

function resultText(output: unknown): string {
  const summary = (output as { summary?: unknown } | null)?.summary;
  return typeof summary === "string" ? summary : short(output);
}

/** The version a tool's result says it wrote (edits answer `version`; unchanged ones wrote none). */
function writtenVersion(output: unknown): number | null {
  const o = output as { version?: unknown; unchanged?: unknown } | null;
  return typeof o?.version === "number" && !o.unchanged ? o.version : null;
}

/** The lines a session's stored history shows: messages, tool lines and the versions edits wrote. */
function historyLines(session: AssistantSession): Line[] {
  const lines: Line[] = [];
  const tools = new Map<string, Extract<Line, { kind: "tool" }>>();
  for (const m of session.messages) {
    if (m.role === "user" && m.text) lines.push({ kind: "user", key: m.id, text: m.text });
    if (m.role === "assistant") {
      if (m.text) lines.push({ kind: "assistant", key: m.id, text: m.text });
      for (const c of m.toolCalls ?? []) {
        const line: Extract<Line, { kind: "tool" }> = {
          kind: "tool",
          key: c.toolCallId,
          name: c.name,
          input: c.input,
        };
        tools.set(c.toolCallId, line);
        lines.push(line);
      }
    }
    for (const r of m.results ?? []) {
      const line = tools.get(r.toolCallId);
      if (line)
        line.result = { ok: r.ok, text: r.ok ? resultText(r.output) : (r.error?.message ?? "failed") };
      const version = r.ok ? writtenVersion(r.output) : null;
      if (version !== null) lines.push({ kind: "patch", key: `p${r.toolCallId}`, version });
    }
  }
  return lines;
}

/**
 * The assistant chat of a composition: streams a run's events (text as it arrives, each tool
 * with its input and result, each patch with the version it made), resumes a broken stream with
 * `Last-Event-ID`, stops a run, shows the session's history and its model.
 */
export function AssistantPanel(props: {
  compositionId: string;
  projectId: string;
  onPatch: (patch: AssistantPatch) => void;
}) {
  const { compositionId, onPatch } = props;
  const [session, setSession] = useState<AssistantSession | null>(null);
  const [lines, setLines] = useState<Line[]>([]);
  const [runId, setRunId] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [draft, setDraft] = useState("");
  const log = useRef<HTMLOListElement>(null);
  /** The run being streamed (set by its `session` event). */
  const current = useRef<string | null>(null);

  const push = useCallback((line: Line) => setLines((l) => [...l, line]), []);

  /** Applies one event to the transcript (and a patch to the timeline). */
  const handle = useCallback(
    (ev: AssistantEvent, id: string) => {
      switch (ev.type) {
        case "session":
          current.current = ev.runId;
          setRunId(ev.runId);
          break;
        case "text":
          setLines((l) => {
            const last = l.at(-1);
            if (last?.kind === "assistant" && last.key === ev.messageId)
              return [...l.slice(0, -1), { ...last, text: last.text + ev.delta }];
            return [...l, { kind: "assistant", key: ev.messageId, text: ev.delta }];
          });
          break;
        case "tool_start":
          push({ kind: "tool", key: ev.toolCallId, name: ev.name, input: ev.input });
          break;
        case "patch":
          onPatch(ev);
          push({ kind: "patch", key: `p${id}`, version: ev.version, count: ev.ops.length });
          break;
        case "tool_result":
          setLines((l) =>
            l.map((x) =>
              x.kind === "tool" && x.key === ev.toolCallId
                ? {
                    ...x,
                    result: {
                      ok: ev.ok,
                      text: ev.ok ? resultText(ev.output) : (ev.error?.message ?? "failed"),
                    },
                  }
                : x,
            ),
          );
          break;
        case "done":
          push({ kind: "end", key: `e${id}`, text: `Done (${ev.reason})`, error: false });
          setRunId(null);
          break;
        case "error":
          push({ kind: "end", key: `e${id}`, text: `${ev.code}: ${ev.message}`, error: true });
          setRunId(null);
          break;
        default:
          break; // Unknown event types are ignored, as the API asks.
      }
    },
    [onPatch, push],
  );

  /**
   * Reads an event stream to its end; returns the last event id seen and whether a terminal
   * event came.
   */
  const consume = useCallback(
    async (body: ReadableStream<BufferSource>, lastId: string | null) => {
      let last = lastId;
      let ended = false;
      const events = body.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream());
      const reader = events.getReader();
      try {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          if (!value.data) continue;
          if (value.id) last = value.id;
          const ev = JSON.parse(value.data) as AssistantEvent;
          handle(ev, value.id ?? String(Math.random()));
          if (ev.type === "done" || ev.type === "error") ended = true;
        }
      } catch {
        // A broken connection: the caller resumes from `last`.
      }
      return { last, ended };
    },
    [handle],
  );

  /** Follows run `id` from after event `lastId`, reconnecting with Last-Event-ID while it runs. */
  const follow = useCallback(
    async (id: string, from: { last: string | null }) => {
      let state = { last: from.last, ended: false };
      for (let attempt = 0; !state.ended && attempt < MAX_RECONNECTS; attempt++) {
        const { data, response } = await api.GET("/api/assistant/runs/{runId}/events", {
          params: { path: { runId: id }, header: state.last ? { "last-event-id": state.last } : {} },
          parseAs: "stream",
        });
        if (!data || !response.ok) break;
        state = await consume(data as ReadableStream<BufferSource>, state.last);
      }
      if (!state.ended)
        setError("Lost the connection to the assistant run; reopen the page to see how it ended.");
      setRunId(null);
    },
    [consume],
  );

  // The newest session of this composition, with its history (and its run, if one is going).
  // biome-ignore lint/correctness/useExhaustiveDependencies: load once per composition
  useEffect(() => {
    let stop = false;
    void (async () => {
      const { data } = await api.GET("/api/assistant/sessions", { params: { query: { limit: 100 } } });
      const summary = data?.data.find((s) => s.compositionId === compositionId);
      if (!summary || stop) return;
      const { data: full } = await api.GET("/api/assistant/session/{id}", {
        params: { path: { id: summary.id } },
      });
      if (!full || stop) return;
      setSession(full);
      setLines(historyLines(full));
      if (full.activeRunId) {
        setRunId(full.activeRunId);
        void follow(full.activeRunId, { last: null });
      }
    })();
    return () => {
      stop = true;
    };
  }, [compositionId]);

  async function send(e: React.FormEvent) {
    e.preventDefault();
    const message = draft.trim();
    if (!message || runId) return;
    setError(null);
    let s = session;
    if (!s) {
      const { data, error } = await api.POST("/api/assistant/session", { body: { compositionId } });
      if (!data) {
        setError(errorMessage(error));
        return;
      }
      s = data;
      setSession(data);
    }
    push({ kind: "user", key: `u${Date.now()}`, text: message });
    setDraft("");
    setRunId("starting");
    const { data, error, response } = await api.POST("/api/assistant/orchestrator", {
      body: { sessionId: s.id, message },
      parseAs: "stream",
    });
    if (!data || !response.ok) {
      setRunId(null);
      setError(errorMessage(error));
      return;
    }
    // The run id arrives in the first (session) event; a broken stream resumes with it.
    current.current = null;
    const state = await consume(data as ReadableStream<BufferSource>, null);
    if (!state.ended && current.current) await follow(current.current, { last: state.last });
    else if (!state.ended) setRunId(null);
  }

  async function stop() {
    if (!runId || runId === "starting") return;
    const { error } = await api.POST("/api/assistant/runs/{runId}/cancel", { params: { path: { runId } } });
    if (error) setError(errorMessage(error));
  }

  useEffect(() => {
    const el = log.current;
    if (el && lines.length > 0) el.scrollTop = el.scrollHeight;
  }, [lines]);

  const model = session?.model;
  return (
    <section className="card assistant" aria-labelledby="assistant-h">
      <h2 id="assistant-h">Assistant</h2>
      <p className="hint">
        {model
          ? `Model: ${model.provider}/${model.id} — ${model.offline ? "offline (built-in command model, no network)" : "online"}`
          : "Model: chosen by the server when the conversation starts"}
      </p>
      <ol className="plain chat" ref={log} aria-label="Conversation" aria-live="polite">
        {lines.map((l) => {
          switch (l.kind) {
            case "user":
              return (
                <li key={l.key} className="you">
                  <strong>You:</strong> {l.text}
                </li>
              );
            case "assistant":
              return (
                <li key={l.key} className="bot">
                  {l.text}
                </li>
              );
            case "tool":
              return (
                <li key={l.key} className="tool">
                  <code>{l.name}</code> <small>{short(l.input)}</small>
                  {l.result ? (
                    <span className={l.result.ok ? "ok" : "error"}> → {l.result.text}</span>
                  ) : (
                    <span> → running…</span>
                  )}
                </li>
              );
            case "patch":
              return (
                <li key={l.key} className="patch">
                  Timeline patched{l.count === undefined ? "" : ` (${l.count} ops)`} → version {l.version}
                </li>
              );
            default:
              return (
                <li key={l.key} className={l.error ? "error" : "end"}>
                  {l.text}
                </li>
              );
          }
        })}
      </ol>
      <form onSubmit={send} className="stack">
        <label>
          Message to the assistant
          <textarea
            rows={2}
            value={draft}
            onChange={(e) => setDraft(e.target.value)}
            placeholder="add a title 'Hello' at 1s for 2 seconds"
            maxLength={8000}
            onKeyDown={(e) => {
              if (e.key === "Enter" && !e.shiftKey) {
                e.preventDefault();
                e.currentTarget.form?.requestSubmit();
              }
            }}
          />
        </label>
        <div className="hbox">
          <button type="submit" disabled={!!runId || !draft.trim()}>
            Send
          </button>
          {runId && (
            <button type="button" className="danger" onClick={stop}>
              Stop
            </button>
          )}
        </div>
      </form>
      <p role="alert" className="error">
        {error ?? ""}
      </p>
    </section>
  );
}
