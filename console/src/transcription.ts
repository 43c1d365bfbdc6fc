import { useCallback, useEffect, useState } from "react";
import type { ResponseBody } from "../../clients/typescript/src/types.ts";
import { api, errorMessage } from "./api/client";

/** A transcription as the API returns it. */
export type Transcription = ResponseBody<"/api/v1/transcriptions/{id}", "get", 200>;

const POLL_MS = 2000;
/** Statuses of a transcription still under way. */
const ACTIVE = ["queued", "running"];

/** Whether a transcription is queued or running. */
export function isActive(t: Transcription | null | undefined): boolean {
  return !!t && ACTIVE.includes(t.status);
}

/**
 * The latest transcription of upload `uploadId` (undefined while it is read, null when there is
 * none), polled while it runs, and `start`, which asks for a new one.
 */
export function useLatestTranscription(uploadId: string | null) {
  const [t, setT] = useState<Transcription | null | undefined>(undefined);
  const [error, setError] = useState<string | null>(null);
  const [starting, setStarting] = useState(false);

  const load = useCallback(async () => {
    if (!uploadId) return setT(null);
    const { data, error: e } = await api.GET("/api/v1/transcriptions", {
      params: { query: { uploadId, limit: 1 } },
    });
    if (e) setError(errorMessage(e));
    else setT(data.data[0] ?? null);
  }, [uploadId]);

  useEffect(() => {
    setT(undefined);
    void load();
  }, [load]);

  useEffect(() => {
    if (!isActive(t)) return;
    const timer = setTimeout(() => void load(), POLL_MS);
    return () => clearTimeout(timer);
  }, [t, load]);

  const start = useCallback(async () => {
    if (!uploadId) return;
    setStarting(true);
    setError(null);
    const { data, error: e } = await api.POST("/api/v1/transcriptions", { body: { uploadId } });
    setStarting(false);
    if (e) setError(errorMessage(e));
    else setT(data);
  }, [uploadId]);

  return { transcription: t, error, starting, start };
}
