import { useCallback, useEffect, useState } from "react";
import type { ResponseBody } from "../../../clients/typescript/src/types.ts";
import { api, errorMessage, type Upload } from "../api/client";
import { formatDuration } from "../format";

type Transcription = ResponseBody<"/api/v1/transcriptions/{id}", "get", 200>;

const POLL_MS = 2000;
const ACTIVE = ["queued", "running"];

/**
 * The latest transcription of an audio or video upload: its quality marker (the offline engine
 * is draft quality), its segments with times, and a button that starts one. Polls while it runs.
 */
export function TranscriptPanel(props: { upload: Upload }) {
  const [t, setT] = useState<Transcription | null | undefined>(undefined);
  const [error, setError] = useState<string | null>(null);
  const [starting, setStarting] = useState(false);
  const uploadId = props.upload.id;

  const load = useCallback(async () => {
    const { data, error: e } = await api.GET("/api/v1/transcriptions", {
      params: { query: { uploadId, limit: 1 } },
    });
    if (e) setError(errorMessage(e));
    else setT(data.data[0] ?? null);
  }, [uploadId]);

  useEffect(() => {
    void load();
  }, [load]);

  useEffect(() => {
    if (!t || !ACTIVE.includes(t.status)) return;
    const timer = setTimeout(() => void load(), POLL_MS);
    return () => clearTimeout(timer);
  }, [t, load]);

  async function start() {
    setStarting(true);
    setError(null);
    const { data, error: e } = await api.POST("/api/v1/transcriptions", { body: { uploadId } });
    setStarting(false);
    if (e) setError(errorMessage(e));
    else setT(data);
  }

  const busy = starting || (t !== null && t !== undefined && ACTIVE.includes(t.status));
  return (
    <section aria-labelledby={`transcript-${uploadId}`}>
      <h3 id={`transcript-${uploadId}`}>Transcript</h3>
      {error && (
        <p role="alert" className="status error">
          {error}
        </p>
      )}
      {t === undefined ? (
        <p>Loading…</p>
      ) : t === null ? (
        <p>Not transcribed yet.</p>
      ) : (
        <>
          <p>
            <strong>{t.status}</strong>
            {ACTIVE.includes(t.status) && t.progress !== null ? ` ${Math.round(t.progress * 100)} %` : ""} ·{" "}
            {t.engine.model} ·{" "}
            {t.quality === "draft" ? (
              <span title="The offline engine gets about a third of the words wrong: fine for chapters and search; configure a transcription engine (TRANSCRIPTION_ENGINE) for captions you publish">
                draft quality (offline)
              </span>
            ) : (
              "standard quality"
            )}
          </p>
          {t.error && <p className="status error">{t.error.message}</p>}
          {t.segments.length > 0 && (
            <ol className="plain transcript">
              {t.segments.map((s) => (
                <li key={`${s.start}-${s.end}`}>
                  <time>{formatDuration(s.start)}</time> {s.text}
                </li>
              ))}
            </ol>
          )}
        </>
      )}
      <button type="button" disabled={busy} onClick={() => void start()}>
        {busy ? "Transcribing…" : t ? "Transcribe again" : "Transcribe"}
      </button>
    </section>
  );
}
