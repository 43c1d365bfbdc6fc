import { useCallback, useEffect, useState } from "react";
import { api, errorMessage, type Render } from "../api/client";
import { formatBytes, formatDuration, formatTime } from "../format";
import { encodedReasons, renderSavings } from "../render-work";
import { Link } from "../router";
import { Status } from "./Layout";

const TERMINAL = new Set(["succeeded", "failed", "cancelled"]);

/** Seconds to wait before polling again, from the response's `Retry-After` (default 1). */
export function retryAfterSeconds(response: Response): number {
  const v = Number(response.headers.get("retry-after"));
  return Number.isFinite(v) && v > 0 ? v : 1;
}

/**
 * Follows one render until it ends: polls `GET /api/render/:id` at the interval its
 * `Retry-After` asks for and hands every new state to `onChange`.
 */
export function usePolledRender(render: Render, onChange: (r: Render) => void): void {
  const { id, status } = render;
  useEffect(() => {
    if (TERMINAL.has(status)) return;
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const poll = async (delay: number) => {
      timer = setTimeout(async () => {
        const { data, response } = await api.GET("/api/render/{jobId}", { params: { path: { jobId: id } } });
        if (stopped) return;
        if (data) onChange(data);
        if (data && !TERMINAL.has(data.status)) void poll(retryAfterSeconds(response) * 1000);
      }, delay);
    };
    void poll(1000);
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [id, status, onChange]);
}

/** Where a failed render's clip is in the editor (the composition's project is read first). */
function ClipLink(props: { render: Render }) {
  const { compositionId } = props.render;
  const clipId = props.render.error?.clipId;
  const [href, setHref] = useState<string | null>(null);
  useEffect(() => {
    if (!compositionId || !clipId) return;
    void api.GET("/api/compositions/{id}", { params: { path: { id: compositionId } } }).then(({ data }) => {
      if (data?.projectId)
        setHref(
          `/console/projects/${data.projectId}/compositions/${compositionId}?clip=${encodeURIComponent(clipId)}`,
        );
    });
  }, [compositionId, clipId]);
  if (!clipId) return null;
  return href ? <Link to={href}>Show the clip in the editor</Link> : null;
}

/** One render: status and progress, or the player and facts of its output, or its error. */
export function RenderItem(props: {
  render: Render;
  /** Project names by id (renders name their project). */
  projects?: ReadonlyMap<string, string>;
  onChange: (r: Render) => void;
}) {
  const r = props.render;
  const [error, setError] = useState<string | null>(null);
  usePolledRender(r, props.onChange);
  const project = r.projectId ? props.projects?.get(r.projectId) : undefined;
  const pct = Math.round(r.progress.ratio * 100);

  async function cancel() {
    const { data, error } = await api.DELETE("/api/render/{jobId}", { params: { path: { jobId: r.id } } });
    if (data) props.onChange(data);
    else setError(errorMessage(error));
  }

  return (
    <li className="card render" aria-label={`Render ${r.id}`}>
      <div className="hbox">
        <strong className="break">
          {r.compositionName ? `“${r.compositionName}”` : "Inline composition"}
        </strong>
        {project && <span>in {project}</span>}
        {r.compositionVersion !== null && <small>version {r.compositionVersion}</small>}
        <span className={`badge ${r.status}`}>{r.status}</span>
        <small>Started {formatTime(r.createdAt)}</small>
      </div>
      {!TERMINAL.has(r.status) && (
        <>
          <label className="progress">
            {r.progress.phase} · {pct}%
            {r.progress.etaSeconds != null && ` · about ${Math.ceil(r.progress.etaSeconds)} s left`}
            <progress max={100} value={pct} aria-label={`Progress of render ${r.id}`} />
          </label>
          {r.status !== "cancelling" && (
            <button type="button" className="danger" onClick={cancel} aria-label={`Cancel render ${r.id}`}>
              Cancel
            </button>
          )}
        </>
      )}
      {r.status === "succeeded" && r.output && (
        <div className="output">
          {r.output.width ? (
            // biome-ignore lint/a11y/useMediaCaption: renders carry no caption track
            <video
              src={r.output.url}
              controls
              preload="metadata"
              poster={r.output.posterUrl}
              aria-label={`Output of render ${r.id}`}
            />
          ) : (
            // biome-ignore lint/a11y/useMediaCaption: renders carry no caption track
            <audio src={r.output.url} controls preload="metadata" aria-label={`Output of render ${r.id}`} />
          )}
          <small>
            {r.output.format} · {r.output.width ? `${r.output.width}×${r.output.height} · ` : ""}
            {formatDuration(r.output.duration)} · {formatBytes(r.output.size)}
          </small>
          {renderSavings(r).map((line) => (
            <small key={line}>{line}</small>
          ))}
          {r.smartRender && r.smartRender.copiedFrames > 0 && r.smartRender.reasons.length > 0 && (
            <details>
              <summary>Why the other frames were encoded</summary>
              <ul>
                {encodedReasons(r).map((line) => (
                  <li key={line}>{line}</li>
                ))}
              </ul>
            </details>
          )}
          <a href={r.output.url} download>
            Download
          </a>
        </div>
      )}
      {r.status === "failed" && r.error && (
        <div className="error" role="note">
          <p>
            <code>{r.error.code}</code> {r.error.message}
          </p>
          <ClipLink render={r} />
        </div>
      )}
      <details className="ids">
        <summary>Details</summary>
        <dl>
          <dt>Render id</dt>
          <dd>{r.id}</dd>
          {r.compositionId && (
            <>
              <dt>Composition id</dt>
              <dd>{r.compositionId}</dd>
            </>
          )}
          {r.error?.clipId && (
            <>
              <dt>Clip id</dt>
              <dd>{r.error.clipId}</dd>
            </>
          )}
        </dl>
      </details>
      <Status message={error} kind="error" />
    </li>
  );
}

/**
 * Renders, newest first: of one composition, of one project's compositions, or all of the
 * account's. `refreshKey` changes reload the list (e.g. after starting a render).
 */
export function RenderList(props: { projectId?: string; compositionId?: string; refreshKey?: number }) {
  const [renders, setRenders] = useState<Render[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [projects, setProjects] = useState<ReadonlyMap<string, string>>(new Map());
  const { projectId, compositionId, refreshKey } = props;
  useEffect(() => {
    void api.GET("/api/v1/projects", { params: { query: { limit: 100 } } }).then(({ data }) => {
      if (data) setProjects(new Map(data.data.map((p) => [p.id, p.name])));
    });
  }, []);
  useEffect(() => {
    void refreshKey;
    api
      .GET("/api/render", {
        params: {
          query: {
            limit: 25,
            ...(projectId ? { projectId } : {}),
            ...(compositionId ? { compositionId } : {}),
          },
        },
      })
      .then(({ data, error }) => {
        if (data) setRenders(data.data);
        else setError(errorMessage(error));
      })
      .catch((e: unknown) => setError(errorMessage(e)));
  }, [projectId, compositionId, refreshKey]);
  const update = useCallback((next: Render) => {
    setRenders((list) => list?.map((r) => (r.id === next.id ? next : r)) ?? null);
  }, []);
  if (error) return <Status message={error} kind="error" />;
  if (renders === null) return <p>Loading…</p>;
  if (renders.length === 0) return <p>No renders yet.</p>;
  return (
    <ul className="plain renders">
      {renders.map((r) => (
        <RenderItem key={r.id} render={r} projects={projects} onChange={update} />
      ))}
    </ul>
  );
}
