import type { Upload } from "../api/client";
import { formatDuration } from "../format";
import { isActive, useLatestTranscription } from "../transcription";

/**
 * The latest transcription of an audio or video upload: its quality marker (the offline engine
 * is draft quality), its segments with times, and a button that starts one. Polls while it runs.
 */
export function TranscriptPanel(props: { upload: Upload }) {
  const uploadId = props.upload.id;
  const { transcription: t, error, starting, start } = useLatestTranscription(uploadId);
  const busy = starting || isActive(t);
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
            {isActive(t) && t.progress !== null ? ` ${Math.round(t.progress * 100)} %` : ""} ·{" "}
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
