/**
 * The generation use cases of the API, scoped to the caller: generate an image (waiting a
 * while for it), animate a still, list, fetch and cancel. Each answers the generation with its
 * output uploads, which the resource shows.
 */
import type { Db } from "../../db/client.ts";
import type { Notifications } from "../../db/notifications.ts";
import {
  findGeneration,
  GENERATION_TERMINAL,
  type GenerationRow,
  listGenerationsPage,
  outputsOf,
} from "../../db/repositories/generations.ts";
import type { UploadRow } from "../../db/repositories/uploads.ts";
import { checkCallbackUrl } from "../webhooks/target.ts";
import {
  type CreateGenerationDeps,
  cancelGeneration,
  createImageGeneration,
  createVideoGeneration,
  type GenerationCaller,
  type ImageGenerationInput,
  type VideoGenerationInput,
} from "./create.ts";
import { waitForSettled } from "./settled.ts";

/** A generation with its output uploads (none until it succeeds), in creation order. */
export type GenerationWithOutputs = GenerationRow & { outputs: UploadRow[] };

/** Whether a generation has ended (succeeded, failed or cancelled): it changes no more. */
export function isGenerationSettled(g: Pick<GenerationRow, "status">): boolean {
  return GENERATION_TERMINAL.includes(g.status);
}

/** `rows` with their outputs, read in one query. */
async function withOutputs(db: Db, rows: GenerationRow[]): Promise<GenerationWithOutputs[]> {
  if (rows.length === 0) return [];
  const outputs = await outputsOf(
    db,
    rows.map((r) => r.id),
  );
  return rows.map((r) => ({ ...r, outputs: outputs.get(r.id) ?? [] }));
}

/** What starting a generation from the API needs. */
export interface GenerateDeps extends CreateGenerationDeps {
  /** WEBHOOK_ALLOW_PRIVATE: `callbackUrl` may be a loopback/private or http URL. */
  allowPrivateCallbacks?: boolean | undefined;
}

/**
 * Generates images from a prompt: creates and queues the generation, then waits up to
 * `waitMs` milliseconds for a worker in any process to settle it.
 * @returns the generation as last read (terminal, or still queued or running) with its outputs.
 * @throws AppError 400 naming `/callbackUrl` when webhook address rules refuse it; 404 for an
 *   unknown `projectId`; 503 when the job cannot be queued.
 */
export async function generateImage(
  deps: GenerateDeps & { notifications: Notifications },
  caller: GenerationCaller,
  input: ImageGenerationInput,
  waitMs: number,
): Promise<GenerationWithOutputs> {
  await checkCallbackUrl(input.callbackUrl, deps.allowPrivateCallbacks);
  const created = await createImageGeneration(deps, caller, input);
  const row = (await waitForSettled(deps, created.id, { timeoutMs: waitMs })) ?? created;
  const [generation] = await withOutputs(deps.db, [row]);
  return generation as GenerationWithOutputs;
}

/**
 * Animates a still into a video: creates and queues the generation (see `createVideoGeneration`).
 * @returns the queued generation (no outputs yet).
 * @throws AppError 400 naming `/callbackUrl`, `/imageUrl` or an option the model cannot do;
 *   404 for an unknown `projectId`; 503 when the job cannot be queued.
 */
export async function generateVideo(
  deps: GenerateDeps,
  caller: GenerationCaller,
  input: VideoGenerationInput,
): Promise<GenerationWithOutputs> {
  await checkCallbackUrl(input.callbackUrl, deps.allowPrivateCallbacks);
  return { ...(await createVideoGeneration(deps, caller, input)), outputs: [] };
}

/** The caller's generation `id` with its outputs, or null when it is absent or another owner's. */
export async function getGeneration(
  db: Db,
  userId: string,
  id: string,
): Promise<GenerationWithOutputs | null> {
  const row = await findGeneration(db, userId, id);
  return row ? ((await withOutputs(db, [row]))[0] ?? null) : null;
}

/**
 * One page of the caller's generations with their outputs, newest first, optionally of one kind,
 * status and project (`projectId` null: those made outside any project).
 */
export async function listGenerations(
  db: Db,
  input: {
    userId: string;
    kind?: "image" | "video" | undefined;
    status?: GenerationRow["status"] | undefined;
    projectId?: string | null | undefined;
    limit: number;
    afterId: string | undefined;
  },
): Promise<{ rows: GenerationWithOutputs[]; hasMore: boolean }> {
  const page = await listGenerationsPage(db, input);
  return { rows: await withOutputs(db, page.rows), hasMore: page.hasMore };
}

/**
 * Cancels the caller's generation (see `cancelGeneration`) and answers it with its outputs.
 * @throws AppError 404 when it is absent or another owner's.
 */
export async function cancelGenerationWithOutputs(
  deps: Parameters<typeof cancelGeneration>[0],
  userId: string,
  id: string,
): Promise<GenerationWithOutputs> {
  const row = await cancelGeneration(deps, userId, id);
  return (await withOutputs(deps.db, [row]))[0] as GenerationWithOutputs;
}
