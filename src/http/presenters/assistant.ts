import type { MessageRow, RunRow, SessionRow } from "../../db/repositories/assistant.ts";

/**
 * A session → the `AssistantSession` resource (with `messages`, its history, when given) or,
 * without them, the `AssistantSessionSummary`.
 * @param activeRunId - the session's running run, or null.
 */
export function presentSession(s: SessionRow, activeRunId: string | null, messages?: MessageRow[]) {
  return {
    id: s.id,
    projectId: s.projectId,
    compositionId: s.compositionId,
    model: s.model,
    activeRunId,
    createdAt: s.createdAt.toISOString(),
    ...(messages ? { messages: messages.map(toHistoryEntry) } : {}),
  };
}

/** A run after a cancel → the `RunCancelled` answer. */
export function presentRunCancelled(run: RunRow) {
  return {
    id: run.id,
    sessionId: run.sessionId,
    status: run.status,
    cancelRequested: run.cancelRequestedAt !== null,
  };
}

/** One history entry as clients read it (compact: text, tool calls, tool results). */
export type HistoryEntry =
  | { id: string; runId: string | null; role: "user"; text: string; createdAt: string }
  | {
      id: string;
      runId: string | null;
      role: "assistant";
      text: string;
      toolCalls: { toolCallId: string; name: string; input: unknown }[];
      createdAt: string;
    }
  | {
      id: string;
      runId: string | null;
      role: "tool";
      results: (
        | { toolCallId: string; name: string; ok: true; output: unknown }
        | { toolCallId: string; name: string; ok: false; error: { message: string } }
      )[];
      createdAt: string;
    };

type Part = {
  type: string;
  text?: string;
  toolCallId?: string;
  toolName?: string;
  input?: unknown;
  output?: { type: string; value?: unknown };
};

/** A stored model message → its compact history entry. */
export function toHistoryEntry(m: MessageRow): HistoryEntry {
  const base = { id: m.id, runId: m.runId, createdAt: m.createdAt.toISOString() };
  const parts: Part[] =
    typeof m.content === "string" ? [{ type: "text", text: m.content }] : (m.content as Part[]);
  if (m.role === "user") {
    return { ...base, role: "user", text: parts.map((p) => p.text ?? "").join("") };
  }
  if (m.role === "assistant") {
    return {
      ...base,
      role: "assistant",
      text: parts
        .filter((p) => p.type === "text")
        .map((p) => p.text ?? "")
        .join(""),
      toolCalls: parts
        .filter((p) => p.type === "tool-call")
        .map((p) => ({ toolCallId: p.toolCallId ?? "", name: p.toolName ?? "", input: p.input ?? null })),
    };
  }
  return {
    ...base,
    role: "tool",
    results: parts
      .filter((p) => p.type === "tool-result")
      .map((p) => {
        const o = p.output ?? { type: "json", value: null };
        const head = { toolCallId: p.toolCallId ?? "", name: p.toolName ?? "" };
        return o.type.startsWith("error")
          ? {
              ...head,
              ok: false as const,
              error: { message: typeof o.value === "string" ? o.value : JSON.stringify(o.value) },
            }
          : { ...head, ok: true as const, output: o.value ?? null };
      }),
  };
}
