import { and, asc, eq, inArray, sql } from "drizzle-orm";
import type { Db } from "../client.ts";
import { type RenderPartStatus, renderSegments } from "../schema/render-segments.ts";
import { renders } from "../schema/renders.ts";
import { ACTIVE_STATUSES } from "./renders.ts";

/** Part statuses of a part that may still run (its job is queued, retried or running). */
const UNFINISHED: RenderPartStatus[] = ["queued", "running"];

/** A part (video segment or audio) of a split render. */
export type RenderPartRow = typeof renderSegments.$inferSelect;
/** Values of a new part row. */
export type NewRenderPart = typeof renderSegments.$inferInsert;

/** Part statuses that never change again. */
export const PART_TERMINAL_STATUSES: RenderPartStatus[] = ["succeeded", "failed", "cancelled"];

/** Inserts the parts of a split render (in the caller's transaction). */
export async function insertRenderParts(db: Db, rows: NewRenderPart[]): Promise<void> {
  await db.insert(renderSegments).values(rows);
}

/** The parts of render `renderId`: video segments in order, then the audio. */
export async function listRenderParts(db: Db, renderId: string): Promise<RenderPartRow[]> {
  return db
    .select()
    .from(renderSegments)
    .where(eq(renderSegments.renderId, renderId))
    .orderBy(sql`${renderSegments.kind} = 'audio'`, asc(renderSegments.index));
}

/** A part by id, or null. */
export async function findRenderPart(db: Db, id: string): Promise<RenderPartRow | null> {
  const [r] = await db.select().from(renderSegments).where(eq(renderSegments.id, id)).limit(1);
  return r ?? null;
}

/**
 * A worker claims a part for a new attempt: increments `attempt` and moves it to `running`,
 * while the part is not finished and its render is still being worked on (an active status).
 * @returns the claimed row (with the new attempt) or null when there is nothing to do.
 */
export async function claimRenderPart(db: Db, id: string, now: Date): Promise<RenderPartRow | null> {
  const [r] = await db
    .update(renderSegments)
    .set({ attempt: sql`${renderSegments.attempt} + 1`, status: "running", heartbeatAt: now })
    .where(
      and(
        eq(renderSegments.id, id),
        inArray(renderSegments.status, UNFINISHED),
        sql`exists (select 1 from ${renders} where ${renders.id} = ${renderSegments.renderId} and ${inArray(renders.status, ACTIVE_STATUSES)})`,
      ),
    )
    .returning();
  return r ?? null;
}

/**
 * Fenced write by the part's worker: applies only while the part is on `attempt` and `from`
 * one of the statuses (default `running`).
 * @returns the row as written, or null when the part moved on.
 */
export async function updateRenderPartFenced(
  db: Db,
  input: {
    id: string;
    attempt: number;
    set: Partial<NewRenderPart>;
    from?: RenderPartStatus[];
  },
): Promise<RenderPartRow | null> {
  const [row] = await db
    .update(renderSegments)
    .set(input.set)
    .where(
      and(
        eq(renderSegments.id, input.id),
        eq(renderSegments.attempt, input.attempt),
        inArray(renderSegments.status, input.from ?? ["running"]),
      ),
    )
    .returning();
  return row ?? null;
}

/**
 * Ends a part whatever attempt runs it: `cancelled`, or `failed` with `error` when given.
 * @returns the row as written, or null when it had already ended.
 */
export async function endRenderPartUnfenced(
  db: Db,
  input: { id: string; error: RenderPartRow["error"]; now: Date },
): Promise<RenderPartRow | null> {
  const [row] = await db
    .update(renderSegments)
    .set({ status: input.error ? "failed" : "cancelled", error: input.error, finishedAt: input.now })
    .where(and(eq(renderSegments.id, input.id), inArray(renderSegments.status, UNFINISHED)))
    .returning();
  return row ?? null;
}

/** Status and attempt of a part and the status of its render (the part worker's control poll). */
export async function readRenderPartControl(
  db: Db,
  id: string,
): Promise<{ status: RenderPartStatus; attempt: number; renderStatus: string } | null> {
  const [r] = await db
    .select({ status: renderSegments.status, attempt: renderSegments.attempt, renderStatus: renders.status })
    .from(renderSegments)
    .innerJoin(renders, eq(renders.id, renderSegments.renderId))
    .where(eq(renderSegments.id, id))
    .limit(1);
  return r ?? null;
}

/**
 * Records a finished video segment on its render (`segments_done` + 1) and writes the render's
 * progress aggregated over its video segments (see {@link writeSplitRenderProgress}).
 */
export async function countSegmentDone(db: Db, renderId: string, now: Date): Promise<void> {
  await db
    .update(renders)
    .set({ segmentsDone: sql`${renders.segmentsDone} + 1` })
    .where(eq(renders.id, renderId));
  await writeSplitRenderProgress(db, renderId, now);
}

/**
 * Writes a split render's progress while it is `rendering`: `base + span` × the share of its
 * output frames done (each video segment's frames × its progress), never lower than before;
 * also its heartbeat time (a part is alive).
 *
 * @param span - where the segments sit in the render's overall ratio (default 5 % to 95 %).
 */
export async function writeSplitRenderProgress(
  db: Db,
  renderId: string,
  now: Date,
  span: { base: number; size: number } = { base: 0.05, size: 0.9 },
): Promise<void> {
  const done = sql`(select coalesce(sum((${renderSegments.endFrame} - ${renderSegments.startFrame}) * ${renderSegments.progress}) / nullif(sum(${renderSegments.endFrame} - ${renderSegments.startFrame}), 0), 0) from ${renderSegments} where ${renderSegments.renderId} = ${renderId} and ${renderSegments.kind} = 'video')`;
  const ratio = sql`greatest(coalesce((${renders.progress}->>'ratio')::float8, 0), ${span.base}::float8 + ${span.size}::float8 * ${done})`;
  await db
    .update(renders)
    .set({
      heartbeatAt: now,
      progress: sql`jsonb_build_object('phase', 'rendering', 'ratio', ${ratio}, 'updatedAt', ${now.toISOString()}::text)`,
    })
    .where(and(eq(renders.id, renderId), eq(renders.status, "rendering")));
}

/** Status and attempt of each of `ids` that exists (the work-directory sweep's question). */
export async function readRenderPartAttempts(
  db: Db,
  ids: string[],
): Promise<Map<string, { status: RenderPartStatus; attempt: number }>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .select({ id: renderSegments.id, status: renderSegments.status, attempt: renderSegments.attempt })
    .from(renderSegments)
    .where(inArray(renderSegments.id, ids));
  return new Map(rows.map((r) => [r.id, { status: r.status, attempt: r.attempt }]));
}

/**
 * Locks the row of the render of part `partId` for the rest of the transaction `db` (`FOR
 * UPDATE`): writes that end parts take it first, so that of two parts ending at once the later
 * one sees the earlier (and the cancel request, which writes the render first, waits or is
 * waited for, never both).
 * @returns the render's id, or null when the part is gone.
 */
export async function lockRenderOfPart(db: Db, partId: string): Promise<string | null> {
  const [r] = await db
    .select({ id: renders.id })
    .from(renders)
    .innerJoin(renderSegments, eq(renderSegments.renderId, renders.id))
    .where(eq(renderSegments.id, partId))
    .for("update", { of: renders });
  return r?.id ?? null;
}

/**
 * Ends every part of render `renderId` that no worker has claimed yet (`queued` → `cancelled`).
 * @returns their ids (their jobs are still in the queue).
 */
export async function cancelQueuedParts(db: Db, renderId: string, now: Date): Promise<string[]> {
  const rows = await db
    .update(renderSegments)
    .set({ status: "cancelled", finishedAt: now })
    .where(and(eq(renderSegments.renderId, renderId), eq(renderSegments.status, "queued")))
    .returning({ id: renderSegments.id });
  return rows.map((r) => r.id);
}

/** How many parts of render `renderId` are queued or running. */
export async function countUnfinishedParts(db: Db, renderId: string): Promise<number> {
  const [r] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(renderSegments)
    .where(and(eq(renderSegments.renderId, renderId), inArray(renderSegments.status, UNFINISHED)));
  return r?.n ?? 0;
}
