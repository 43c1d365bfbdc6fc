import type { GenerationErrorCode } from "../errors.ts";

/** What a provider is asked to make: an image from a prompt, or a video from a still. */
export type ProviderRequest =
  | {
      kind: "image";
      /** Vendor model id. */
      model: string;
      prompt: string;
      /** A fal preset name or an exact size in pixels. */
      imageSize: string | { width: number; height: number };
      numImages: number;
      seed?: number;
    }
  | {
      kind: "video";
      model: string;
      prompt: string;
      /** The still, a local file. */
      imagePath: string;
      /** `"4s" | "6s" | "8s"`. */
      duration: string;
      /** `"720p" | "1080p"`. */
      resolution: string;
      /** `"auto" | "16:9" | "9:16" | "1:1"`. */
      aspectRatio: string;
      generateAudio: boolean;
    };

/** A request at a provider: the model it runs on and the provider's request id. */
export interface VendorRef {
  model: string;
  requestId: string;
}

/** Where a vendor request stands. `progress` is 0..1 when the provider knows it. */
export interface ProviderStatus {
  state: "queued" | "running" | "completed";
  progress?: number;
}

/** One output file of a finished request, downloaded to a local path. */
export interface ProviderOutput {
  path: string;
}

/** Options of the calls that may take long. */
export interface CallOptions {
  signal: AbortSignal;
}

/**
 * A generation vendor behind the queue protocol fal.ai uses: submit once, poll the status,
 * fetch the result, cancel. Errors are {@link GenerationError}s with a wire code.
 */
export interface GenerationProvider {
  readonly name: "fal" | "offline";
  /** Submits the request; resolves with the vendor's request id (persist it before waiting). */
  submit(request: ProviderRequest, opts: CallOptions): Promise<string>;
  /** The request's state; throws a {@link GenerationError} when the vendor says it failed. */
  status(ref: VendorRef, opts: CallOptions): Promise<ProviderStatus>;
  /**
   * Downloads the outputs of a completed request into `dir` (a fresh directory of the caller).
   * `onProgress` gets 0..1 when the provider makes the files at this step (offline).
   */
  result(
    ref: VendorRef,
    opts: CallOptions & { dir: string; onProgress?: (ratio: number) => void },
  ): Promise<ProviderOutput[]>;
  /** Cancels the request at the vendor (best effort; resolves when the vendor has answered). */
  cancel(ref: VendorRef): Promise<void>;
  /** Frees what the provider keeps for a request once it has ended: outputs stored, or failed for good (optional). */
  release?(ref: VendorRef): Promise<void>;
}

/** The providers by name, as the pipeline and the cancel path look them up. */
export type ProviderSet = Partial<Record<"fal" | "offline", GenerationProvider>>;

export type { GenerationErrorCode };
