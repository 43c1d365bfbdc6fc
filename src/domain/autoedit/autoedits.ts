/**
 * The auto-edit use cases of the API, scoped to the caller: request one (checks, then the row,
 * its callback and its job in one transaction), fetch, list and cancel. The work is the
 * `autoedit` job (`autoedit-job.ts`).
 */
import type { Clock } from "../../clock.ts";
import type { Db } from "../../db/client.ts";
import {
  AUTOEDIT_TERMINAL,
  type AutoeditRow,
  cancelAutoeditRow,
  findAutoedit,
  insertAutoedit,
  listAutoeditsPage,
} from "../../db/repositories/autoedits.ts";
import { findProject } from "../../db/repositories/projects.ts";
import { findUploadsByIds } from "../../db/repositories/uploads.ts";
import { insertWebhookCallback } from "../../db/repositories/webhooks.ts";
import { type ErrorDetail, invalidRequest, notFound } from "../../errors.ts";
import { newId } from "../../ids.ts";
import { JOBS } from "../../queue/catalog.ts";
import { type Enqueue, insertWithJob } from "../../queue/enqueue.ts";
import { deleteComposition } from "../composition/compositions.ts";
import { checkCallbackUrl } from "../webhooks/target.ts";
import type { AutoeditAspectRatio, AutoeditRequest } from "./types.ts";

/** `POST /api/v1/autoedit` input as the route validated it (defaults not yet applied). */
export interface AutoeditInput {
  uploadIds: string[];
  prompt?: string | undefined;
  target?:
    | {
        aspectRatio?: AutoeditAspectRatio | undefined;
        maxDuration?: number | undefined;
        count?: number | undefined;
      }
    | undefined;
  captions?: boolean | undefined;
  removeSilences?: boolean | undefined;
  silenceMinDuration?: number | undefined;
  removeFillers?: boolean | undefined;
  loudness?: number | undefined;
  musicUploadId?: string | undefined;
  projectId?: string | undefined;
  render?: boolean | undefined;
  callbackUrl?: string | undefined;
}

/** Defaults of an auto-edit request. */
export const AUTOEDIT_DEFAULTS = {
  aspectRatio: "9:16",
  maxDuration: 60,
  count: 3,
  silenceMinDuration: 0.75,
  loudness: -14,
} as const;

/** What requesting an auto-edit needs. */
export interface RequestAutoeditDeps {
  db: Db;
  clock: Clock;
  /** Sends the auto-edit's job, inside the insert's transaction. */
  enqueue: Enqueue;
  /** WEBHOOK_ALLOW_PRIVATE: `callbackUrl` may be a loopback/private or http URL. */
  allowPrivateCallbacks?: boolean | undefined;
}

/** The request with its defaults filled in, as stored on the job. */
export function autoeditRequest(input: AutoeditInput): AutoeditRequest {
  return {
    uploadIds: input.uploadIds,
    prompt: input.prompt?.trim() || null,
    target: {
      aspectRatio: input.target?.aspectRatio ?? AUTOEDIT_DEFAULTS.aspectRatio,
      maxDuration: input.target?.maxDuration ?? AUTOEDIT_DEFAULTS.maxDuration,
      count: input.target?.count ?? AUTOEDIT_DEFAULTS.count,
    },
    captions: input.captions ?? true,
    removeSilences: input.removeSilences ?? true,
    silenceMinDuration: input.silenceMinDuration ?? AUTOEDIT_DEFAULTS.silenceMinDuration,
    removeFillers: input.removeFillers ?? true,
    loudness: input.loudness ?? AUTOEDIT_DEFAULTS.loudness,
    musicUploadId: input.musicUploadId ?? null,
    render: input.render ?? false,
  };
}

/**
 * `POST /api/v1/autoedit`: checks the uploads (the caller's videos with sound), the music (the
 * caller's audio), the project and `callbackUrl`, then creates the queued auto-edit and its job in
 * one transaction. The project defaults to the first upload's.
 * @throws AppError 404 naming an unknown (or another account's) upload or project; 400 naming
 *   `/uploadIds/<i>` for an upload that is not a video with sound or is listed twice,
 *   `/musicUploadId` for one that is not audio, `/callbackUrl` when webhook address rules refuse
 *   it; 503 when the job cannot be queued (no row is kept).
 */
export async function requestAutoedit(
  deps: RequestAutoeditDeps,
  userId: string,
  input: AutoeditInput,
): Promise<AutoeditRow> {
  await checkCallbackUrl(input.callbackUrl, deps.allowPrivateCallbacks);
  const request = autoeditRequest(input);
  const ids = [...request.uploadIds, ...(request.musicUploadId ? [request.musicUploadId] : [])];
  const uploads = new Map((await findUploadsByIds(deps.db, userId, ids)).map((u) => [u.id, u]));
  const problems: ErrorDetail[] = [];
  for (const [i, id] of request.uploadIds.entries()) {
    const upload = uploads.get(id);
    if (!upload) throw notFound(`Upload ${id}`);
    if (request.uploadIds.indexOf(id) !== i) {
      problems.push({ path: `/uploadIds/${i}`, message: `lists upload ${id} a second time` });
    } else if (upload.type !== "video" || !upload.media?.hasAudio || !upload.media.width) {
      problems.push({ path: `/uploadIds/${i}`, message: `upload ${id} is not a video with sound` });
    }
  }
  if (request.musicUploadId) {
    const music = uploads.get(request.musicUploadId);
    if (!music) throw notFound(`Upload ${request.musicUploadId}`);
    if (music.type !== "audio") {
      problems.push({ path: "/musicUploadId", message: `upload ${music.id} is ${music.type}, not audio` });
    }
  }
  if (problems.length > 0) {
    throw invalidRequest(
      `The auto-edit cannot use these uploads: ${problems.map((p) => p.message).join("; ")}`,
      problems,
    );
  }
  if (input.projectId && !(await findProject(deps.db, userId, input.projectId))) {
    throw notFound(`Project ${input.projectId}`);
  }
  const now = deps.clock.now();
  const values = {
    id: newId("aed", now.getTime()),
    userId,
    projectId: input.projectId ?? uploads.get(request.uploadIds[0] as string)?.projectId ?? null,
    request,
    createdAt: now,
  };
  return insertWithJob(deps, { resource: "auto-edit" }, async (t, send) => {
    const row = await insertAutoedit(t, values);
    if (input.callbackUrl)
      await insertWebhookCallback(t, { resourceId: row.id, userId, url: input.callbackUrl });
    await send({ job: JOBS.autoedit, data: { v: 1, autoeditId: row.id } });
    return row;
  });
}

/** Whether an auto-edit has ended (succeeded, failed or cancelled): it changes no more. */
export function isAutoeditFinished(a: Pick<AutoeditRow, "status">): boolean {
  return AUTOEDIT_TERMINAL.includes(a.status);
}

/** The caller's auto-edit `id`, or null when it is absent or another owner's. */
export function getAutoedit(db: Db, userId: string, id: string): Promise<AutoeditRow | null> {
  return findAutoedit(db, userId, id);
}

/** One page of the caller's auto-edits, newest first, optionally of one status and project. */
export function listAutoedits(
  db: Db,
  input: {
    userId: string;
    status?: AutoeditRow["status"] | undefined;
    projectId?: string | undefined;
    limit: number;
    afterId: string | undefined;
  },
): Promise<{ rows: AutoeditRow[]; hasMore: boolean }> {
  return listAutoeditsPage(db, input);
}

/**
 * Cancels a queued or running auto-edit of the caller: it becomes `cancelled` at once, the
 * compositions it made so far are deleted (the worker stops at its next check and deletes any it
 * was writing). Idempotent: a finished one is returned unchanged.
 * @returns the auto-edit as it now is, or null when the caller has no such auto-edit.
 */
export async function cancelAutoedit(
  deps: { db: Db; clock: Clock },
  userId: string,
  id: string,
): Promise<AutoeditRow | null> {
  const result = await cancelAutoeditRow(deps.db, userId, id, deps.clock.now());
  if (!result) return null;
  if (result.changed) {
    for (const c of result.row.result?.compositions ?? []) await deleteComposition(deps.db, userId, c.id);
  }
  return result.row;
}
