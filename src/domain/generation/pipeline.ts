import { mkdir, rm } from "node:fs/promises";
import path from "node:path";
import type { Logger } from "pino";
import { type Clock, sleep } from "../../clock.ts";
import type { Db } from "../../db/client.ts";
import {
  GENERATION_TERMINAL,
  type GenerationRow,
  generationRows,
  setVendorRequestId,
} from "../../db/repositories/generations.ts";
import { rowWorkDirs } from "../../queue/row-job.ts";
import { makeAttemptWorkDir, type WorkDirOwner } from "../../queue/work-dir-sweep.ts";
import type { BlobStore } from "../../storage/blob-store.ts";
import type { WebhookEvents } from "../webhooks/events.ts";
import { GenerationError } from "./errors.ts";
import { localStill } from "./image-source.ts";
import type { ProviderRequest, ProviderSet, VendorRef } from "./providers/types.ts";
import type { DiscardOutputs, StoreOutputs } from "./store-outputs.ts";

/** What a runner gives one attempt of a generation. */
export interface GenerationPipelineContext {
  /** The attempt number the runner claimed (the fence of every write). */
  attempt: number;
  /** Aborted when the generation is cancelled or another attempt owns it. */
  signal: AbortSignal;
  /** Reports progress 0..1 (the runner persists it). */
  progress(ratio: number): void;
  log: Logger;
}

/** What the pipeline needs, injected by the composition root. */
export interface GenerationPipelineDeps {
  db: Db;
  store: BlobStore;
  clock: Clock;
  providers: ProviderSet;
  /**
   * Scratch root; each attempt works in `<workRoot>/<generation id>-a<attempt>-<random>/`, removed
   * after (a killed worker's directory is removed by the work-directory sweep).
   */
  workRoot: string;
  storeOutputs: StoreOutputs;
  discardOutputs: DiscardOutputs;
  /** Limits of fetching a still from a URL. */
  remote: { maxBytes: number; timeoutMs: number };
  /** Records `generation.succeeded`/`generation.failed` webhook events as generations end. */
  events?: WebhookEvents;
  /** Status polling: first delay, growth ×1.5 per poll, up to `maxMs` (default 250 ms → 5 s). */
  poll?: { firstMs: number; maxMs: number };
  /** Longest a generation may take from creation, ms (default 10 min image, 30 min video). */
  deadlineMs?: { image: number; video: number };
}

/** Thrown when the attempt lost its generation (cancelled or superseded) after doing work. */
export class AttemptLostError extends Error {
  constructor() {
    super("The generation was cancelled or taken over by another attempt");
    this.name = "AttemptLostError";
  }
}

/**
 * One attempt of a generation, from submission to stored outputs (the fenced-attempt runner
 * claims the row before, and writes `succeeded` with these outputs after — or discards them
 * when the generation was cancelled meanwhile):
 * 1. unless the row already has a vendor request id (an earlier attempt submitted), builds the
 *    provider request (a video's still made local) and submits it, then persists the vendor
 *    request id (fenced by `ctx.attempt`) before waiting on it — so a later attempt resumes
 *    polling that request and never submits (never pays) twice;
 * 2. polls the status with growing delays until completed or the deadline (then cancels at the
 *    vendor and fails with `vendor_timeout`);
 * 3. downloads the outputs and stores them as uploads of the owner through `storeOutputs` (all
 *    or nothing).
 *
 * @returns the output upload ids.
 * @throws GenerationError (`retryable` says whether another attempt may help);
 *   {@link AttemptLostError}, or the signal's reason when `ctx.signal` aborts.
 */
export async function runGenerationPipeline(
  deps: GenerationPipelineDeps,
  generation: GenerationRow,
  ctx: GenerationPipelineContext,
): Promise<{ outputs: string[] }> {
  const { signal, attempt } = ctx;
  const provider = deps.providers[generation.model.provider];
  if (!provider) {
    throw new GenerationError(
      "vendor_error",
      `The ${generation.model.provider} provider is not configured on this worker`,
    );
  }
  const workDir = await makeAttemptWorkDir({
    workRoot: deps.workRoot,
    resourceId: generation.id,
    attempt,
    owner: generationWorkDirs(deps.db),
    log: ctx.log,
  });
  try {
    let requestId = generation.vendorRequestId;
    if (!requestId) {
      const request = await providerRequest(deps, generation, workDir, signal);
      requestId = await provider.submit(request, { signal });
      const ref = { model: generation.model.id, requestId };
      if (!(await setVendorRequestId(deps.db, { id: generation.id, attempt, requestId }))) {
        // Cancelled while submitting: the vendor must not keep working (and billing) for nobody.
        await provider.cancel(ref).catch((err: unknown) => ctx.log.warn({ err }, "vendor cancel failed"));
        throw new AttemptLostError();
      }
      ctx.log.info({ requestId }, "generation submitted");
    } else {
      ctx.log.info({ requestId }, "generation resumed: polling the earlier vendor request");
    }
    const ref: VendorRef = { model: generation.model.id, requestId };
    try {
      ctx.progress(0.05);
      await waitCompleted(deps, generation, ref, ctx);

      const outDir = path.join(workDir, "out");
      await mkdir(outDir, { recursive: true });
      const files = await provider.result(ref, {
        signal,
        dir: outDir,
        onProgress: (r) => ctx.progress(0.1 + 0.8 * r),
      });
      signal.throwIfAborted();
      const outputs = await deps.storeOutputs(generation, files);
      await provider.release?.(ref).catch(() => {});
      return { outputs };
    } catch (err) {
      // A failure no retry can mend ends the generation: the request is not needed any more.
      if (err instanceof GenerationError && !err.retryable) await provider.release?.(ref).catch(() => {});
      throw err;
    }
  } finally {
    await rm(workDir, { recursive: true, force: true }).catch(() => {});
  }
}

/** The provider request of a generation row (params as the API normalised them). */
async function providerRequest(
  deps: GenerationPipelineDeps,
  g: GenerationRow,
  workDir: string,
  signal: AbortSignal,
): Promise<ProviderRequest> {
  const p = g.params as Record<string, unknown>;
  if (g.kind === "image") {
    return {
      kind: "image",
      model: g.model.id,
      prompt: g.prompt,
      imageSize: p.imageSize as string | { width: number; height: number },
      numImages: Number(p.numImages ?? 1),
      ...(typeof p.seed === "number" ? { seed: p.seed } : {}),
    };
  }
  const imagePath = await localStill(deps, g.userId, g.input ?? { url: String(p.imageUrl) }, workDir, signal);
  return {
    kind: "video",
    model: g.model.id,
    prompt: g.prompt,
    imagePath,
    duration: String(p.duration),
    resolution: String(p.resolution),
    aspectRatio: String(p.aspectRatio),
    generateAudio: Boolean(p.generateAudio),
  };
}

/** Polls until the vendor reports completion; cancels and fails at the deadline. */
async function waitCompleted(
  deps: GenerationPipelineDeps,
  g: GenerationRow,
  ref: VendorRef,
  ctx: GenerationPipelineContext,
): Promise<void> {
  const provider = deps.providers[g.model.provider];
  if (!provider) return;
  const limits = deps.deadlineMs ?? { image: 10 * 60_000, video: 30 * 60_000 };
  const deadline = g.createdAt.getTime() + limits[g.kind];
  let delay = deps.poll?.firstMs ?? 250;
  const maxDelay = deps.poll?.maxMs ?? 5000;
  for (;;) {
    const st = await provider.status(ref, { signal: ctx.signal });
    if (st.state === "completed") return;
    ctx.progress(st.state === "queued" ? 0.05 : Math.max(0.1, Math.min(0.9, st.progress ?? 0.1)));
    if (deps.clock.now().getTime() + delay > deadline) {
      await provider.cancel(ref).catch(() => {});
      throw new GenerationError(
        "vendor_timeout",
        `The vendor did not finish within ${Math.round(limits[g.kind] / 1000)} s`,
      );
    }
    await sleep(delay, ctx.signal);
    delay = Math.min(maxDelay, delay * 1.5);
  }
}

/** Generation attempts' work directories (`gen_…-a<attempt>-…`) for the work-directory sweep. */
export function generationWorkDirs(db: Db): WorkDirOwner {
  return rowWorkDirs("gen", (ids) => generationRows.readAttempts(db, ids), GENERATION_TERMINAL);
}
