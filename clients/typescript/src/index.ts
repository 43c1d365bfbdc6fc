/**
 * Typed client of the Cutroom API: every operation of the OpenAPI document through
 * openapi-fetch (`client.GET("/api/v1/projects")`, …), plus helpers for multipart uploads,
 * waiting for renders and resumable assistant streams.
 */
import createClient, { type Client } from "openapi-fetch";
import { type AssistantRunInput, type AssistantRunOptions, runAssistant } from "./assistant.js";
import { type RenderAndWaitOptions, renderAndWait } from "./renders.js";
import type { paths } from "./schema.js";
import type { AssistantEvent, CompositionInput, Render, RenderOutputOptions, Upload } from "./types.js";
import { type UploadFilesInput, uploadFiles } from "./uploads.js";

export type { AssistantRunInput, AssistantRunOptions } from "./assistant.js";
export { CutroomError, RenderFailedError } from "./errors.js";
export { type RenderAndWaitOptions, retryAfterMs } from "./renders.js";
export type { paths } from "./schema.js";
export type * from "./types.js";
export type { UploadFilesInput, UploadSource } from "./uploads.js";

/** Options of {@link createCutroomClient}. */
export interface CutroomClientOptions {
  /** The server's origin, e.g. `http://127.0.0.1:3000` (no trailing `/api`). */
  baseUrl: string;
  /** An API key `crk_…` (console or `cutroom keys create`). */
  apiKey: string;
  /** A fetch implementation (default: the global one). */
  fetch?: typeof globalThis.fetch;
  /** Extra headers sent with every request. */
  headers?: Record<string, string>;
}

/** The client: the typed openapi-fetch methods plus the helpers. */
export type CutroomClient = Client<paths> & {
  /** Uploads files from paths, Blobs or streams in one multipart request. */
  uploadFiles(input: UploadFilesInput): Promise<Upload[]>;
  /** Renders a composition (id, or a new one) and waits for the output, honouring `Retry-After`. */
  renderAndWait(
    composition: string | CompositionInput,
    output?: RenderOutputOptions,
    opts?: RenderAndWaitOptions,
  ): Promise<Render>;
  assistant: {
    /** Runs the assistant and iterates its events, resuming a dropped stream. */
    run(
      input: AssistantRunInput,
      opts?: AssistantRunOptions,
    ): AsyncGenerator<AssistantEvent, void, undefined>;
  };
};

/**
 * Creates a client that sends `Authorization: Bearer <apiKey>` to `baseUrl`. Methods return
 * openapi-fetch's `{ data, error, response }`; the helpers throw {@link CutroomError}.
 */
export function createCutroomClient(opts: CutroomClientOptions): CutroomClient {
  const api = createClient<paths>({
    baseUrl: opts.baseUrl.replace(/\/+$/, ""),
    headers: { ...opts.headers, authorization: `Bearer ${opts.apiKey}` },
    ...(opts.fetch ? { fetch: opts.fetch } : {}),
  });
  return Object.assign(api, {
    uploadFiles: (input: UploadFilesInput) => uploadFiles(api, input),
    renderAndWait: (
      composition: string | CompositionInput,
      output?: RenderOutputOptions,
      o?: RenderAndWaitOptions,
    ) => renderAndWait(api, composition, output, o),
    assistant: {
      run: (input: AssistantRunInput, o?: AssistantRunOptions) => runAssistant(api, input, o),
    },
  });
}
