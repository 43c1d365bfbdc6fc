import { useState } from "react";
import { api, type Composition, errorMessage } from "../api/client";
import type { CompositionVersion } from "../api/compositions";
import { describeSummary, relativeTime, timecode } from "../history";

const AUTHORS: Record<CompositionVersion["author"]["kind"], string> = {
  api: "API",
  console: "studio",
  assistant: "assistant",
  mcp: "MCP",
  import: "import",
  revert: "revert",
  autoedit: "auto-edit",
};

/** A version's document in a few lines: each track's clips with their times. */
function VersionPreview(props: {
  doc: Composition;
  label: (clip: Composition["tracks"][number]["clips"][number]) => string;
}) {
  const { doc } = props;
  return (
    <div className="version-preview">
      <p>
        <strong>Version {doc.version}</strong>: “{doc.name}”, {doc.canvas.width}×{doc.canvas.height},{" "}
        {doc.tracks.reduce((n, t) => n + t.clips.length, 0)} clip(s), {(doc.markers ?? []).length} marker(s)
      </p>
      <ul className="plain">
        {doc.tracks.map((t, i) => (
          <li key={t.id}>
            Track {i + 1} ({t.kind}):{" "}
            {t.clips.length === 0
              ? "empty"
              : t.clips
                  .map((c) => `${props.label(c)} ${timecode(c.start)}–${timecode(c.start + c.duration)}`)
                  .join(" · ")}
          </li>
        ))}
      </ul>
    </div>
  );
}

/**
 * The composition's versions, newest first: each one's summary in words, who wrote it (the
 * studio, the assistant, the API…) and how long ago, with Preview (the document as it was) and
 * Revert (a new version equal to it).
 */
export function HistoryPanel(props: {
  composition: Composition;
  /** The newest versions, and whether they reach the oldest stored one. */
  versions: { versions: readonly CompositionVersion[]; complete: boolean } | null;
  names: ReadonlyMap<string, string>;
  label: (clip: Composition["tracks"][number]["clips"][number]) => string;
  busy: boolean;
  onRevert: (version: number) => void;
}) {
  const { composition, versions, names } = props;
  const [preview, setPreview] = useState<Composition | null>(null);
  const [error, setError] = useState<string | null>(null);
  const now = new Date();

  async function show(version: number) {
    setError(null);
    const { data, error } = await api.GET("/api/compositions/{id}/versions/{version}", {
      params: { path: { id: composition.id, version } },
    });
    if (data) setPreview(data);
    else setError(errorMessage(error));
  }

  return (
    <section className="card history" aria-labelledby="history-h">
      <details>
        <summary>
          <h2 id="history-h">History</h2>{" "}
          <small>
            {versions ? `${versions.versions.length}${versions.complete ? "" : "+"} version(s)` : "loading…"}
          </small>
        </summary>
        <ol className="plain" aria-label="Versions">
          {(versions?.versions ?? []).map((v) => {
            const text = describeSummary(v.summary, names);
            const current = v.version === composition.version;
            return (
              <li key={v.version} aria-label={`Version ${v.version}: ${text}`}>
                <span>
                  <strong>v{v.version}</strong> {text}{" "}
                  <small>
                    · {AUTHORS[v.author.kind]} ·{" "}
                    <time dateTime={v.createdAt}>{relativeTime(v.createdAt, now)}</time>
                    {current ? " · current" : ""}
                  </small>
                </span>
                <button
                  type="button"
                  className="secondary"
                  onClick={() => void show(v.version)}
                  aria-label={`Preview version ${v.version}`}
                >
                  Preview
                </button>
                <button
                  type="button"
                  className="secondary"
                  disabled={current || props.busy}
                  onClick={() => {
                    setPreview(null);
                    props.onRevert(v.version);
                  }}
                  aria-label={`Revert to version ${v.version}`}
                >
                  Revert
                </button>
              </li>
            );
          })}
        </ol>
        {preview ? <VersionPreview doc={preview} label={props.label} /> : null}
        <p role="alert" className="error">
          {error ?? ""}
        </p>
      </details>
    </section>
  );
}
