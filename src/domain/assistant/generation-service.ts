/**
 * The assistant's {@link GenerationService} on the generation domain: `generate_image` and
 * `animate_image` create ordinary generations (the caller's image-model preference, the same
 * queue, the same outputs as `POST /api/v1/generate/*`) and wait for them.
 */
import type { Logger } from "pino";
import type { Notifications } from "../../db/notifications.ts";
import { findGenerationById, outputsOf } from "../../db/repositories/generations.ts";
import { findUser } from "../../db/repositories/users.ts";
import {
  type CreateGenerationDeps,
  cancelGeneration,
  createImageGeneration,
  createVideoGeneration,
} from "../generation/create.ts";
import { modelFor } from "../generation/models.ts";
import type { ProviderSet } from "../generation/providers/types.ts";
import { waitForSettled } from "../generation/settled.ts";
import { type GenerationService, ToolError } from "./tool-context.ts";

/** How often a waiting tool reports progress (and re-reads a generation run elsewhere), ms. */
const PROGRESS_EVERY_MS = 1000;

/**
 * Builds the assistant's generation service.
 *
 * - `start` creates a queued generation for the caller (a video from `imageUploadId`) in the
 *   session's project;
 * - `wait` reports the generation's progress (0..1) about once a second until it ends, then
 *   returns its output upload ids; a failed or cancelled generation is a {@link ToolError}
 *   carrying its code; an aborted run cancels the generation (at the vendor too).
 *
 * @throws AppError from `start` for the same reasons as the HTTP routes (unknown upload 400/404,
 *   queue unavailable 503).
 */
export function createGenerationService(
  deps: CreateGenerationDeps & { providers: ProviderSet; notifications: Notifications; log: Logger },
): GenerationService {
  return {
    async paid(input) {
      const user = await findUser(deps.db, input.userId);
      return modelFor(deps.generation, input.kind, user?.imageModel ?? null).provider !== "offline";
    },

    async start(input) {
      const user = await findUser(deps.db, input.userId);
      const caller = { userId: input.userId, imageModel: user?.imageModel ?? null };
      const project = input.projectId ? { projectId: input.projectId } : {};
      const row =
        input.kind === "image"
          ? await createImageGeneration(deps, caller, { prompt: input.prompt, ...project })
          : await createVideoGeneration(deps, caller, {
              prompt: input.prompt,
              imageUrl: input.imageUploadId ?? "",
              ...project,
            });
      return { generationId: row.id };
    },

    async wait(input, onProgress, signal) {
      const { generationId } = input;
      let last = -1;
      try {
        for (;;) {
          signal.throwIfAborted();
          const row = await waitForSettled(deps, generationId, { timeoutMs: PROGRESS_EVERY_MS });
          if (!row) throw new ToolError("not_found", `Generation ${generationId} is gone`);
          if (row.status === "succeeded") {
            const outputs = (await outputsOf(deps.db, [generationId])).get(generationId) ?? [];
            return { uploadIds: outputs.map((u) => u.id) };
          }
          if (row.status === "failed" || row.status === "cancelled") {
            const error = row.error ?? { code: row.status, message: `The generation was ${row.status}` };
            throw new ToolError(error.code, `Generation ${generationId} ${row.status}: ${error.message}`);
          }
          const progress = row.progress ?? 0;
          if (progress !== last) {
            last = progress;
            onProgress({ progress, message: `generation ${generationId} ${row.status}` });
          }
        }
      } catch (err) {
        if (signal.aborted) {
          const row = await findGenerationById(deps.db, generationId);
          if (row) await cancelGeneration(deps, row.userId, generationId).catch(() => {});
        }
        throw err;
      }
    },
  };
}
