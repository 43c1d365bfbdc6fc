import { sql } from "drizzle-orm";
import {
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
} from "drizzle-orm/pg-core";
import { projects } from "./projects.ts";
import { users } from "./users.ts";

/** The model a session talks to, fixed when the session is created. */
export interface AssistantModelInfo {
  /** `offline`, `openai`, `anthropic` or `openai-compatible`. */
  provider: string;
  /** The provider's model id (`command-v1` for the offline model). */
  id: string;
  /** True for the built-in offline command model (no network). */
  offline: boolean;
}

/**
 * Assistant sessions: one conversation about one composition. `composition_id` has no
 * foreign key: deleting the composition leaves the history readable (its tools then fail
 * with a clear not-found error).
 */
export const assistantSessions = pgTable(
  "assistant_sessions",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    projectId: text("project_id").references(() => projects.id, { onDelete: "set null" }),
    compositionId: text("composition_id").notNull(),
    model: jsonb("model").$type<AssistantModelInfo>().notNull(),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [index("assistant_sessions_user_idx").on(t.userId, t.id)],
);

/**
 * A session's history as the model sees it: one AI SDK model message per row
 * (`role` user | assistant | tool; `content` the message content), in id order.
 */
export const assistantMessages = pgTable(
  "assistant_messages",
  {
    id: text("id").primaryKey(),
    sessionId: text("session_id")
      .notNull()
      .references(() => assistantSessions.id, { onDelete: "cascade" }),
    runId: text("run_id"),
    role: text("role").$type<"user" | "assistant" | "tool">().notNull(),
    content: jsonb("content").$type<unknown>().notNull(),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [index("assistant_messages_session_idx").on(t.sessionId, t.id)],
);

/** Run statuses: `running` until the terminal event, then `done` or `error`. */
export type AssistantRunStatus = "running" | "done" | "error";

/**
 * Orchestrator runs. At most one `running` run per session, enforced by a partial unique
 * index. The owning process refreshes `heartbeat_at`; a sweeper ends runs whose owner
 * stopped heartbeating. `last_seq` is the seq of the last stored event.
 */
export const assistantRuns = pgTable(
  "assistant_runs",
  {
    id: text("id").primaryKey(),
    sessionId: text("session_id")
      .notNull()
      .references(() => assistantSessions.id, { onDelete: "cascade" }),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    status: text("status").$type<AssistantRunStatus>().notNull().default("running"),
    message: text("message").notNull(),
    idempotencyKey: text("idempotency_key"),
    /** Process instance executing the run. */
    owner: text("owner").notNull(),
    heartbeatAt: timestamp("heartbeat_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    cancelRequestedAt: timestamp("cancel_requested_at", { withTimezone: true, mode: "date" }),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    endedAt: timestamp("ended_at", { withTimezone: true, mode: "date" }),
  },
  (t) => [
    index("assistant_runs_session_idx").on(t.sessionId, t.id),
    uniqueIndex("assistant_runs_one_running_idx").on(t.sessionId).where(sql`${t.status} = 'running'`),
    uniqueIndex("assistant_runs_idempotency_idx").on(t.userId, t.idempotencyKey),
    index("assistant_runs_heartbeat_idx").on(t.heartbeatAt).where(sql`${t.status} = 'running'`),
  ],
);

/** The stored event stream of a run: `seq` 1, 2, … is the SSE `id`; `data` carries `type`. */
export const assistantRunEvents = pgTable(
  "assistant_run_events",
  {
    runId: text("run_id")
      .notNull()
      .references(() => assistantRuns.id, { onDelete: "cascade" }),
    seq: integer("seq").notNull(),
    type: text("type").notNull(),
    data: jsonb("data").$type<Record<string, unknown>>().notNull(),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.runId, t.seq] })],
);

/**
 * The assistant's edits, newest last, with the RFC 6902 patch that reverts each one
 * (`test` operations first, so an undo never overwrites a later change). `undone_at` is set
 * when `undo` applied it.
 */
export const assistantEdits = pgTable(
  "assistant_edits",
  {
    id: text("id").primaryKey(),
    sessionId: text("session_id")
      .notNull()
      .references(() => assistantSessions.id, { onDelete: "cascade" }),
    compositionId: text("composition_id").notNull(),
    toolCallId: text("tool_call_id").notNull(),
    tool: text("tool").notNull(),
    version: integer("version").notNull(),
    inverse: jsonb("inverse").$type<unknown[]>().notNull(),
    undoneAt: timestamp("undone_at", { withTimezone: true, mode: "date" }),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [index("assistant_edits_session_idx").on(t.sessionId, t.id)],
);
