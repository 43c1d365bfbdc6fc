import { and, asc, desc, eq, gt, isNull, sql } from "drizzle-orm";
import { newId } from "../../ids.ts";
import { type Db, rowsOf } from "../client.ts";
import { findPgError } from "../errors.ts";
import { CHANNELS } from "../notifications.ts";
import {
  type AssistantModelInfo,
  assistantEdits,
  assistantMessages,
  assistantRunEvents,
  assistantRuns,
  assistantSessions,
} from "../schema/assistant.ts";
import { newestFirstPage } from "./newest-first-page.ts";

/** A session row. */
export type SessionRow = typeof assistantSessions.$inferSelect;
/** A history message row. */
export type MessageRow = typeof assistantMessages.$inferSelect;
/** A run row. */
export type RunRow = typeof assistantRuns.$inferSelect;
/** A stored run event. */
export type RunEventRow = { seq: number; type: string; data: Record<string, unknown> };
/** A stored edit with its inverse patch. */
export type EditRow = typeof assistantEdits.$inferSelect;

/** Inserts a session. */
export async function insertSession(
  db: Db,
  row: { userId: string; projectId: string | null; compositionId: string; model: AssistantModelInfo },
): Promise<SessionRow> {
  const [r] = await db
    .insert(assistantSessions)
    .values({ id: newId("ses"), ...row })
    .returning();
  return r as SessionRow;
}

/** One session of `userId`, or null (also another owner's). */
export async function findSession(db: Db, userId: string, id: string): Promise<SessionRow | null> {
  const [r] = await db
    .select()
    .from(assistantSessions)
    .where(and(eq(assistantSessions.userId, userId), eq(assistantSessions.id, id)))
    .limit(1);
  return r ?? null;
}

/** A page of a user's sessions, newest first. */
export async function listSessionsPage(
  db: Db,
  input: { userId: string; limit: number; afterId: string | undefined },
): Promise<{ rows: SessionRow[]; hasMore: boolean }> {
  const conditions = [eq(assistantSessions.userId, input.userId)];
  return newestFirstPage(db, assistantSessions, conditions, input);
}

/** Deletes a session with its history, runs, events and edits; true when it existed. */
export async function deleteSession(db: Db, userId: string, id: string): Promise<boolean> {
  const rows = await db
    .delete(assistantSessions)
    .where(and(eq(assistantSessions.userId, userId), eq(assistantSessions.id, id)))
    .returning({ id: assistantSessions.id });
  return rows.length > 0;
}

/** Appends history messages in order (ids increase within the call). */
export async function insertMessages(
  db: Db,
  sessionId: string,
  runId: string,
  messages: { role: "user" | "assistant" | "tool"; content: unknown }[],
): Promise<void> {
  if (messages.length === 0) return;
  await db
    .insert(assistantMessages)
    .values(messages.map((m) => ({ id: newId("msg"), sessionId, runId, role: m.role, content: m.content })));
}

/** A session's whole history, oldest first. */
export async function listMessages(db: Db, sessionId: string): Promise<MessageRow[]> {
  return db
    .select()
    .from(assistantMessages)
    .where(eq(assistantMessages.sessionId, sessionId))
    .orderBy(asc(assistantMessages.id));
}

/**
 * Inserts a `running` run. The database refuses a second running run of one session
 * and a reused Idempotency-Key; those come back as `{ conflict }`, anything else throws.
 */
export async function insertRun(
  db: Db,
  row: { sessionId: string; userId: string; message: string; idempotencyKey: string | null; owner: string },
): Promise<{ run: RunRow } | { conflict: "running" | "idempotency" }> {
  try {
    const [r] = await db
      .insert(assistantRuns)
      .values({ id: newId("run"), ...row })
      .returning();
    return { run: r as RunRow };
  } catch (err) {
    const pg = findPgError(err);
    if (pg?.code !== "23505") throw err;
    return { conflict: pg.constraint?.includes("idempotency") ? "idempotency" : "running" };
  }
}

/** One run of `userId`, or null (also another owner's). */
export async function findRun(db: Db, userId: string, id: string): Promise<RunRow | null> {
  const [r] = await db
    .select()
    .from(assistantRuns)
    .where(and(eq(assistantRuns.userId, userId), eq(assistantRuns.id, id)))
    .limit(1);
  return r ?? null;
}

/** The run a user started earlier with `key`, or null. */
export async function findRunByIdempotencyKey(db: Db, userId: string, key: string): Promise<RunRow | null> {
  const [r] = await db
    .select()
    .from(assistantRuns)
    .where(and(eq(assistantRuns.userId, userId), eq(assistantRuns.idempotencyKey, key)))
    .limit(1);
  return r ?? null;
}

/** A run's status regardless of owner, or null when it no longer exists (its session was deleted). */
export async function runStatus(db: Db, id: string): Promise<RunRow["status"] | null> {
  const [r] = await db
    .select({ status: assistantRuns.status })
    .from(assistantRuns)
    .where(eq(assistantRuns.id, id))
    .limit(1);
  return r?.status ?? null;
}

/** The running run of a session, or null. */
export async function findRunningRun(db: Db, sessionId: string): Promise<RunRow | null> {
  const [r] = await db
    .select()
    .from(assistantRuns)
    .where(and(eq(assistantRuns.sessionId, sessionId), eq(assistantRuns.status, "running")))
    .limit(1);
  return r ?? null;
}

/**
 * Stores event `seq` of a run and notifies `CHANNELS.runEvents` in the same statement.
 * @throws the driver's unique violation when `seq` is taken (the sweeper ended the run).
 */
export async function appendRunEvent(
  db: Db,
  runId: string,
  seq: number,
  type: string,
  data: Record<string, unknown>,
): Promise<void> {
  await db.execute(sql`
    with ins as (
      insert into assistant_run_events (run_id, seq, type, data)
      values (${runId}, ${seq}, ${type}, ${JSON.stringify(data)}::jsonb)
      returning run_id
    )
    select pg_notify(${CHANNELS.runEvents}, run_id) from ins`);
}

/** Events of a run with `seq > afterSeq`, in order, at most `limit`. */
export async function runEventsAfter(
  db: Db,
  runId: string,
  afterSeq: number,
  limit = 500,
): Promise<RunEventRow[]> {
  return db
    .select({ seq: assistantRunEvents.seq, type: assistantRunEvents.type, data: assistantRunEvents.data })
    .from(assistantRunEvents)
    .where(and(eq(assistantRunEvents.runId, runId), gt(assistantRunEvents.seq, afterSeq)))
    .orderBy(asc(assistantRunEvents.seq))
    .limit(limit);
}

/**
 * Refreshes the heartbeat of a run this process owns.
 * @returns whether the run is still running and whether a cancel was requested.
 */
export async function heartbeatRun(
  db: Db,
  runId: string,
  now: Date,
): Promise<{ running: boolean; cancelRequested: boolean }> {
  const [r] = await db
    .update(assistantRuns)
    .set({ heartbeatAt: now })
    .where(and(eq(assistantRuns.id, runId), eq(assistantRuns.status, "running")))
    .returning({ cancelRequestedAt: assistantRuns.cancelRequestedAt });
  return { running: r !== undefined, cancelRequested: Boolean(r?.cancelRequestedAt) };
}

/**
 * Records a cancel request on a user's running run (kept when already set). An ended run is
 * returned as it is, with nothing recorded. Null when unknown.
 */
export async function requestRunCancel(
  db: Db,
  userId: string,
  runId: string,
  now: Date,
): Promise<RunRow | null> {
  const [r] = await db
    .update(assistantRuns)
    .set({
      cancelRequestedAt: sql`coalesce(${assistantRuns.cancelRequestedAt}, ${now.toISOString()}::timestamptz)`,
    })
    .where(
      and(eq(assistantRuns.userId, userId), eq(assistantRuns.id, runId), eq(assistantRuns.status, "running")),
    )
    .returning();
  return r ?? findRun(db, userId, runId);
}

/**
 * Ends every running run whose heartbeat is older than `staleBefore` with a terminal
 * `error` event (code `interrupted`), in one statement per run so that the event and the
 * status change are atomic. Safe to run from several processes at once.
 * @returns the ids of the runs it ended.
 */
export async function sweepStaleRuns(db: Db, staleBefore: Date, now: Date): Promise<string[]> {
  const data = {
    type: "error",
    code: "interrupted",
    message: "The process running this request stopped; the composition keeps the edits made so far",
    retryable: true,
  };
  const result = await db.execute(sql`
    with ended as (
      update assistant_runs set status = 'error', ended_at = ${now.toISOString()}::timestamptz
      where status = 'running' and heartbeat_at < ${staleBefore.toISOString()}::timestamptz
      returning id
    ), ins as (
      insert into assistant_run_events (run_id, seq, type, data)
      select e.id, coalesce((select max(seq) from assistant_run_events where run_id = e.id), 0) + 1,
             'error', ${JSON.stringify(data)}::jsonb
      from ended e
      returning run_id
    )
    select run_id, pg_notify(${CHANNELS.runEvents}, run_id) from ins`);
  return rowsOf<{ run_id: string }>(result).map((r) => r.run_id);
}

/** Stores one edit and the patch that reverts it. */
export async function insertEdit(
  db: Db,
  row: {
    sessionId: string;
    compositionId: string;
    toolCallId: string;
    tool: string;
    version: number;
    inverse: unknown[];
  },
): Promise<void> {
  await db.insert(assistantEdits).values({ id: newId("edt"), ...row });
}

/** The session's newest edit not undone yet, or null. */
export async function latestUndoableEdit(db: Db, sessionId: string): Promise<EditRow | null> {
  const [r] = await db
    .select()
    .from(assistantEdits)
    .where(and(eq(assistantEdits.sessionId, sessionId), isNull(assistantEdits.undoneAt)))
    .orderBy(desc(assistantEdits.id))
    .limit(1);
  return r ?? null;
}

/** Marks an edit undone. */
export async function markEditUndone(db: Db, id: string, now: Date): Promise<void> {
  await db.update(assistantEdits).set({ undoneAt: now }).where(eq(assistantEdits.id, id));
}

/**
 * Ends a running run and stores its terminal event (`seq`) in one statement, so a run never
 * has a terminal event without its status or the reverse.
 * @returns false when the run had already ended (swept), storing nothing.
 */
export async function finishRun(
  db: Db,
  input: { runId: string; seq: number; status: "done" | "error"; data: Record<string, unknown>; now: Date },
): Promise<boolean> {
  const type = input.status === "done" ? "done" : "error";
  const result = await db.execute(sql`
    with ended as (
      update assistant_runs set status = ${input.status}, ended_at = ${input.now.toISOString()}::timestamptz
      where id = ${input.runId} and status = 'running'
      returning id
    ), ins as (
      insert into assistant_run_events (run_id, seq, type, data)
      select id, ${input.seq}, ${type}, ${JSON.stringify(input.data)}::jsonb from ended
      returning run_id
    )
    select run_id, pg_notify(${CHANNELS.runEvents}, run_id) from ins`);
  return rowsOf(result).length > 0;
}
