import { getCsrfToken, type Upload } from "./client";

/** What an upload reports while it runs. */
export interface UploadProgress {
  /** Bytes sent so far and in total. */
  loaded: number;
  total: number;
}

/** A failed upload, with the server's message (e.g. for 413 and 415) when it sent one. */
export class UploadError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

const STATUS_HELP: Record<number, string> = {
  401: "Not signed in, or the link expired.",
  403: "Not allowed.",
  413: "The file is too large (512 MB at most).",
  415: "This file type is not supported (video, audio, images, subtitles or fonts only).",
  429: "The daily quota is used up.",
};

/**
 * Sends one file to `POST /api/v1/uploads` (the documented upload route) with XMLHttpRequest,
 * which reports upload progress. `bearer` is a phone capture token; without it the session
 * cookie and CSRF token authenticate.
 *
 * @returns the created upload; rejects with {@link UploadError} (status 0 for a network failure).
 */
export function uploadFile(
  file: File,
  opts: {
    projectId?: string;
    bearer?: string;
    onProgress?: (p: UploadProgress) => void;
    signal?: AbortSignal;
  },
): Promise<Upload> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open("POST", "/api/v1/uploads");
    xhr.responseType = "json";
    if (opts.bearer) xhr.setRequestHeader("Authorization", `Bearer ${opts.bearer}`);
    else {
      const token = getCsrfToken();
      if (token) xhr.setRequestHeader("X-CSRF-Token", token);
    }
    xhr.upload.onprogress = (e) =>
      opts.onProgress?.({ loaded: e.loaded, total: e.lengthComputable ? e.total : file.size });
    xhr.onload = () => {
      const body = xhr.response as { data?: Upload[]; error?: { message?: string } } | null;
      const first = body?.data?.[0];
      if (xhr.status === 201 && first) resolve(first);
      else {
        const msg = body?.error?.message ?? STATUS_HELP[xhr.status] ?? `Upload failed (HTTP ${xhr.status}).`;
        reject(new UploadError(xhr.status, msg));
      }
    };
    xhr.onerror = () => reject(new UploadError(0, "The connection failed. Check the network and retry."));
    xhr.onabort = () => reject(new UploadError(0, "Upload cancelled."));
    opts.signal?.addEventListener("abort", () => xhr.abort());
    const form = new FormData();
    if (opts.projectId) form.append("projectId", opts.projectId);
    form.append("file", file, file.name);
    xhr.send(form);
  });
}
