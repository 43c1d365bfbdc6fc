import type { Clock } from "../../clock.ts";
import type { GenerationConfig } from "../../config.ts";
import type { Db } from "../../db/client.ts";
import {
  cancelGenerationRow,
  countUnfinishedGenerations,
  type GenerationRow,
  insertGeneration,
} from "../../db/repositories/generations.ts";
import { findProject } from "../../db/repositories/projects.ts";
import { findUser } from "../../db/repositories/users.ts";
import { insertWebhookCallback } from "../../db/repositories/webhooks.ts";
import type { GenerationWarning } from "../../db/schema/generations.ts";
import { invalidRequest, notFound } from "../../errors.ts";
import { newId } from "../../ids.ts";
import { JOBS } from "../../queue/catalog.ts";
import { type Enqueue, insertWithJob } from "../../queue/enqueue.ts";
import { holdAccountAllowance } from "../quota/account-allowance.ts";
import { type ImageSource, parseImageSource } from "./image-source.ts";
import { type ModelInfo, modelFor } from "./models.ts";
import type { ProviderSet } from "./providers/types.ts";
import { announceSettled } from "./settled.ts";
import type { ImageSize } from "./sizes.ts";

/** What creating a generation needs. */
export interface CreateGenerationDeps {
  db: Db;
  clock: Clock;
  generation: GenerationConfig;
  /** Sends the generation's job, inside the insert's transaction. */
  enqueue: Enqueue;
}

/** The caller: owner id and image-model preference. */
export interface GenerationCaller {
  userId: string;
  imageModel: string | null;
}

/** `POST /generate/image` input. */
export interface ImageGenerationInput {
  prompt: string;
  imageSize?: ImageSize;
  numImages?: number;
  seed?: number;
  projectId?: string;
  /** Where the generation's end event is also sent (already checked by the caller). */
  callbackUrl?: string;
}

/** `POST /generate/video` input. */
export interface VideoGenerationInput {
  prompt: string;
  imageUrl: string;
  resolution?: "720p" | "1080p";
  duration?: "4s" | "6s" | "8s";
  aspectRatio?: "auto" | "16:9" | "9:16" | "1:1";
  generateAudio?: boolean;
  projectId?: string;
  /** Where the generation's end event is also sent (already checked by the caller). */
  callbackUrl?: string;
}

/**
 * Creates a queued image generation on the caller's effective image model (the offline
 * placeholder when no fal key is configured) and queues it.
 * @throws AppError 404 for an unknown `projectId`; 503 when the job cannot be queued (no row is kept).
 */
export async function createImageGeneration(
  deps: CreateGenerationDeps,
  caller: GenerationCaller,
  input: ImageGenerationInput,
): Promise<GenerationRow> {
  const model = modelFor(deps.generation, "image", caller.imageModel);
  const params = {
    imageSize: input.imageSize ?? "landscape_4_3",
    numImages: input.numImages ?? 1,
    ...(input.seed !== undefined ? { seed: input.seed } : {}),
  };
  return insertAndQueue(deps, caller, {
    kind: "image",
    prompt: input.prompt,
    projectId: input.projectId,
    model,
    params,
    source: null,
    warnings: [],
    callbackUrl: input.callbackUrl,
  });
}

/**
 * Creates a queued still-to-video generation. Checks the options against what the model can do
 * and resolves `imageUrl` (upload id, API URL, or public https URL checked for SSRF).
 * @throws AppError 400 naming the field the model cannot do (e.g. `/aspectRatio` 1:1 on Veo) or a
 *   refused `/imageUrl`; 404 for an unknown `projectId`; 503 when the job cannot be queued.
 */
export async function createVideoGeneration(
  deps: CreateGenerationDeps,
  caller: GenerationCaller,
  input: VideoGenerationInput,
): Promise<GenerationRow> {
  const model = modelFor(deps.generation, "video", caller.imageModel);
  const params = {
    imageUrl: input.imageUrl,
    resolution: input.resolution ?? "720p",
    duration: input.duration ?? "8s",
    aspectRatio: input.aspectRatio ?? "auto",
    generateAudio: input.generateAudio ?? false,
  };
  checkCapabilities(model, params);
  const source = await parseImageSource({ db: deps.db }, caller.userId, input.imageUrl);
  const warnings: GenerationWarning[] = [];
  if (params.generateAudio && model.provider === "offline") {
    warnings.push({
      code: "audio_unavailable_offline",
      message:
        "The offline provider does not invent sound: the video is silent. Set FAL_KEY for generated audio.",
    });
  }
  return insertAndQueue(deps, caller, {
    kind: "video",
    prompt: input.prompt,
    projectId: input.projectId,
    model,
    params,
    source,
    warnings,
    callbackUrl: input.callbackUrl,
  });
}

/** 400 naming the first option the video model cannot do. */
function checkCapabilities(
  model: ModelInfo,
  p: { resolution: string; duration: string; aspectRatio: string; generateAudio: boolean },
): void {
  const caps = model.video;
  if (!caps) return;
  const checks: [string, string, readonly string[] | undefined][] = [
    ["aspectRatio", p.aspectRatio, caps.aspectRatios],
    ["duration", p.duration, caps.durations],
    ["resolution", p.resolution, caps.resolutions],
  ];
  for (const [field, value, allowed] of checks) {
    if (allowed && !allowed.includes(value)) {
      const message = `${model.id} cannot make ${field} ${value}; it supports ${allowed.join(", ")}`;
      throw invalidRequest(message, [
        { path: `/${field}`, message: `must be one of ${allowed.join(", ")} for ${model.id}` },
      ]);
    }
  }
  if (p.generateAudio && caps.audio === false) {
    throw invalidRequest(`${model.id} cannot generate audio`, [
      { path: "/generateAudio", message: `must be false for ${model.id}` },
    ]);
  }
}

/**
 * Holds the account's generation allowance for the rest of the transaction
 * ({@link holdAccountAllowance}, the mechanism renders use): at most `maxActivePerAccount`
 * generations queued or running, and per UTC day at most the plan's generations
 * (`gen:<userId>`) and, of those, paid vendor generations (`gen-paid:<userId>`); admin
 * accounts have no daily limits. Assistant runs start generations through here too, so theirs
 * count against the same allowance.
 *
 * @returns how many of the account's generations are unfinished (before this one).
 * @throws AppError 429 `rate_limited` with `Retry-After` when a limit is reached.
 */
async function holdGenerationAllowance(
  tx: Db,
  deps: CreateGenerationDeps,
  userId: string,
  offline: boolean,
): Promise<number> {
  const { limits } = deps.generation;
  const user = await findUser(tx, userId);
  const plan = user?.plan ?? "standard";
  const daily =
    plan === "admin"
      ? []
      : [
          {
            subject: `gen:${userId}`,
            limit: limits.daily[plan],
            amount: 1,
            refusal: `This account started its ${limits.daily[plan]} generations of today (${plan} plan); the allowance resets at midnight UTC`,
            extra: { limit: limits.daily[plan] },
          },
          ...(offline
            ? []
            : [
                {
                  subject: `gen-paid:${userId}`,
                  limit: limits.dailyPaid[plan],
                  amount: 1,
                  refusal: `This account started its ${limits.dailyPaid[plan]} paid vendor generations of today (${plan} plan); the allowance resets at midnight UTC`,
                  extra: { limit: limits.dailyPaid[plan], paid: true },
                },
              ]),
        ];
  return holdAccountAllowance(tx, {
    kind: "generations",
    userId,
    now: deps.clock.now(),
    maxActive: limits.maxActivePerAccount,
    countActive: (db) => countUnfinishedGenerations(db, userId),
    daily,
  });
}

async function insertAndQueue(
  deps: CreateGenerationDeps,
  caller: GenerationCaller,
  g: {
    kind: "image" | "video";
    prompt: string;
    projectId: string | undefined;
    model: ModelInfo;
    params: Record<string, unknown>;
    source: ImageSource | null;
    warnings: GenerationWarning[];
    callbackUrl: string | undefined;
  },
): Promise<GenerationRow> {
  if (g.projectId && !(await findProject(deps.db, caller.userId, g.projectId)))
    throw notFound(`Project ${g.projectId}`);
  const values = {
    id: newId("gen", deps.clock.now().getTime()),
    userId: caller.userId,
    projectId: g.projectId ?? null,
    kind: g.kind,
    prompt: g.prompt,
    params: g.params,
    input: g.source,
    model: { id: g.model.id, provider: g.model.provider, offline: g.model.provider === "offline" },
    warnings: g.warnings,
    createdAt: deps.clock.now(),
  };
  // The row and its job commit together: no generation without a job, no job without a row.
  return insertWithJob(deps, { resource: "generation" }, async (tx, send) => {
    const ahead = await holdGenerationAllowance(tx, deps, caller.userId, values.model.offline);
    const row = await insertGeneration(tx, values);
    if (g.callbackUrl) {
      await insertWebhookCallback(tx, { resourceId: row.id, userId: caller.userId, url: g.callbackUrl });
    }
    // Fairness across accounts: the account's n-th unfinished generation queues at
    // priority -n, so another account's first generation runs before this one's second.
    await send({ job: JOBS.generation, data: { v: 1, generationId: row.id }, priority: -ahead });
    return row;
  });
}

/**
 * Cancels a queued or running generation of the caller, and the vendor's request when one was
 * submitted (best effort: a vendor that cannot be reached is logged, the generation is cancelled
 * all the same). Idempotent: a terminal generation is returned unchanged.
 * @throws AppError 404 when the caller has no such generation.
 */
export async function cancelGeneration(
  deps: { db: Db; clock: Clock; providers: ProviderSet; log: { warn(obj: object, msg: string): void } },
  userId: string,
  id: string,
): Promise<GenerationRow> {
  const result = await cancelGenerationRow(deps.db, userId, id, deps.clock.now());
  if (!result) throw notFound(`Generation ${id}`);
  const { row, changed } = result;
  if (changed) {
    await announceSettled(deps.db, row.id);
    const provider = deps.providers[row.model.provider];
    if (row.vendorRequestId && provider) {
      await provider
        .cancel({ model: row.model.id, requestId: row.vendorRequestId })
        .catch((err: unknown) =>
          deps.log.warn({ err, generationId: row.id }, "cancelling at the vendor failed"),
        );
    }
  }
  return row;
}
