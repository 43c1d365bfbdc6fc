import type { Db } from "../../db/client.ts";
import {
  deleteSession as deleteSessionRow,
  findRun,
  findRunningRun,
  findSession,
  insertSession,
  listMessages,
  listSessionsPage,
  type MessageRow,
  type SessionRow,
} from "../../db/repositories/assistant.ts";
import { findComposition } from "../../db/repositories/compositions.ts";
import { findProject } from "../../db/repositories/projects.ts";
import type { AssistantModelInfo } from "../../db/schema/assistant.ts";
import { invalidRequest, notFound } from "../../errors.ts";
import { createComposition } from "../composition/edit-composition.ts";
import type { Assistant } from "./service.ts";

/** The canvas of a composition a session creates: 1920×1080 at 30 fps on black. */
export const NEW_SESSION_CANVAS = { width: 1920, height: 1080, fps: 30, background: "#000000" } as const;

/**
 * Opens a session on a composition of the caller. With `compositionId` the session edits that
 * composition (its project is the session's; a different `projectId` is a 400). Without it a
 * new, empty 1920×1080 30 fps composition is created — in `projectId` when given, else outside
 * any project (tools then see all the caller's uploads). Both rows are written in one
 * transaction.
 * @throws 404 for an unknown or foreign project or composition.
 */
export async function openSession(
  ctx: { db: Db; userId: string; now: Date },
  input: { projectId?: string | undefined; compositionId?: string | undefined; model: AssistantModelInfo },
): Promise<SessionRow> {
  return ctx.db.transaction(async (tx) => {
    const db = tx as unknown as Db;
    let projectId = input.projectId ?? null;
    let compositionId: string;
    if (input.compositionId) {
      const c = await findComposition(db, ctx.userId, input.compositionId);
      if (!c) throw notFound(`Composition ${input.compositionId}`);
      if (input.projectId && c.projectId !== input.projectId) {
        throw invalidRequest("The composition is not in this project", [
          { path: "/projectId", message: `composition ${c.id} belongs to ${c.projectId ?? "no project"}` },
        ]);
      }
      projectId = c.projectId;
      compositionId = c.id;
    } else {
      if (projectId && !(await findProject(db, ctx.userId, projectId)))
        throw notFound(`Project ${projectId}`);
      const created = await createComposition(
        { db, userId: ctx.userId, now: ctx.now, author: { kind: "assistant" } },
        {
          name: `Assistant edit ${ctx.now.toISOString().slice(0, 16).replace("T", " ")}`,
          projectId,
          canvas: { ...NEW_SESSION_CANVAS },
          tracks: [],
        },
      );
      compositionId = created.id;
    }
    return insertSession(db, { userId: ctx.userId, projectId, compositionId, model: input.model });
  });
}

/** A session as clients see it: the row, its running run, and its history when asked for. */
export interface SessionDetails {
  session: SessionRow;
  /** The session's run that is running, or null. */
  activeRunId: string | null;
  /** The session's messages, oldest first (only when asked for). */
  messages?: MessageRow[];
}

async function detailsOf(db: Db, session: SessionRow, withHistory: boolean): Promise<SessionDetails> {
  const running = await findRunningRun(db, session.id);
  return {
    session,
    activeRunId: running?.id ?? null,
    ...(withHistory ? { messages: await listMessages(db, session.id) } : {}),
  };
}

/**
 * Opens a session ({@link openSession}) and answers it with its details and history.
 * @throws as {@link openSession}.
 */
export async function createSession(
  ctx: { db: Db; userId: string; now: Date },
  input: { projectId?: string | undefined; compositionId?: string | undefined; model: AssistantModelInfo },
): Promise<SessionDetails> {
  return detailsOf(ctx.db, await openSession(ctx, input), true);
}

/**
 * The caller's session `id` with its history.
 * @throws AppError 404 when it is absent or another owner's.
 */
export async function getSession(db: Db, userId: string, id: string): Promise<SessionDetails> {
  const session = await findSession(db, userId, id);
  if (!session) throw notFound(`Session ${id}`);
  return detailsOf(db, session, true);
}

/** One page of the caller's sessions, newest first, without their history. */
export async function listSessions(
  db: Db,
  userId: string,
  page: { limit: number; afterId: string | undefined },
): Promise<{ rows: SessionDetails[]; hasMore: boolean }> {
  const { rows, hasMore } = await listSessionsPage(db, { userId, ...page });
  return { rows: await Promise.all(rows.map((s) => detailsOf(db, s, false))), hasMore };
}

/**
 * Deletes the caller's session with its history, cancelling its running run first; the
 * composition stays. Nothing happens when it is absent or another owner's (idempotent).
 */
export async function deleteSession(
  deps: { db: Db; assistant: Pick<Assistant, "cancel"> },
  userId: string,
  id: string,
): Promise<void> {
  const running = await findRunningRun(deps.db, id);
  if (running && running.userId === userId) await deps.assistant.cancel(userId, running.id);
  await deleteSessionRow(deps.db, userId, id);
}

/**
 * The events of the caller's run `runId` after `afterSeq`: the stored ones, then live ones until
 * the terminal event (see `Assistant.events`), as a function of the signal that ends the reading.
 * @throws AppError 404 when the run is absent or another owner's (before any event is read).
 */
export async function followRun(
  deps: { db: Db; assistant: Pick<Assistant, "events"> },
  userId: string,
  runId: string,
  afterSeq: number,
): Promise<(signal: AbortSignal) => ReturnType<Assistant["events"]>> {
  const run = await findRun(deps.db, userId, runId);
  if (!run) throw notFound(`Run ${runId}`);
  return (signal) => deps.assistant.events(run.id, afterSeq, signal);
}
