import { useEffect, useRef, useState } from "react";
import { api, errorMessage, type Render } from "../api/client";
import { retryAfterSeconds } from "./RenderList";

/** Seconds "Play from here" renders. */
export const PLAY_SECONDS = 5;
/** Wait after the last playhead move before asking for a frame, milliseconds. */
const DEBOUNCE_MS = 120;

/**
 * The preview: the frame at the playhead, rendered by the server's renderer
 * (`GET /api/compositions/{id}/frame`), and "Play from here", a draft render of the next few
 * seconds played in a `<video>`.
 */
export function Preview(props: {
  compositionId: string;
  version: number;
  playhead: number;
  duration: number;
  /** Bumped by the space key: starts "Play from here". */
  playRequest: number;
  onPlaying: (render: Render | null) => void;
}) {
  const [frameUrl, setFrameUrl] = useState<string | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  const [clip, setClip] = useState<{ url: string; start: number } | null>(null);
  const [preparing, setPreparing] = useState<number | null>(null);
  const { compositionId, version, playhead, duration, onPlaying } = props;
  const lastUrl = useRef<string | null>(null);

  // biome-ignore lint/correctness/useExhaustiveDependencies: a new version is a new frame at the same time
  useEffect(() => {
    if (duration <= 0) {
      setFrameUrl(null);
      setMessage("The timeline is empty: add a clip to see a frame.");
      return;
    }
    const t = Math.min(Math.max(0, playhead), Math.max(0, duration - 0.001));
    let cancelled = false;
    const timer = setTimeout(async () => {
      const { data, error } = await api.GET("/api/compositions/{id}/frame", {
        params: { path: { id: compositionId }, query: { t: Math.round(t * 1000) / 1000, width: 640 } },
        parseAs: "blob",
      });
      if (cancelled) return;
      if (data) {
        const url = URL.createObjectURL(data as Blob);
        if (lastUrl.current) URL.revokeObjectURL(lastUrl.current);
        lastUrl.current = url;
        setFrameUrl(url);
        setMessage(null);
      } else setMessage(errorMessage(error, "The frame could not be rendered."));
    }, DEBOUNCE_MS);
    return () => {
      cancelled = true;
      clearTimeout(timer);
    };
  }, [compositionId, version, playhead, duration]);

  async function playFromHere() {
    const start = Math.min(playhead, Math.max(0, duration - 0.1));
    setClip(null);
    setPreparing(0);
    const { data, error } = await api.POST("/api/render", {
      body: {
        compositionId,
        output: {
          format: "mp4",
          quality: "draft",
          range: { start, duration: Math.min(PLAY_SECONDS, duration - start) },
        },
      },
    });
    if (!data) {
      setPreparing(null);
      setMessage(errorMessage(error));
      return;
    }
    let r: Render = data;
    onPlaying(r);
    while (!["succeeded", "failed", "cancelled"].includes(r.status)) {
      const { data: next, response } = await api.GET("/api/render/{jobId}", {
        params: { path: { jobId: r.id } },
      });
      if (!next) break;
      r = next;
      setPreparing(r.progress.ratio);
      if (r.status === "succeeded") break;
      await new Promise((resolve) => setTimeout(resolve, Math.min(500, retryAfterSeconds(response) * 1000)));
    }
    setPreparing(null);
    onPlaying(null);
    if (r.status === "succeeded" && r.output) setClip({ url: r.output.url, start });
    else setMessage(r.error ? `${r.error.code}: ${r.error.message}` : `The preview render ${r.status}.`);
  }

  // biome-ignore lint/correctness/useExhaustiveDependencies: only a new request starts playback
  useEffect(() => {
    if (props.playRequest > 0) void playFromHere();
  }, [props.playRequest]);

  return (
    <section className="preview card" aria-labelledby="preview-h">
      <h2 id="preview-h">Preview</h2>
      <div className="screen">
        {clip ? (
          // biome-ignore lint/a11y/useMediaCaption: a draft preview render has no caption track
          <video
            src={clip.url}
            autoPlay
            controls
            aria-label={`Preview from ${clip.start.toFixed(1)} s`}
            onEnded={() => setClip(null)}
          />
        ) : frameUrl ? (
          <img src={frameUrl} alt={`Frame at ${playhead.toFixed(2)} s`} />
        ) : (
          <div className="empty" />
        )}
      </div>
      <p className="hint">
        This is the real renderer: every frame here is drawn by the same ffmpeg plan as the final render.
      </p>
      <div className="hbox">
        <button type="button" onClick={playFromHere} disabled={preparing !== null || duration <= 0}>
          {preparing !== null
            ? `Rendering ${Math.round(preparing * 100)}%…`
            : `Play from here (${PLAY_SECONDS} s)`}
        </button>
        {clip && (
          <button type="button" className="secondary" onClick={() => setClip(null)}>
            Back to frame
          </button>
        )}
      </div>
      <p role="status" className="hint">
        {message ?? ""}
      </p>
    </section>
  );
}
