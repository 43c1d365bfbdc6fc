import { InvalidToolInputError, type ModelMessage, NoSuchToolError, TypeValidationError } from "ai";
import type { Db } from "../../db/client.ts";
import { AppError } from "../../errors.ts";
import type { AnalysisParams } from "../../media/analysis/analyze.ts";
import type { MediaAnalysis } from "../../media/analysis/types.ts";
import type { Enqueue } from "../../queue/enqueue.ts";
import type { FlowQueue } from "../../queue/flow.ts";
import type { BlobStore } from "../../storage/blob-store.ts";
import type { RenderLimits } from "../composition/limits.ts";
import type { Composition } from "../composition/schema.ts";
import type { ReframeAspect, ReframeShot } from "../reframe/reframe-composition.ts";
import type { TranscriptResult } from "../transcription/types.ts";
import type { WebhookEvents } from "../webhooks/events.ts";

/** Progress of a long tool (generation, render): `progress` is a 0..1 ratio. */
export interface ToolProgress {
  progress?: number;
  message?: string;
}

/**
 * Image and video generation as the assistant uses it. The server wires an implementation
 * when generation is available; without one, `generate_image` and `animate_image` fail with a
 * clear tool error.
 */
export interface GenerationService {
  /** Whether a generation of `kind` for the caller would run at a paid vendor (not offline). */
  paid(input: { userId: string; kind: "image" | "video" }): Promise<boolean>;
  /**
   * Starts a generation for the caller.
   * @param input.kind - `image` (text to image) or `video` (image to video).
   * @param input.imageUploadId - the still to animate (`video` only).
   * @returns the generation's id (`gen_…`).
   */
  start(input: {
    userId: string;
    projectId: string | null;
    kind: "image" | "video";
    prompt: string;
    imageUploadId?: string;
    idempotencyKey: string;
  }): Promise<{ generationId: string }>;
  /**
   * Waits for a generation to finish, reporting progress on the way.
   * @returns the upload ids of the results (images or videos the caller owns).
   * @throws AppError when the generation failed or was cancelled.
   */
  wait(
    input: { userId: string; generationId: string },
    onProgress: (p: ToolProgress) => void,
    signal: AbortSignal,
  ): Promise<{ uploadIds: string[] }>;
}

/**
 * Speech to text as the assistant uses it: the latest succeeded transcription of an upload, or
 * a new one (the server's TRANSCRIPTION_ENGINE) waited for.
 */
export interface TranscriptionService {
  /**
   * The transcript of `uploadId`: reused when one succeeded before, else transcribed now.
   * @throws AppError for an upload without audio (400) or unknown (404); ToolError when the
   *   transcription failed or was cancelled.
   */
  transcribe(
    input: { userId: string; uploadId: string; projectId: string | null },
    onProgress: (p: ToolProgress) => void,
    signal: AbortSignal,
  ): Promise<{ transcriptionId: string; quality: "draft" | "standard"; result: TranscriptResult }>;
}

/**
 * Scene, silence, loudness and peak analysis of uploads as the assistant uses it (the analysis
 * of `GET /api/v1/uploads/{id}/analysis`, cached per set of parameters).
 */
export interface MediaAnalysisService {
  /**
   * The analysis of an audio or video upload of the caller; `params` not given take the
   * route's defaults (scene threshold 0.3, silences below −35 dBFS for at least 0.5 s).
   * @throws AppError 404 for an unknown upload, 400 for one that is not audio or video.
   */
  analyse(input: {
    userId: string;
    uploadId: string;
    params?: Partial<AnalysisParams>;
  }): Promise<MediaAnalysis>;
}

/**
 * Reframing as the assistant uses it: the reframe step ({@link reframeComposition} of
 * `domain/reframe`) with the process's face detector, on a composition the tool then writes.
 */
export interface ReframeService {
  /**
   * The composition reframed for `aspectRatio` (not stored).
   * @throws AppError 400 naming `/clipIds/<i>` for a clip that cannot be reframed.
   */
  reframe(input: {
    userId: string;
    composition: Composition;
    aspectRatio: ReframeAspect;
    clipIds?: string[] | undefined;
    signal: AbortSignal;
  }): Promise<{ composition: Composition; summary: string; shots: ReframeShot[]; reasons: string[] }>;
}

/** Everything a tool may touch during one run. */
export interface ToolContext {
  db: Db;
  store: BlobStore;
  /** Sends jobs (render start). */
  enqueue: Enqueue;
  /** Records `render.cancelled` when a cancelled run cancels the queued render it started. */
  events?: Pick<WebhookEvents, "renderEnded"> | undefined;
  /** Cancels a split render's queued part and join jobs when the run cancels the render. */
  flows?: Pick<FlowQueue, "cancel"> | undefined;
  userId: string;
  sessionId: string;
  runId: string;
  compositionId: string;
  /** The session's project; uploads are looked up in it (all the caller's uploads when null). */
  projectId: string | null;
  now(): Date;
  /** Aborted when the run is cancelled. */
  signal: AbortSignal;
  /** Appends an event to the run's stream (resolves once stored). */
  emit(type: string, data: Record<string, unknown>): Promise<void>;
  generation: GenerationService | undefined;
  transcription: TranscriptionService | undefined;
  analysis: MediaAnalysisService | undefined;
  reframe?: ReframeService | undefined;
  /** How long `start_render` follows the render's progress before returning, milliseconds. */
  renderFollowMs: number;
  /** How often `start_render` polls the render, milliseconds. */
  renderPollMs: number;
  /** Render cost limits and per-account allowances of `start_render`. */
  renderLimits: RenderLimits;
  /** Paid vendor generations this run started, and the most it may (mutable, per run). */
  paidGenerations: { started: number; max: number };
  /**
   * Tool runs still in progress. A cancelled run waits for them (bounded) before its terminal
   * event, so what a tool does on the way out (cancelling the render it follows) is in the
   * run's events, not lost after them.
   */
  inFlight?: Set<Promise<unknown>>;
}

/**
 * A failure the model should see as the tool's result (`tool_result` with `ok: false`) and can
 * act on; the loop continues.
 */
export class ToolError extends Error {
  readonly code: string;
  constructor(code: string, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "ToolError";
    this.code = code;
  }

  /** What the model reads (the AI SDK sends a failed tool's `toString()`): the message alone. */
  override toString(): string {
    return this.message;
  }
}

/**
 * The {@link ToolError} a tool's failure is shown to the model as: itself, or one with the
 * code and message of {@link toolErrorOf}, so no class name reaches the model or its reply.
 */
export function asToolError(err: unknown): ToolError {
  if (err instanceof ToolError) return err;
  const { code, message } = toolErrorOf(err);
  return new ToolError(code, message, { cause: err });
}

/**
 * The model's messages with each failed tool result (`error-text`) readable: the AI SDK's own
 * failures before a tool runs (invalid input, unknown tool) arrive as `AI_…Error: …` text; they
 * become what {@link toolErrorOf} makes of them.
 */
export function withReadableToolErrors(messages: ModelMessage[]): ModelMessage[] {
  return messages.map((m) =>
    m.role !== "tool"
      ? m
      : {
          ...m,
          content: m.content.map((part) =>
            part.type === "tool-result" && part.output.type === "error-text"
              ? { ...part, output: { ...part.output, value: toolErrorOf(part.output.value).message } }
              : part,
          ),
        },
  );
}

/**
 * The `{ code, message }` of a tool failure: a {@link ToolError}, an API error (its code and
 * message plus the first JSON Pointer details), an input validation failure from the AI SDK
 * (`invalid_input`), or anything else (`tool_failed`).
 */
export function toolErrorOf(err: unknown): { code: string; message: string } {
  if (err instanceof ToolError) return { code: err.code, message: err.message };
  if (err instanceof AppError) {
    const details = (err.details ?? [])
      .slice(0, 5)
      .map((d) => `${d.path}: ${d.message}`)
      .join("; ");
    return { code: err.code, message: details ? `${err.message} (${details})` : err.message };
  }
  const text = typeof err === "string" ? err : ((err as Error)?.message ?? String(err));
  if (
    InvalidToolInputError.isInstance(err) ||
    TypeValidationError.isInstance(err) ||
    /AI_(InvalidToolInput|TypeValidation)Error/.test(text)
  ) {
    return { code: "invalid_input", message: readableValidation(text) };
  }
  if (NoSuchToolError.isInstance(err) || /AI_NoSuchToolError/.test(text))
    return { code: "unknown_tool", message: text.replace(/^AI_NoSuchToolError: /, "") };
  return { code: "tool_failed", message: text };
}

/** "Invalid input for add_text: start: Too small: expected number to be >=0" from the SDK's message. */
function readableValidation(text: string): string {
  const tool = /Invalid input for tool (\S+?):/.exec(text)?.[1];
  const at = text.indexOf("Error message: ");
  try {
    const issues = JSON.parse(text.slice(at + "Error message: ".length)) as {
      path: unknown[];
      message: string;
    }[];
    if (at >= 0 && Array.isArray(issues)) {
      return `Invalid input${tool ? ` for ${tool}` : ""}: ${issues
        .map((i) => `${i.path.length > 0 ? `${i.path.join(".")}: ` : ""}${i.message}`)
        .join("; ")}`;
    }
  } catch {
    // not the SDK's format: keep the text as it is
  }
  return text;
}
